// The action forms as a player fills them in, in headless Chromium against a real
// rollbridge server (started by tests/web/test_web_forms.py): what an action's
// example puts in a form, and a parameter that is a list (situational modifiers).
// Prints one line `RESULT {json}`; the Python test judges it.
//
// Environment: RB_BASE (http://127.0.0.1:PORT), RB_TOKENS (JSON: table → role →
// token; never printed), RB_CHROMIUM.

import process from "node:process";

import { DESKTOP, PHONE, joinedPage, launch, replyTo, submitAction as submit } from "./pages.mjs";

const env = process.env;
const BASE = env.RB_BASE;
const TOKENS = JSON.parse(env.RB_TOKENS);
const trouble = { errors: [], dialogs: [] };
const EN_PHONE = { ...PHONE, locale: "en-US" };

/** The named controls of the page's action form: value and placeholder. */
const controlsOf = (page) => page.$$eval("#action form [name]", (nodes) => Object.fromEntries(nodes
  .filter((node) => node.type !== "radio" && node.type !== "submit")
  .map((node) => [node.name, { value: node.type === "checkbox" ? node.checked : node.value,
    placeholder: node.placeholder ?? "" }])));

const browser = await launch(env.RB_CHROMIUM);
const result = {};
try {
  const sr2 = await joinedPage(browser, "sr2", EN_PHONE, trouble, `${BASE}/tables/web`, TOKENS.web.player, { tap: true });
  // sr2: the player plays Tukan alone: the dice form rolls for Tukan unless told
  // otherwise; the GM's rolls for nobody
  await sr2.locator('form.roll-form input[name="formula"]').fill("2d6");
  result.roll = { chosen: await sr2.$eval('form.roll-form select[name="actor"]', (s) => s.value) };
  await sr2.locator('form.roll-form button[type="submit"]').click();
  await sr2.waitForSelector("form.roll-form .form-status:not(:empty)");
  result.roll.sent = sr2.gate.sent.map((f) => JSON.parse(f)).filter((m) => m.type === "roll").at(-1);
  const gm = await joinedPage(browser, "gm", { ...DESKTOP, locale: "en-US" }, trouble, `${BASE}/tables/web`, TOKENS.web.gm);
  result.roll.gmChosen = await gm.$eval('form.roll-form select[name="actor"]', (s) => s.value);

  // sr2: Tukan's attack as it stands when chosen, then with the weapon chosen
  await sr2.selectOption("#action-select", "attack");
  result.attack = { controls: await controlsOf(sr2) };
  const attack = sr2.locator('form.action-form[data-action="attack"]');
  await attack.locator('input[name="target"][value="rook"]').check();
  await attack.locator('select[name="weapon"]').selectOption("Hackler");
  const done = await submit(sr2);
  result.attack.sent = done.sent;
  result.attack.reply = replyTo(sr2, done.sent.id);

  // an attack waiting for the GM's approval: what the GM's list says of it
  const asking = await joinedPage(browser, "asking", EN_PHONE, trouble, `${BASE}/tables/approval`, TOKENS.approval.player);
  const approver = await joinedPage(browser, "approver", { ...DESKTOP, locale: "en-US" }, trouble,
    `${BASE}/tables/approval`, TOKENS.approval.gm);
  await asking.selectOption("#action-select", "attack");
  const asked = asking.locator('form.action-form[data-action="attack"]');
  await asked.locator('input[name="target"][value="guard-a"]').check();
  await asked.locator('select[name="weapon"]').selectOption("Hackler");
  await asked.locator('button[type="submit"]').click();
  await approver.waitForSelector("#pending li.pending-item");
  result.pending = { gm: await approver.textContent("#pending li.pending-item span"),
    log: await approver.textContent("#log li.kind-approval-requested .summary").catch(() => null) };

  // wilddie: Ana's trait test as it stands, with modifiers as JSON, with a typo
  const wild = await joinedPage(browser, "wild", EN_PHONE, trouble, `${BASE}/tables/wild`, TOKENS.wild.player, { tap: true });
  await wild.selectOption("#action-select", "trait");
  result.trait = { controls: await controlsOf(wild) };
  const plain = await submit(wild);
  result.trait.plain = { ...plain, reply: replyTo(wild, plain.sent.id) };
  await wild.fill('#action input[name="modifiers"]', '[{"value": -1, "note": "rain"}]');
  const modified = await submit(wild);
  result.trait.modified = { ...modified, reply: replyTo(wild, modified.sent.id) };
  await wild.fill('#action input[name="modifiers"]', "-1 rain");
  result.trait.typo = await submit(wild);
} finally {
  result.trouble = trouble;
  await browser.close();
}
process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
