// An evening of wilddie in the browser (tests/web/test_web_walk.py): a Czech GM on a
// laptop, a Russian player on a 360×740 touch phone, the GM asking players' requests
// first. RB_CASE names the case; prints one line `RESULT {json}` of what the pages
// showed; the Python test judges it.
//
// Environment: RB_BASE (http://127.0.0.1:PORT), RB_TOKENS (JSON: table → role →
// token; never printed), RB_CHROMIUM, RB_CASE.

import process from "node:process";

import { flush, gmRequest, hide, joinedPage, runCase, seqOf, SMALL_PHONE, waitSeq } from "./pages.mjs";

const env = process.env;
const BASE = env.RB_BASE;
const TOKENS = JSON.parse(env.RB_TOKENS);
const trouble = { errors: [], dialogs: [] };
/** A laptop's screen. */
const LAPTOP = { viewport: { width: 1366, height: 768 } };

function step(name) {
  process.stderr.write(`walk: ${name}\n`);
}

/** What a page says of the action it asked for: the action form's line, the message line. */
const linesOf = (page) => page.evaluate(() => ({
  action: document.querySelector("#action .form-status")?.textContent ?? null,
  message: document.getElementById("message").textContent,
}));

/** The GM's page and the player's at the table `wild`, its requests asked first
 * (their frames recorded: `page.gate`). */
async function evening(browser) {
  const url = `${BASE}/tables/wild`;
  const gm = await joinedPage(browser, "gm", { ...LAPTOP, locale: "cs-CZ" }, trouble, url, TOKENS.wild.gm,
    { tap: true });
  await gmRequest(gm, "wild", TOKENS.wild.gm, { type: "settings", id: "walk-approval", settings: { approval: true } });
  const player = await joinedPage(browser, "player", { ...SMALL_PHONE, locale: "ru-RU" }, trouble, url,
    TOKENS.wild.player, { tap: true });
  return { gm, player };
}

/** The action `action` chosen on `page` and its button pressed with no target: its
 * line, and the `resolve` requests the page sent (after `flush`: all it sent). */
async function pressedWithoutTarget(page, action) {
  await page.locator("#action-select").selectOption(action);
  await page.locator('#action button[type="submit"]').click();
  await page.waitForFunction(() => document.querySelector("#action .form-status")?.textContent);
  await flush(page);
  const line = await page.locator("#action .form-status").evaluate((node) => ({ text: node.textContent,
    kind: node.dataset.kind }));
  const sent = page.gate.sent.map((frame) => JSON.parse(frame)).filter((m) => m.type === "resolve");
  return { ...line, sent: sent.length };
}

/** The player asks for a Notice test (the form's first action, Ana chosen) and the GM
 * approves it from the list (`waits(pending, item)` first sees it waiting, the GM's
 * list item `item`): its pending id, once the player's lines say the result. */
async function approvedTrait(gm, player, waits = async () => {}) {
  await player.locator("#action-select").selectOption("trait");
  await player.locator('#action select[name="trait"]').selectOption("notice");
  await player.locator('#action button[type="submit"]').click();
  await player.waitForFunction(() => /\(p\d+\)/.test(document.querySelector("#action .form-status")?.textContent));
  const pending = (await linesOf(player)).action.match(/\((p\d+)\)/)[1];
  const item = gm.locator(`#pending li[data-pending="${pending}"]`);
  await item.waitFor();
  await waits(pending, item);
  const seq = await seqOf(player);
  await item.locator('button[name="approve"]').click();
  await waitSeq(player, seq + 1);
  await player.waitForFunction(() => !/\(p\d+\)/.test(document.querySelector("#action .form-status")?.textContent));
  return pending;
}

/** The GM presses `button` (undo, redo) in the history and `player` sees its event. */
async function gmTakes(gm, player, button) {
  const seq = await seqOf(player);
  await gm.locator(`#history button[name="${button}"]`).click();
  await waitSeq(player, seq + 1);
}

/**
 * The player's phone hides the page (it keeps its lines) and discards it: the GM
 * presses `button` meanwhile, and the tab is loaded anew. The page stays alive in the
 * test, but keeps nothing after it is hidden (a discarded page writes nothing more),
 * as the phone's would: the next load has what it kept when it was hidden, and the
 * log from before. What the lines say then.
 */
async function awayWhileGmTakes(gm, player, button) {
  await hide(player);
  await player.evaluate(() => { Storage.prototype.setItem = () => {}; });
  await gmTakes(gm, player, button);
  await player.reload();
  await player.waitForFunction(() => document.body.dataset.status === "connected"
    && document.body.dataset.history !== undefined);
  await player.waitForFunction(() => document.querySelector("#action .form-status")?.textContent);
  return linesOf(player);
}

