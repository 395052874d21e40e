// A phone's on-screen keyboard while the page redraws, in headless Chromium against a
// real rollbridge server (started by tests/web/test_web_keyboard_redraw.py): a
// player types in a form — the caret inside the text, a word still being composed
// as an Android keyboard composes every word (the DevTools protocol's
// Input.imeSetComposition) — when events arrive: another roll, and the GM adding an
// actor (the forms are built anew). RB_CASE names the case; prints one line
// `RESULT {json}` of what the page showed; the Python test judges it.
//
// Environment: RB_BASE (http://127.0.0.1:PORT), RB_TOKENS (JSON: table → role →
// token; never printed), RB_CHROMIUM, RB_CASE.

import process from "node:process";

import { DESKTOP, SMALL_PHONE, addActor, gmRequest, joinedPage, runCase, waitSeq, seqOf } from "./pages.mjs";

const env = process.env;
const BASE = env.RB_BASE;
const TOKENS = JSON.parse(env.RB_TOKENS);
const trouble = { errors: [], dialogs: [] };

function step(name) {
  process.stderr.write(`keyboard_redraw: ${name}\n`);
}

/** The focused field: its form's key and name, its value, caret, and whether it is
 * the element the typing started in. */
const typing = (page) => page.evaluate(() => {
  const node = document.activeElement;
  return { form: node?.form?.dataset.form ?? null, name: node?.name ?? null, value: node?.value ?? null,
    caret: node?.selectionStart ?? null, end: node?.selectionEnd ?? null, same: node === window.rbTyping };
});

/** The GM on a laptop and the player on a phone at the table `web`, and the
 * DevTools session of the player's page (its keyboard); with `tap`, the player's
 * frames recorded and held at will (`player.gate`). */
async function gmAndPhone(browser, { tap = false } = {}) {
  const url = `${BASE}/tables/web`;
  const gm = await joinedPage(browser, "gm", { ...DESKTOP, locale: "en-US" }, trouble, url, TOKENS.web.gm);
  const player = await joinedPage(browser, "player", { ...SMALL_PHONE, locale: "en-US" }, trouble, url,
    TOKENS.web.player, { tap });
  return { gm, player, cdp: await player.context().newCDPSession(player) };
}

const cases = {
  async compose(browser, result) {
    const { gm, player, cdp } = await gmAndPhone(browser);
    const label = player.locator('form.roll-form input[name="label"]');
    await label.fill("Tukan dodges bullets");
    // the caret after "dodges", a word being composed there
    await label.evaluate((node) => {
      node.focus();
      node.setSelectionRange(12, 12);
      window.rbTyping = node;
    });
    await cdp.send("Input.imeSetComposition", { text: " fas", selectionStart: 4, selectionEnd: 4 });
    result.composing = await typing(player);
    step("another roll arrives");
    let seq = await seqOf(player);
    await gmRequest(gm, "web", TOKENS.web.gm, { type: "roll", id: "other-roll", formula: "2d6", label: "Rook",
      actor: "rook" });
    await waitSeq(player, seq + 1);
    result.afterRoll = await typing(player);
    step("the GM adds an actor: the forms are built anew");
    seq = await seqOf(player);
    await addActor(gm, "web", TOKENS.web.gm, { id: "npc-k", name: "Guard K",
      sheet: { body: 4, combat_pool: 3, armor: { ballistic: 4, impact: 2 } }, controllers: [] });
    await player.waitForSelector('form.action-form input[name="target"][value="npc-k"], #actors [data-actor="npc-k"]');
    await waitSeq(player, seq + 1);
    result.afterRedraw = await typing(player);
    step("the keyboard goes on composing, then commits the word");
    await cdp.send("Input.imeSetComposition", { text: " fast", selectionStart: 5, selectionEnd: 5 });
    await cdp.send("Input.insertText", { text: " fast" });
    result.committed = await typing(player);
    // once the word is in, the form is built anew (the actor list follows the table),
    // a task later (a tap that ended the word does what it does first)
    result.rebuilt = await player.waitForFunction(() => !document.contains(window.rbTyping))
      .then(() => true, () => false);
    result.afterCommit = await typing(player);
  },

  /** A player on a phone types a roll's label, the last word still being composed
   * (an Android keyboard commits it only when the field is left), while the GM adds
   * an actor; then, on a slow line (the page's frames held), taps *Roll* — or clicks
   * it with a mouse (RB_HOW "click"). */
  async tapRoll(browser, result) {
    const how = env.RB_HOW ?? "tap";
    const { gm, player, cdp } = await gmAndPhone(browser, { tap: true });
    const gate = player.gate;
    const form = player.locator("form.roll-form");
    await form.locator('input[name="formula"]').fill("2d6");
    const label = form.locator('input[name="label"]');
    await label.fill("Tukan");
    await label.evaluate((node) => {
      node.focus();
      node.setSelectionRange(5, 5);
      window.rbForm = node.form;
    });
    await cdp.send("Input.imeSetComposition", { text: " dodges", selectionStart: 7, selectionEnd: 7 });
    step("the GM adds an actor while the word is composed");
    const seq = await seqOf(player);
    await addActor(gm, "web", TOKENS.web.gm, { id: "npc-t", name: "Guard T",
      sheet: { body: 4, combat_pool: 3, armor: { ballistic: 4, impact: 2 } }, controllers: [] });
    await player.waitForSelector('#actors [data-actor="npc-t"]');
    await waitSeq(player, seq + 1);
    result.deferred = await player.evaluate(() => document.querySelector("form.roll-form") === window.rbForm);
    step(`the player ${how}s Roll`);
    gate.hold = true;
    const button = player.locator('form.roll-form button[type="submit"]');
    if (how === "tap") await button.tap();
    else await button.click();
    const rollSent = () => gate.held.some(([, frame]) => JSON.parse(String(frame)).type === "roll");
    // (a bound for a roll never sent: the test then says so)
    result.sent = await gate.until(rollSent, 20_000);
    if (!result.sent) return;
    const roll = gate.held.map(([, frame]) => JSON.parse(String(frame))).find((frame) => frame.type === "roll");
    result.label = roll.label;
    step("the form built anew while the roll waits for the line");
    await player.waitForFunction(() => document.querySelector("form.roll-form") !== window.rbForm);
    result.waiting = await player.evaluate(() => {
      const button = document.querySelector('form.roll-form button[type="submit"]');
      return { unavailable: button.getAttribute("aria-disabled") === "true", disabled: button.disabled,
        waiting: button.form.dataset.waiting ?? null };
    });
    gate.release();
    await player.locator("#log li.kind-roll", { hasText: "Tukan dodges" }).first().waitFor();
    result.after = await player.evaluate(() => {
      const button = document.querySelector('form.roll-form button[type="submit"]');
      return { unavailable: button.getAttribute("aria-disabled") === "true", disabled: button.disabled,
        waiting: button.form.dataset.waiting ?? null, rolls: document.querySelectorAll("#log li.kind-roll").length };
    });
  },
};

await runCase(cases, trouble);
