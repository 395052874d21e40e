// The odds of a roll or an action before it is made, asked from a player's phone
// in headless Chromium against a real rollbridge server (started by
// tests/web/test_web_odds.py): the Odds button beside a form's own. RB_CASE names
// the case; prints one line `RESULT {json}` of what the pages showed and sent; the
// Python test judges it.
//
// Environment: RB_BASE (http://127.0.0.1:PORT), RB_TOKENS (JSON: table → role →
// token; never printed), RB_CHROMIUM, RB_CASE.

import process from "node:process";

import { PHONE, SMALL_PHONE, fillAttack, joinedPage, roll, runCase } from "./pages.mjs";

const env = process.env;
const BASE = env.RB_BASE;
const TOKENS = JSON.parse(env.RB_TOKENS);
const trouble = { errors: [], dialogs: [] };

function step(name) {
  process.stderr.write(`odds: ${name}\n`);
}

/** Tap a form's Odds button (twice, fast, with `twice`; with `keyboard`, focus it
 * and press Enter) and wait for its answer: what the form shows then (and where the
 * focus is), and the requests the tap sent. */
async function tapOdds(page, form, { twice = false, keyboard = false } = {}) {
  const before = page.gate.sent.length;
  await form.locator(".form-status").evaluate((line) => { line.textContent = ""; });
  const button = form.locator('button[name="odds"]');
  if (twice) await button.evaluate((node) => { node.click(); node.click(); });
  else if (keyboard) {
    await button.focus();
    await page.keyboard.press("Enter");
  } else await button.tap();
  await form.locator(".form-status:not(:empty)").waitFor();
  await form.locator('button[name="odds"]:not([aria-disabled="true"])').waitFor();
  return form.evaluate((node, sent) => ({
    sent,
    line: node.querySelector(".form-status").textContent,
    kind: node.querySelector(".form-status").dataset.kind ?? null,
    code: node.querySelector(".form-status").dataset.code ?? null,
    head: [...node.querySelectorAll(".odds-table thead th")].map((cell) => cell.textContent),
    rows: [...node.querySelectorAll(".odds-table tbody tr")].map((row) => [...row.cells].map((cell) => cell.textContent)),
    titles: [...node.querySelectorAll(".odds-table tbody td[title]")].map((cell) => cell.title),
    note: node.querySelector(".odds-note")?.textContent ?? null,
    button: node.querySelector('button[name="odds"]').textContent,
    focus: document.activeElement?.name ?? document.activeElement?.tagName ?? null,
  }), page.gate.sent.slice(before).map((frame) => JSON.parse(frame)).filter((m) => m.type !== "ping"));
}

/** A player's phone (`options`: its size and locale) joined to the sr2 table, and its
 * roll form. */
async function sr2Player(browser, options) {
  const page = await joinedPage(browser, "player", options, trouble, `${BASE}/tables/web`, TOKENS.web.player, { tap: true });
  return { page, rollForm: page.locator("form.roll-form") };
}

/** The odds of `formula` asked from the roll form (tapOdds's `options`). */
async function formulaOdds(page, rollForm, formula, options) {
  await rollForm.locator('input[name="formula"]').fill(formula);
  return tapOdds(page, rollForm, options);
}

const cases = {
  /** A Czech phone at the sr2 table asks the odds of notation (3d6, a typo, an
   * exploding die) and of an attack on a player's actor and on an NPC; a Russian
   * phone at the wilddie table, of a trait test. */
  async player(browser, result) {
    step("a Czech phone at the sr2 table");
    const { page: player, rollForm } = await sr2Player(browser, { ...SMALL_PHONE, locale: "cs-CZ" });
    result.formula = await formulaOdds(player, rollForm, "3d6", { twice: true });
    step("a typo");
    result.typo = await formulaOdds(player, rollForm, "3d");
    step("exploding dice");
    result.exploding = await formulaOdds(player, rollForm, "1d6x");
    step("an attack on Rook");
    await player.selectOption("#action-select", "attack");
    const attack = player.locator('form.action-form[data-action="attack"]');
    await fillAttack(attack);
    await attack.locator('input[name="target"][value="rook"]').check();
    result.attack = await tapOdds(player, attack, { keyboard: true });
    step("an attack on the NPC");
    await attack.locator('input[name="target"][value="guard-a"]').check();
    result.npc = await tapOdds(player, attack);
    // nothing was rolled: the log holds the actors' creation only
    result.rolls = await player.locator("#log li.kind-roll, #log li.kind-resolution").count();
    result.announced = await player.$$eval("#announce > *", (lines) => lines.map((line) => line.textContent));

    step("a Russian phone at the wilddie table");
    const wild = await joinedPage(browser, "wild", { ...PHONE, deviceScaleFactor: 3, locale: "ru-RU" }, trouble,
      `${BASE}/tables/wild`, TOKENS.wild.player, { tap: true });
    await wild.selectOption("#action-select", "trait");
    const trait = wild.locator('form.action-form[data-action="trait"]');
    await trait.locator('select[name="trait"]').selectOption("fighting");
    result.trait = await tapOdds(wild, trait);
    result.traitLabel = await wild.$eval("#action-select", (select) => select.selectedOptions[0].textContent);
    await roll(wild, "1d6", "still rolls");
  },

  /** A German phone at the sr2 table asks the odds of 999d6kh1: a 1 is 6^-999, less
   * than a float holds (the reply's float 0.0, its log10 -777.37), and a 6 is
   * 1 - (5/6)^999, whose float is 1.0; then of 12d6, whose 12 (6^-12) is a float too
   * small for the percentage's digits. */
  async tiny(browser, result) {
    step("a German phone at the sr2 table");
    const { page: player, rollForm } = await sr2Player(browser, { ...SMALL_PHONE, locale: "de-DE" });
    result.formula = await formulaOdds(player, rollForm, "999d6kh1");
    result.twelve = await formulaOdds(player, rollForm, "12d6");
  },
};

await runCase(cases, trouble);
