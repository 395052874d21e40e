// A GM's long evening on a laptop, by keyboard alone, in headless Chromium against a
// real rollbridge server (started by tests/web/test_web_evening.py, which rolled
// hundreds of times at the table `approval` first): the GM reads older entries of the
// log while a player's request comes in. RB_CASE is the page's language (cs, de,
// ru); prints one line `RESULT {json}` of what the page showed; the Python test
// judges it.
//
// Environment: RB_BASE (http://127.0.0.1:PORT), RB_TOKENS (JSON: table → role →
// token; never printed), RB_CHROMIUM, RB_CASE.

import process from "node:process";

import { gmRequest, joinedPage, launch } from "./pages.mjs";

const env = process.env;
const TOKENS = JSON.parse(env.RB_TOKENS);
const LOCALES = { cs: "cs-CZ", de: "de-DE", ru: "ru-RU" };
const LAPTOP = { viewport: { width: 1366, height: 768 }, deviceScaleFactor: 1 };
const trouble = { errors: [], dialogs: [] };
const browser = await launch(env.RB_CHROMIUM);
const result = { case: env.RB_CASE };

/** Where the page stands: the window's and the log's scrolling, the entry read at the
 * log's top edge and where it is, the button above the log, the GM's waiting
 * requests on the screen, the focus. */
const state = (page) => page.evaluate(() => {
  const log = document.getElementById("log");
  const edge = log.getBoundingClientRect().top;
  const read = [...log.children].find((entry) => entry.getBoundingClientRect().bottom > edge);
  const newer = document.getElementById("log-newer");
  const waiting = [...document.querySelectorAll("#pending li.pending-item")];
  return {
    windowY: window.scrollY,
    page: document.documentElement.scrollHeight,
    screen: window.innerHeight,
    log: { top: log.scrollTop, height: log.clientHeight, content: log.scrollHeight, entries: log.children.length },
    read: read ? { seq: read.dataset.seq ?? null, at: read.getBoundingClientRect().top } : null,
    first: log.firstElementChild?.className ?? null,
    newer: newer && { hidden: newer.hidden, text: newer.textContent },
    waiting: waiting.map((item) => {
      const box = item.getBoundingClientRect();
      return box.top >= 0 && box.bottom <= window.innerHeight;
    }),
    focus: document.activeElement?.id || document.activeElement?.tagName || null,
    edge, message: document.getElementById("message").textContent,
  };
});

try {
  const url = `${env.RB_BASE}/tables/approval`;
  const gm = await joinedPage(browser, "gm", { ...LAPTOP, locale: LOCALES[env.RB_CASE] }, {
    errors: trouble.errors, dialogs: trouble.dialogs }, url, TOKENS.approval.gm);
  await gm.waitForFunction(() => Number(document.body.dataset.history) >= 200);
  result.joined = await state(gm);
  // by keyboard alone: Tab from the table's heading (the focus after joining) to the log
  for (let tab = 0; tab < 60 && (await gm.evaluate(() => document.activeElement?.id)) !== "log"; tab += 1) {
    await gm.keyboard.press("Tab");
  }
  // each PageDown scrolls smoothly: the next key, and what is read, once it has ended
  // (its scrollend, on the log or the page, whichever it scrolled)
  await gm.evaluate(() => {
    window.scrollsEnded = 0;
    const ended = () => { window.scrollsEnded += 1; };
    document.getElementById("log").addEventListener("scrollend", ended);
    document.addEventListener("scrollend", ended);
  });
  for (let page = 1; page <= 6; page += 1) {
    await gm.keyboard.press("PageDown");
    await gm.waitForFunction((n) => window.scrollsEnded >= n, page);
  }
  result.reading = await state(gm);
  // a player's roll comes in, waiting for the GM's approval, while older entries are read
  const entries = result.reading.log.entries;
  await gmRequest(gm, "approval", TOKENS.approval.player,
    { type: "roll", id: "evening-ask", formula: "2d6", label: "late ask" });
  await gm.waitForFunction((n) => document.getElementById("log").children.length > n
    && document.querySelector("#pending li.pending-item"), entries);
  result.arrived = await state(gm);
  // back to the newest, by keyboard: the button is just before the log
  await gm.keyboard.press("Shift+Tab");
  result.onButton = await gm.evaluate(() => document.activeElement?.id ?? null);
  await gm.keyboard.press("Enter");
  await gm.waitForFunction(() => document.getElementById("log").scrollTop === 0).catch(() => {});
  result.back = await state(gm);
} catch (error) {
  result.failed = `${error.message}`;
} finally {
  await browser.close();
}
process.stdout.write(`RESULT ${JSON.stringify({ ...result, trouble })}\n`);