const cases = {
  /** The GM takes Ana back from the player (a player who plays no character now),
   * who then taps *Проверка*. */
  async noActor(browser, result) {
    const { gm, player } = await evening(browser);
    step("the GM takes Ana back");
    const seq = await seqOf(player);
    await gmRequest(gm, "wild", TOKENS.wild.gm, { type: "actor.update", id: "walk-take-back", actor: "ana",
      controllers: [] });
    await waitSeq(player, seq + 1);
    result.player = await pressedWithoutTarget(player, "trait");
  },

  /** The player taps *Атака* with no target chosen (wilddie's attack takes one), and
   * the GM *Udělit žetony* (award chips: one target at least, any number). */
  async noTarget(browser, result) {
    const { gm, player } = await evening(browser);
    step("the player attacks nobody");
    result.player = await pressedWithoutTarget(player, "attack");
    step("the GM awards chips to nobody");
    result.gm = await pressedWithoutTarget(gm, "award_chips");
    step("the player chooses the guard: the attack is sent");
    await player.locator('#action input[name="target"][value="guard"]').check();
    await player.locator('#action button[type="submit"]').click();
    await player.waitForFunction(() => /\(p\d+\)/.test(document.querySelector("#action .form-status")?.textContent));
    result.sent = (await linesOf(player)).action;
  },

  /** The player asks for a Notice test (the form's first action, Ana chosen); the GM
   * reads it in the list, approves it, undoes it, then redoes it. */
  async undone(browser, result) {
    const { gm, player } = await evening(browser);
    step("the player asks for a trait test; the GM approves it");
    result.pending = await approvedTrait(gm, player, async (pending, item) => {
      result.mine = await player.locator(`#log li[data-pending="${pending}"] .summary`).textContent()
        .catch(() => null);
      result.gmList = await item.locator("span").first().textContent();
    });
    result.approved = await linesOf(player);
    step("the GM undoes it");
    await gmTakes(gm, player, "undo");
    result.undone = await linesOf(player);
    step("the GM redoes it");
    await gmTakes(gm, player, "redo");
    result.redone = await linesOf(player);
  },

  /** A German GM on the laptop at the sr2 table chooses *new turn* (every actor's
   * pools refilled: the server takes every actor, and refuses one named), ticks what
   * the form offers and presses it. */
  async everyActor(browser, result) {
    const gm = await joinedPage(browser, "gm", { ...LAPTOP, locale: "de-DE" }, trouble, `${BASE}/tables/web`,
      TOKENS.web.gm, { tap: true });
    await gm.locator("#action-select").selectOption("new_turn");
    const ticks = gm.locator('#action input[name="target"]');
    result.offered = await ticks.count();
    if (result.offered) await ticks.first().check();
    const seq = await seqOf(gm);
    await gm.locator('#action button[type="submit"]').click();
    await gm.waitForFunction(() => document.querySelector("#action .form-status")?.textContent);
    await flush(gm);
    result.line = await gm.locator("#action .form-status").evaluate((node) => ({ text: node.textContent,
      kind: node.dataset.kind ?? "" }));
    result.code = await gm.locator("#message").getAttribute("data-code");
    result.logged = (await seqOf(gm)) > seq;
  },

  /** The player's Notice test approved; the GM undoes it while the player's phone
   * has the tab discarded, then (the page back) redoes it and undoes it again live,
   * and redoes it while the tab is discarded again. The lines kept said the result
   * as it was when the page was hidden: not undone after the first, undone after the
   * second. */
  async undoneAway(browser, result) {
    const { gm, player } = await evening(browser);
    step("the player's trait test approved");
    await approvedTrait(gm, player);
    result.approved = await linesOf(player);
    step("the GM undoes it while the tab is discarded");
    result.undoneAway = await awayWhileGmTakes(gm, player, "undo");
    step("the GM redoes it and undoes it again, the page back");
    await gmTakes(gm, player, "redo");
    result.redone = await linesOf(player);
    await gmTakes(gm, player, "undo");
    result.undone = await linesOf(player);
    step("the GM redoes it while the tab is discarded");
    result.redoneAway = await awayWhileGmTakes(gm, player, "redo");
  },

  /** The top bar of a German observer's phone and of two Russian players' at the
   * table `web`: the role in the page's words, and the name where it is not the
   * role's (the seeded tokens' names are their roles' wire words). */
  async topBar(browser, result) {
    const url = `${BASE}/tables/web`;
    const observer = await joinedPage(browser, "observer", { ...SMALL_PHONE, locale: "de-DE" }, trouble, url,
      TOKENS.web.observer);
    const player = await joinedPage(browser, "player", { ...SMALL_PHONE, locale: "ru-RU" }, trouble, url,
      TOKENS.web.player);
    const gm = await joinedPage(browser, "gm", { ...LAPTOP, locale: "cs-CZ" }, trouble, url, TOKENS.web.gm);
    result.roles = {
      observer: await observer.textContent("#role"),
      player: await player.textContent("#role"),
      gm: await gm.textContent("#role"),
    };
  },
};

await runCase(cases, trouble);
