// A tablet's table page (tests/web/test_web_tablet.py): a player's page upright
// (768×1024) and turned (1024×768), a touch screen drawn at two device pixels a CSS
// pixel, in Czech, German, Russian and English, after a long evening's log: where the
// log and the roll form are drawn, whether the form is reached without scrolling past
// the whole log, and what axe finds. RB_CASE: "tablet". Prints one line
// `RESULT {json}`.
//
// Environment: RB_BASE (http://127.0.0.1:PORT), RB_TOKENS (JSON: table → role →
// token; never printed), RB_CHROMIUM, RB_CASE.

import { axeViolations } from "./axe_run.mjs";
import { caseScript, flush, gmRequest, joinedPage, openPage, runCase, widthOf } from "./pages.mjs";

const { BASE, TOKENS, trouble, step } = caseScript("tablet");

/** A tablet, upright and turned. */
export const TABLETS = {
  upright: { viewport: { width: 768, height: 1024 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 },
  turned: { viewport: { width: 1024, height: 768 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 },
};

/** Where the page draws the log's panel and the roll form (page coordinates, the page
 * scrolled to its top), and how far the page must be scrolled to see the form's
 * formula and its Roll button whole. */
const layout = (page) => page.evaluate(() => {
  window.scrollTo(0, 0);
  const box = (node) => {
    const at = node.getBoundingClientRect();
    return { top: Math.round(at.top + window.scrollY), bottom: Math.round(at.bottom + window.scrollY),
      left: Math.round(at.left), right: Math.round(at.right) };
  };
  const form = document.querySelector("form.roll-form");
  const submit = form.querySelector('button[type="submit"]');
  return {
    screen: { width: window.innerWidth, height: window.innerHeight },
    log: box(document.getElementById("log-panel")),
    entries: document.querySelectorAll("#log li[data-seq]").length,
    form: box(form), submit: box(submit), formula: box(form.querySelector('input[name="formula"]')),
    actors: box(document.getElementById("actors-panel")),
    // what a tap in the middle of the formula field hits, the page at its top
    hit: (() => {
      const at = form.querySelector('input[name="formula"]').getBoundingClientRect();
      if (at.bottom > window.innerHeight) return null;
      const found = document.elementFromPoint(at.left + at.width / 2, at.top + at.height / 2);
      return found === form.querySelector('input[name="formula"]');
    })(),
  };
});

/** A tablet upright with its keyboard open: what is left of its screen. */
const KEYBOARD = { viewport: { width: 768, height: 500 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 };

/** Where `selector`'s element is on the screen (the page as it is scrolled), and
 * whether it is whole inside it. */
const onScreen = (page, selector) => page.evaluate((selector) => {
  const node = document.querySelector(selector);
  if (!node || !node.checkVisibility()) return null;
  const at = node.getBoundingClientRect();
  return { top: Math.round(at.top + window.scrollY), inView: at.top >= 0 && at.bottom <= window.innerHeight };
}, selector);

/** A tablet upright with the keyboard open (768×500), after a long evening's log:
 * the player's roll form and the GM's requests waiting, each where it is drawn, and
 * reached with one tap on the page's shortcuts. */
async function keyboardOpen(browser, result) {
  const url = `${BASE}/tables/approval`;
  const setup = await openPage(browser, "setup", TABLETS.turned, trouble);
  await setup.goto(url);
  for (let i = 0; i < 30; i++) {
    await gmRequest(setup, "approval", TOKENS.approval.gm, { type: "roll", id: `evening-${i}`, formula: "2d6",
      label: `a long evening ${i}` });
  }
  for (const label of ["first ask", "second ask"]) {
    await gmRequest(setup, "approval", TOKENS.approval.player, { type: "roll", id: label, formula: "1d6", label });
  }
  await setup.context().close();
  result.keyboard = {};
  for (const [who, locale] of [["player", "cs-CZ"], ["gm", "de-DE"]]) {
    step(`${who} at 768×500`);
    const page = await joinedPage(browser, who, { ...KEYBOARD, locale }, trouble, url, TOKENS.approval[who]);
    await page.waitForFunction(() => document.querySelectorAll("#log li[data-seq]").length >= 30);
    await page.locator("form.roll-form").waitFor();
    if (who === "gm") await page.locator("#pending button[name='approve']").first().waitFor();
    const got = {
      form: await onScreen(page, "form.roll-form input[name='formula']"),
      approve: await onScreen(page, "#pending button[name='approve']"),
      jumps: await page.evaluate(() => [...document.querySelectorAll("#jumps button")]
        .filter((b) => b.checkVisibility()).map((b) => {
          const at = b.getBoundingClientRect();
          return { id: b.id, text: b.textContent, inView: at.top >= 0 && at.bottom <= window.innerHeight,
            height: Math.round(at.height) };
        })),
      label: await page.getAttribute("#jumps", "aria-label"),
      violations: await axeViolations(page),
    };
    got.wide = await widthOf(page);
    await page.locator("#jump-roll").tap();
    got.toForm = { ...await onScreen(page, "form.roll-form input[name='formula']"),
      focused: await page.evaluate(() => document.activeElement?.name === "formula") };
    if (who === "gm") {
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.locator("#jump-waiting").tap();
      got.toApprove = { ...await onScreen(page, "#pending button[name='approve']"),
        focused: await page.evaluate(() => document.activeElement === document.querySelector(
          "#pending button[name='approve']")) };
    }
    result.keyboard[who] = got;
    await page.context().close();
  }
}

const cases = {
  keyboardOpen,
  /** A long evening (40 rolls), then a player's page on each tablet in each language:
   * its layout, a roll made from the form there, and axe's findings. */
  async tablet(browser, result) {
    const setup = await openPage(browser, "setup", TABLETS.turned, trouble);
    await setup.goto(`${BASE}/tables/web`);
    for (let i = 0; i < 40; i++) {
      await gmRequest(setup, "web", TOKENS.web.gm, { type: "roll", id: `evening-${i}`, formula: "2d6",
        label: `a long evening ${i}` });
    }
    await setup.context().close();
    result.pages = {};
    for (const [size, options] of Object.entries(TABLETS)) {
      for (const locale of ["cs-CZ", "de-DE", "ru-RU", "en-US"]) {
        const name = `${locale.slice(0, 2)}-${size}`;
        step(name);
        const page = await joinedPage(browser, name, { ...options, locale }, trouble, `${BASE}/tables/web`,
          TOKENS.web.player, { tap: true });
        await page.waitForFunction(() => document.querySelectorAll("#log li[data-seq]").length >= 40);
        await page.locator("form.roll-form").waitFor();
        const got = await layout(page);
        got.wide = await widthOf(page);
        // the form used where it is: a tap on its field and its button, the page not scrolled
        const form = page.locator("form.roll-form");
        await form.locator('input[name="formula"]').tap();
        await page.keyboard.type("1d6");
        await form.locator('button[type="submit"]').tap();
        await form.locator(".form-status:not(:empty)").waitFor();
        await flush(page);
        got.scrolled = await page.evaluate(() => Math.round(window.scrollY));
        got.violations = await axeViolations(page);
        result.pages[name] = got;
        await page.context().close();
      }
    }
  },
};

await runCase(cases, trouble);
