// The web view at the sizes people read it at, in headless Chromium against a real
// rollbridge server (started by tests/web/test_web_sizes.py): a phone's large text
// (the browser's font size doubled), a phone zoomed in (200 %: a 360 px screen is
// 180 CSS px wide), a phone turned sideways, a desktop window under 1000 px. RB_CASE
// names the case; prints one line `RESULT {json}` of what the pages showed; the
// Python test judges it.
//
// Environment: RB_BASE (http://127.0.0.1:PORT), RB_TOKENS (JSON: table → role →
// token; never printed), RB_CHROMIUM, RB_CASE.

import process from "node:process";

import { DESKTOP, SMALL_PHONE, joinedPage, openPage, roll, runCase } from "./pages.mjs";

const env = process.env;
const BASE = env.RB_BASE;
const TOKENS = JSON.parse(env.RB_TOKENS);
const trouble = { errors: [], dialogs: [] };

function step(name) {
  process.stderr.write(`sizes: ${name}\n`);
}

/** How a page is laid out now: the body's text size, the screen's width and the
 * page's, what reaches past the right edge of the screen's own width, and each visible control
 * that text overlaps (text scrolled out of its scrolling box does not count). Measured
 * at the page's top: on a phone the top bar stays at the screen's top (web.css), and
 * what the page is scrolled under it passes behind it, which is no overlap. */
const layout = (page) => page.evaluate((width) => {
  window.scrollTo(0, 0);
  const screen = window.innerWidth;
  const shown = (node) => node.getClientRects().length > 0 && !node.closest("[hidden], details:not([open]) > :not(summary)");
  const nodes = [...document.querySelectorAll("body *")].filter(shown);
  const name = (node) => `${node.tagName}${node.id ? `#${node.id}` : ""}${node.getAttribute("class") ? `.${node.getAttribute("class")}` : ""}`;
  const hiddenByScroll = (node) => {
    const box = node.getBoundingClientRect();
    for (let up = node.parentElement; up; up = up.parentElement) {
      if (getComputedStyle(up).overflowY === "visible") continue;
      const frame = up.getBoundingClientRect();
      if (box.bottom <= frame.top || box.top >= frame.bottom) return true;
    }
    return false;
  };
  // a word too long for its box overflows it (the box itself fits): each text's own extent
  const widerText = (edge) => {
    const out = [];
    const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    while (walk.nextNode()) {
      const text = walk.currentNode;
      if (!text.textContent.trim() || !shown(text.parentElement) || text.parentElement.closest(".visually-hidden")) continue;
      const range = document.createRange();
      range.selectNodeContents(text);
      // cut short by its box (an ellipsis, overflow hidden), which fits: nothing drawn past it
      const cut = ["hidden", "clip"].includes(getComputedStyle(text.parentElement).overflowX)
        && text.parentElement.getBoundingClientRect().right <= edge + 1;
      if (!cut && range.getBoundingClientRect().right > edge + 1) out.push(`${name(text.parentElement)} "${text.textContent.slice(0, 30)}"`);
    }
    return out;
  };
  const texts = nodes.filter((node) => !node.matches(".visually-hidden") && !hiddenByScroll(node)
    && [...node.childNodes].some((child) => child.nodeType === Node.TEXT_NODE && child.textContent.trim()));
  const controls = nodes.filter((node) => node.matches("button, input, select, summary"));
  const overlaps = [];
  for (const control of controls) {
    const a = control.getBoundingClientRect();
    for (const text of texts) {
      if (text === control || text.contains(control) || control.contains(text)) continue;
      const b = text.getBoundingClientRect();
      if (b.left < a.right - 1 && b.right > a.left + 1 && b.top < a.bottom - 1 && b.bottom > a.top + 1) {
        overlaps.push(`${name(control)} × ${name(text)} "${text.textContent.trim().slice(0, 30)}"`);
      }
    }
  }
  return {
    font: parseFloat(getComputedStyle(document.body).fontSize),
    screen, page: document.documentElement.scrollWidth,
    // a phone's browser widens its layout to fit what is too wide (innerWidth grows):
    // measured against the screen's own width
    wider: [...nodes.filter((node) => node.getBoundingClientRect().right > width + 1).map(name), ...widerText(width)]
      .slice(0, 10),
    overlaps: overlaps.slice(0, 10),
  };
}, page.viewportSize().width);

