// The GM's requests waiting for approval and a player's line of an approved roll, in
// headless Chromium against a real rollbridge server (started by
// tests/web/test_web_waiting.py). RB_CASE names the case; prints one line
// `RESULT {json}` of what the pages showed; the Python test judges it.
//
// Environment: RB_BASE (http://127.0.0.1:PORT), RB_TOKENS (JSON: table → role →
// token; never printed), RB_CHROMIUM, RB_CASE.

import process from "node:process";

import { SMALL_PHONE, gmRequest, joinedPage, runCase } from "./pages.mjs";

const env = process.env;
const TOKENS = JSON.parse(env.RB_TOKENS);
const LAPTOP = { viewport: { width: 1366, height: 768 }, deviceScaleFactor: 1 };
const trouble = { errors: [], dialogs: [] };
const url = `${env.RB_BASE}/tables/approval`;

/** Where an element is on the screen: shown, wholly inside the window, its text. */
const onScreen = (page, selector) => page.evaluate((selector) => {
  const node = document.querySelector(selector);
  if (!node) return null;
  const box = node.getBoundingClientRect();
  return { hidden: node.hidden, text: node.textContent, inside: box.width > 0 && box.top >= 0
    && box.bottom <= window.innerHeight && box.left >= 0 && box.right <= window.innerWidth };
}, selector);

/** `count` rolls by the GM over one socket, as Foundry's GM rolls. */
const gmRolls = (page, count) => page.evaluate(({ token, count }) => new Promise((resolve, reject) => {
  const socket = new WebSocket(`ws://${location.host}/tables/approval`);
  let done = 0;
  const next = () => socket.send(JSON.stringify({ type: "roll", id: `late-${done}`, formula: "4d6", label: "late" }));
  socket.onopen = () => socket.send(JSON.stringify({ type: "hello", id: "gm-hello", table: "approval", token }));
  socket.onmessage = (message) => {
    const frame = JSON.parse(message.data);
    if (frame.id === "gm-hello") next();
    else if (frame.type !== "event" && frame.id === `late-${done}`) {
      done += 1;
      if (done < count) next();
      else {
        socket.close();
        resolve(done);
      }
    }
  };
  socket.onerror = () => reject(new Error("the GM's socket failed"));
}), { token: TOKENS.approval.gm, count });

