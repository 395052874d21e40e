// What a screen reader is told and what the log marks, on the web view
// (tests/web/test_web_told.py): a player's phone whose own request waits on a slow
// line while another's secret event comes. RB_CASE names the case; prints one line
// `RESULT {json}` of what the pages showed; the Python test judges it.
//
// Environment: RB_BASE (http://127.0.0.1:PORT), RB_TOKENS (JSON: table → role →
// token; never printed), RB_CHROMIUM, RB_CASE.

import process from "node:process";

import { DESKTOP, flush, gmRequest, joinedPage, openPage, runCase, seqOf, SMALL_PHONE, waitSeq } from "./pages.mjs";

const env = process.env;
const BASE = env.RB_BASE;
const TOKENS = JSON.parse(env.RB_TOKENS);
const trouble = { errors: [], dialogs: [] };

function step(name) {
  process.stderr.write(`told: ${name}\n`);
}

/** Record each line the page's live region (#announce) is given, as a screen reader
 * hears it: `page.evaluate(() => window.rbTold)`. */
const listen = (page) => page.evaluate(() => {
  window.rbTold = [];
  new MutationObserver((records) => records.forEach((record) => record.addedNodes
    .forEach((node) => window.rbTold.push(node.textContent))))
    .observe(document.getElementById("announce"), { childList: true });
});
const told = (page) => page.evaluate(() => window.rbTold.slice());

/** The player's roll `label` sent on a held line (its reply not come), the GM's
 * secret roll and then an open one `open` made meanwhile: what the player's phone told
 * a screen reader while the roll waited, and after its reply (`settled`, a selector
 * the page shows once it is in). */
async function whileMineWaits(table, label, open, settled) {
  const gm = await openPage(this.browser, "gm", { ...DESKTOP, locale: "en-US" }, trouble);
  await gm.goto(`${BASE}/tables/${table}`);
  const player = await joinedPage(this.browser, "player", { ...SMALL_PHONE, locale: "ru-RU" }, trouble,
    `${BASE}/tables/${table}`, TOKENS[table].player, { tap: true });
  await listen(player);
  const gate = player.gate;
  gate.hold = true;
  const form = player.locator("form.roll-form");
  await form.locator('input[name="formula"]').fill("3d6");
  await form.locator('input[name="label"]').fill(label);
  await form.locator('button[type="submit"]').click();
  await flush(player, { answered: false }); // the roll is on the line, held
  const seq = await seqOf(player);
  const token = TOKENS[table].gm;
  await gmRequest(gm, table, token, { type: "roll", id: `${table}-secret`, formula: "1d6", secret: true });
  await gmRequest(gm, table, token, { type: "roll", id: `${table}-open`, formula: "2d6", label: open });
  await waitSeq(player, seq + 2);
  const held = await told(player);
  const hidden = await player.locator(`#log li[data-seq="${seq + 1}"]`).textContent();
  gate.release();
  await player.waitForSelector(settled);
  await flush(player);
  return { held, after: await told(player), hidden, secretSeq: seq + 1 };
}

const cases = {
  /** At a table whose GM approves nothing first: the roll cannot come back as a
   * secret of its own, so the GM's secret roll is told at once, then the open roll. */
  async noApproval(browser, result) {
    step("a roll held at a table without approval");
    Object.assign(result, await whileMineWaits.call({ browser }, "web", "held roll", "in the open",
      '#log li.kind-roll:has-text("held roll")'));
  },

  /** At a table whose GM approves players' requests first: the placeholder may be the
   * roll's own until its reply says which is; told once it is in, in the order the
   * events came, the roll's own placeholder not at all. */
  async approval(browser, result) {
    step("a roll held at a table with approval");
    Object.assign(result, await whileMineWaits.call({ browser }, "approval", "held roll", "in the open",
      '#log li.kind-mine'));
  },
};

await runCase(cases, trouble);