/** Set the browser's font sizes (as its settings do: "standard" is the one a page's
 * rem and em follow). */
async function fontSize(page, standard) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Page.setFontSizes", { fontSizes: { standard, fixed: Math.round(standard * 0.8125) } });
}

/** A player's page with a roll in the log, the action form chosen, the
 * statistics counted and every "more parameters" open: each panel filled in. */
async function filledPage(browser, name, options, table) {
  const page = await joinedPage(browser, name, options, trouble, `${BASE}/tables/${table}`, TOKENS[table].player);
  await roll(page, "4d6x", "a roll");
  await page.locator("#stats-form button").click();
  await page.waitForSelector("#stats .stats-summary");
  await page.evaluate(() => document.querySelectorAll("#act-panel details").forEach((node) => { node.open = true; }));
  return page;
}

const cases = {
  /** The browser's font size doubled (a phone's large text): the page's text
   * follows it, and a 360 px phone still shows everything without scrolling
   * sideways, no text over a control; the join form too. */
  async large(browser, result) {
    for (const [table, locale] of [["web", "de-DE"], ["wild", "ru-RU"]]) {
      step(`${table} in ${locale}`);
      const page = await filledPage(browser, table, { ...SMALL_PHONE, locale }, table);
      result[table] = { normal: await layout(page) };
      await fontSize(page, 32);
      await page.waitForFunction(() => parseFloat(getComputedStyle(document.body).fontSize) > 20);
      result[table].large = await layout(page);
      step(`${table}: turned sideways`);
      await page.setViewportSize({ width: 740, height: 360 });
      result[table].sideways = await layout(page);
    }
    step("the join form");
    const stranger = await openPage(browser, "stranger", { ...SMALL_PHONE, locale: "cs-CZ" }, trouble);
    await fontSize(stranger, 32);
    await stranger.goto(`${BASE}/tables/web`);
    await stranger.waitForSelector("#join:not([hidden])");
    result.join = await layout(stranger);
  },

  /** A phone zoomed in to 200 % (a 360 px screen 180 CSS px wide): nothing wider. */
  async zoomed(browser, result) {
    const page = await filledPage(browser, "player", { ...SMALL_PHONE, locale: "cs-CZ" }, "web");
    await page.setViewportSize({ width: 180, height: 370 });
    result.zoomed = await layout(page);
  },

  /** A table whose name is one long word (a German compound), on a Russian 360 px
   * phone: the top bar wraps it, and the page is the screen's width. */
  async longName(browser, result) {
    const page = await joinedPage(browser, "player", { ...SMALL_PHONE, locale: "ru-RU" }, trouble,
      `${BASE}/tables/long`, TOKENS.long.player);
    await page.waitForSelector("body[data-history]");
    result.longName = await layout(page);
  },

  /** A desktop window 920 px wide (a 1366 px laptop at 150 %): the GM's page does
   * not scroll sideways. */
  async window(browser, result) {
    const page = await joinedPage(browser, "gm", { ...DESKTOP, viewport: { width: 920, height: 900 }, locale: "en-US" },
      trouble, `${BASE}/tables/web`, TOKENS.web.gm);
    await roll(page, "4d6x", "a roll");
    await page.locator("#stats-form button").click();
    await page.waitForSelector("#stats .stats-summary");
    result.narrow = await layout(page);
    await page.setViewportSize({ width: 1280, height: 900 });
    result.wide = await layout(page);
    result.columns = await page.evaluate(() => getComputedStyle(document.getElementById("table")).gridTemplateColumns
      .split(" ").length);
  },
};

await runCase(cases, trouble);