const cases = {
  // a German GM on a 1366×768 laptop, after a long evening: players' requests come in
  async laptop(browser, result) {
    const gm = await joinedPage(browser, "gm", { ...LAPTOP, locale: "de-DE" }, trouble, url, TOKENS.approval.gm);
    await gm.waitForFunction(() => Number(document.body.dataset.history) >= 200);
    result.before = await onScreen(gm, "#log-waiting");
    for (const [index, formula] of ["2d6", "3d6"].entries()) {
      await gmRequest(gm, "approval", TOKENS.approval.player,
        { type: "roll", id: `ask-${index}`, formula, label: `ask ${index}` });
      await gm.waitForFunction((n) => document.querySelectorAll("#pending li.pending-item").length === n, index + 1);
    }
    result.list = await onScreen(gm, "#pending li.pending-item");
    result.jump = await onScreen(gm, "#log-waiting");
    await gm.click("#log-waiting");
    result.focus = await gm.evaluate(() => ({
      name: document.activeElement?.getAttribute("name") ?? null,
      pending: document.activeElement?.closest("li.pending-item")?.dataset.pending ?? null,
      first: document.querySelector("#pending li.pending-item")?.dataset.pending ?? null,
    }));
    result.approve = await onScreen(gm, "#pending li.pending-item button[name='approve']");
    // approved, both: nothing waits, and the button says nothing
    for (let left = 2; left > 0; left -= 1) {
      await gm.keyboard.press("Enter");
      await gm.waitForFunction((n) => document.querySelectorAll("#pending li.pending-item").length === n, left - 1);
    }
    result.after = await onScreen(gm, "#log-waiting");
  },
  // a German GM on a 1024×768 laptop, the log read to its end: the button's words
  // wrap there, and the room left under the last entry was two lines'
  async wrapped(browser, result) {
    const gm = await joinedPage(browser, "gm", { viewport: { width: 1024, height: 768 }, deviceScaleFactor: 1,
      locale: "de-DE" }, trouble, url, TOKENS.approval.gm);
    await gm.waitForFunction(() => Number(document.body.dataset.history) >= 200);
    await gmRequest(gm, "approval", TOKENS.approval.player, { type: "roll", id: "ask-wrapped", formula: "2d6", label: "ask" });
    await gm.waitForFunction(() => document.querySelectorAll("#pending li.pending-item").length === 1);
    result.drawn = await gm.evaluate(async () => {
      const log = document.getElementById("log");
      log.scrollTop = log.scrollHeight;
      // drawn twice since
      for (let frame = 0; frame < 2; frame += 1) await new Promise((done) => requestAnimationFrame(done));
      const button = document.getElementById("log-waiting").getBoundingClientRect();
      const last = log.lastElementChild.getBoundingClientRect();
      const style = getComputedStyle(document.getElementById("log-waiting"));
      const text = button.height - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom);
      return { lines: Math.round(text / parseFloat(style.lineHeight)),
        atEnd: log.scrollTop + log.clientHeight >= log.scrollHeight - 1, lastBottom: last.bottom, buttonTop: button.top };
    });
  },
  // a Russian, a Czech and a German GM on a 360×740 phone after a long evening, the
  // log read to its end: a player's request comes in; the button's words wrapped to
  // three lines (95 px in Russian) over the log's last entry
  async phone(browser, result) {
    const pages = {};
    for (const locale of ["ru-RU", "cs-CZ", "de-DE"]) {
      const gm = await joinedPage(browser, `gm-${locale}`, { ...SMALL_PHONE, locale }, trouble, url, TOKENS.approval.gm);
      await gm.waitForFunction(() => Number(document.body.dataset.history) >= 200);
      pages[locale] = gm;
    }
    /** Where the log and the GM's controls are (in the page, not the screen), and the
     * button: its lines, words, name, box; the log read to its end. */
    const measure = (gm) => gm.evaluate(async () => {
      const log = document.getElementById("log");
      log.scrollTop = log.scrollHeight;
      for (let frame = 0; frame < 2; frame += 1) await new Promise((done) => requestAnimationFrame(done));
      const node = document.getElementById("log-waiting");
      const button = node.getBoundingClientRect();
      const range = document.createRange();
      range.selectNodeContents(node);
      const last = log.lastElementChild.getBoundingClientRect();
      const box = log.getBoundingClientRect();
      return {
        hidden: node.hidden, text: node.textContent, label: node.getAttribute("aria-label"), title: node.title,
        // the lines its words are drawn on (its box is 44 px tall at least, for a finger)
        lines: new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size, height: button.height,
        cut: node.scrollWidth > node.clientWidth,
        inside: button.left >= box.left && button.right <= box.right && button.right <= window.innerWidth,
        atEnd: log.scrollTop + log.clientHeight >= log.scrollHeight - 1,
        lastBottom: last.bottom, buttonTop: button.top, logBottom: box.bottom,
        logHeight: log.clientHeight, controls: document.getElementById("gm-panel").getBoundingClientRect().top + scrollY,
      };
    });
    result.before = {};
    for (const [locale, gm] of Object.entries(pages)) result.before[locale] = await measure(gm);
    await gmRequest(pages["ru-RU"], "approval", TOKENS.approval.player, { type: "roll", id: "ask-phone", formula: "2d6", label: "ask" });
    result.after = {};
    for (const [locale, gm] of Object.entries(pages)) {
      await gm.waitForFunction(() => document.querySelectorAll("#pending li.pending-item").length === 1);
      result.after[locale] = await measure(gm);
      // the accessible name, as Chromium computes it: the long words
      const { label } = result.after[locale];
      result.after[locale].named = label ? await gm.getByRole("button", { name: label, exact: true }).count() : 0;
    }
  },
  // the button has the keyboard's focus when the last request is approved elsewhere
  // (another GM, Foundry): the list saying that nothing waits takes it
  async answered(browser, result) {
    const gm = await joinedPage(browser, "gm", { ...LAPTOP, locale: "de-DE" }, trouble, url, TOKENS.approval.gm);
    const reply = await gmRequest(gm, "approval", TOKENS.approval.player,
      { type: "roll", id: "ask-answered", formula: "2d6", label: "ask" });
    await gm.waitForFunction(() => !document.getElementById("log-waiting").hidden);
    await gm.focus("#log-waiting");
    await gmRequest(gm, "approval", TOKENS.approval.gm, { type: "approve", id: "elsewhere", request: reply.pending });
    await gm.waitForFunction(() => document.getElementById("log-waiting").hidden);
    result.focus = await gm.evaluate(() => ({ id: document.activeElement?.id || document.activeElement?.tagName,
      text: document.activeElement?.textContent }));
  },
  // a Czech phone's roll approved by the GM; the evening goes on past the 200 events
  // a page loads from before it joins, and the player chooses Русский
  async earlier(browser, result) {
    const player = await joinedPage(browser, "player", { ...SMALL_PHONE, locale: "cs-CZ" }, trouble, url,
      TOKENS.approval.player);
    const form = player.locator("form.roll-form");
    await form.locator('input[name="formula"]').fill("2d6");
    await form.locator('input[name="label"]').fill("Tukan looks");
    await form.locator('button[type="submit"]').click();
    await player.waitForFunction(() => /\(p\d+\)/.test(document.querySelector("form.roll-form .form-status")?.textContent ?? ""));
    const pending = await player.evaluate(() => document.querySelector("form.roll-form .form-status").textContent);
    result.pending = pending;
    const reply = await gmRequest(player, "approval", TOKENS.approval.gm,
      { type: "approve", id: "gm-approves", request: (await gmPending(player)) });
    result.approved = reply.event?.seq ?? reply.seq ?? null;
    await player.waitForFunction((seq) => Number(document.body.dataset.seq ?? 0) >= seq, result.approved);
    result.line = await player.evaluate(() => document.querySelector("form.roll-form .form-status").textContent);
    await gmRolls(player, 205);
    await player.waitForFunction((seq) => Number(document.body.dataset.seq ?? 0) >= seq, result.approved + 205);
    await Promise.all([player.waitForEvent("load"), player.selectOption("#language", "ru")]);
    await player.waitForSelector('body[data-status="connected"]');
    await player.waitForFunction(() => Number(document.body.dataset.history) >= 200);
    result.history = await player.evaluate(() => Number(document.body.dataset.history));
    result.first = await player.evaluate(() => Math.min(...[...document.querySelectorAll("#log li[data-seq]")]
      .map((li) => Number(li.dataset.seq))));
    result.reloaded = await player.evaluate(() => ({
      form: document.querySelector("form.roll-form .form-status")?.textContent ?? null,
      message: document.getElementById("message").textContent,
      lang: document.documentElement.lang,
    }));
  },
};

/** The pending id of the request waiting at the table, as the GM's table lists it. */
async function gmPending(page) {
  const answer = await page.evaluate(() => document.querySelector("form.roll-form .form-status").textContent);
  const found = /p\d+/.exec(answer);
  if (!found) throw new Error(`no pending id in ${answer}`);
  return found[0];
}

await runCase(cases, trouble);
