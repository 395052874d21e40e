// The web view and the stream overlay when a player at the table is hostile, in
// headless Chromium against a real rollbridge server (started by
// tests/web/test_web_hostile.py): the player sends, over the protocol (as any
// client can), rolls whose labels are HTML and script, 200 letters without a space,
// zero-width characters, right-to-left text, combining marks stacked on one letter,
// and rolls of many dice; the other pages — the GM's on a laptop, an observer's on
// a 360×740 phone, the overlay — are read. RB_CASE names the case; prints one line
// `RESULT {json}`; the Python test judges it.
//
// Environment: RB_BASE (http://127.0.0.1:PORT), RB_TOKENS (JSON: table → role →
// token; never printed), RB_CHROMIUM, RB_CASE, RB_LABELS (JSON: the labels to roll).

import process from "node:process";

import { DESKTOP, SMALL_PHONE, addActor, gmRequest, joinedPage, runCase, waitSeq, widthOf } from "./pages.mjs";

const env = process.env;
const BASE = env.RB_BASE;
const TOKENS = JSON.parse(env.RB_TOKENS);
const LABELS = JSON.parse(env.RB_LABELS);
const trouble = { errors: [], dialogs: [] };
/** The hostile player's requests so far: each a new id (a repeated id is the same request). */
let made = 0;

/** The hostile player's rolls, sent from `page`'s origin with the player's token:
 * the seq of the last one done, and each reply's status or error code. */
async function hostileRolls(page, rolls, table = "web") {
  const replies = [];
  let last = 0;
  for (const request of rolls) {
    made += 1;
    const reply = await gmRequest(page, table, TOKENS[table].player, { type: "roll", id: `hostile-${made}`, ...request });
    replies.push(reply.status ?? reply.code);
    if (Number.isInteger(reply.seq)) last = Math.max(last, reply.seq);
  }
  return { replies, last };
}

/** How a page holds up: what is wider than its screen (the page, and any element
 * that scrolls sideways), elements a parsed label would have made, the log's lines. */
const layoutOf = async (page) => ({ ...(await widthOf(page)), ...(await page.evaluate(() => ({
  parsed: document.querySelectorAll("body img, body script, body iframe, body svg [onload]").length,
  entries: document.querySelectorAll("#log li.kind-roll").length,
  // a die drawn out of its row, or its text out of its box (a compounding chain of
  // hundreds of rolls is one die): it must wrap in it
  dice: [...document.querySelectorAll(".die")].filter((die) => {
    const box = die.getBoundingClientRect();
    const row = die.closest(".dice").getBoundingClientRect();
    return box.right > row.right + 1 || die.scrollWidth > die.clientWidth + 1 || die.scrollHeight > die.clientHeight + 1;
  }).map((die) => die.textContent.length),
  texts: [...document.querySelectorAll("#log li.kind-roll .summary, #latest .who")].map((node) => node.textContent),
}))) });

const cases = {
  /** The table's pages while the player sends what the labels are. */
  async table(browser, result) {
    const gm = await joinedPage(browser, "gm", { ...DESKTOP, locale: "en-US" }, trouble, `${BASE}/tables/web`,
      TOKENS.web.gm);
    const phone = await joinedPage(browser, "phone", { ...SMALL_PHONE, locale: "ru-RU" }, trouble,
      `${BASE}/tables/web`, TOKENS.web.observer);
    const sent = await hostileRolls(gm, [...LABELS.map((label) => ({ formula: "2d6", label })),
      { formula: "999d6", label: "many" }, { formula: "20d2!!", label: "chains" },
      { formula: "1d1000!!>1", label: "one long chain" }]);
    result.replies = sent.replies;
    for (const [name, page] of [["gm", gm], ["phone", phone]]) {
      await waitSeq(page, sent.last);
      result[name] = await layoutOf(page);
    }
  },

  /** The GM's list of requests waiting for approval while the player asks for rolls so labelled. */
  async pending(browser, result) {
    const gm = await joinedPage(browser, "gm", { ...DESKTOP, locale: "en-US" }, trouble, `${BASE}/tables/approval`,
      TOKENS.approval.gm);
    const phone = await joinedPage(browser, "phone", { ...SMALL_PHONE, locale: "cs-CZ" }, trouble,
      `${BASE}/tables/approval`, TOKENS.approval.gm);
    const sent = await hostileRolls(gm, LABELS.map((label) => ({ formula: "2d6", label })), "approval");
    result.replies = sent.replies;
    for (const [name, page] of [["gm", gm], ["phone", phone]]) {
      await page.waitForFunction((n) => document.querySelectorAll("#pending [data-pending]").length === n, LABELS.length);
      result[name] = { ...(await layoutOf(page)),
        asked: await page.$$eval("#pending [data-pending] > span", (spans) => spans.map((span) => span.textContent)) };
    }
  },

  /** The stream overlay while the player sends what the labels are: the latest roll large. */
  async overlay(browser, result) {
    const scene = { viewport: { width: 1280, height: 720 }, locale: "en-US" };
    const overlay = await joinedPage(browser, "overlay", scene, trouble, `${BASE}/tables/web/overlay`,
      TOKENS.web.observer);
    result.shown = {};
    for (const label of [...LABELS, "one long chain"]) {
      const formula = label === "one long chain" ? "1d1000!!>1" : "2d6";
      const sent = await hostileRolls(overlay, [{ formula, label }]);
      await overlay.waitForSelector(`#latest [data-seq="${sent.last}"]`);
      result.shown[label.slice(0, 20)] = await layoutOf(overlay);
    }
    // the GM names an actor with as many letters as a name may have, none a space
    await addActor(overlay, "web", TOKENS.web.gm, { id: "long", name: "N".repeat(200),
      sheet: { body: 4, combat_pool: 3, armor: { ballistic: 4, impact: 2 } }, controllers: [] });
    await overlay.waitForSelector('#actors [data-actor="long"]');
    result.corner = await overlay.evaluate(() => {
      const box = document.querySelector(".actors").getBoundingClientRect();
      return { left: Math.round(box.left), right: Math.round(box.right), width: Math.round(box.width),
        screen: window.innerWidth };
    });
  },
};

await runCase(cases, trouble);
