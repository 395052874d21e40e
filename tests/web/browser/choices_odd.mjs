// Odd sheet values in a parameter's choices from the sheet (`choicesFrom`), in
// headless Chromium against a real rollbridge server (started by
// tests/web/test_web_sheet_choices_odd.py):
// - a player's second character whose weapons have a name with HTML in it, an RTL
//   name, an 80-character name and a name with spaces around it: on a 390 px phone
//   the list shows them as text, fits the screen, and the one with spaces, picked,
//   is sent as the sheet spells it (sr2 finds a weapon by its exact name);
// - the GM acting as an NPC, a weapon of the NPC's chosen: another actor added
//   (the forms are rebuilt) keeps the NPC and its weapon chosen, with the NPC's list.
// Prints one line `RESULT {json}`; the Python test judges it.
//
// Environment: RB_BASE (http://127.0.0.1:PORT), RB_TOKENS (JSON: table → role →
// token; never printed), RB_CHROMIUM.

import process from "node:process";

import { DESKTOP, PHONE, addActor, joinedPage, launch, replyTo, submitAction } from "./pages.mjs";

const env = process.env;
const BASE = env.RB_BASE;
const TOKENS = JSON.parse(env.RB_TOKENS);
const trouble = { errors: [], dialogs: [] };

const HTML = "<img src=x onerror=window.rbInjected=1>";
const RTL = "רובה ציד ארוך";
const LONG = "Ares Predator II heavy pistol with a smartgun link and a long barrel".padEnd(80, "!");
const SPACED = " Hackler ";

/** A second character of the player's, with odd weapon names. */
const ODD = {
  id: "odd",
  name: "Odd",
  controllers: ["player"],
  sheet: { body: 4, combat_pool: 2, armor: { ballistic: 2, impact: 1 },
    weapons: [{ name: HTML, code: "6S" }, { name: RTL, code: "5M" }, { name: LONG, code: "4L" },
      { name: SPACED, code: "7M", skill: 4 }] },
};
/** An NPC the GM acts as. */
const GANGER = {
  id: "ganger",
  name: "Ganger",
  controllers: [],
  sheet: { body: 4, combat_pool: 2, armor: { ballistic: 2, impact: 1 },
    weapons: [{ name: "Knife", code: "3L" }, { name: "Uzi", code: "6M" }] },
};

const optionsOf = (form, name) => form.locator(`select[name="${name}"] option`)
  .evaluateAll((options) => options.map((option) => [option.value, option.textContent]));

const browser = await launch(env.RB_CHROMIUM);
const result = { names: { HTML, RTL, LONG, SPACED } };
try {
  const gm = await joinedPage(browser, "gm", { ...DESKTOP, locale: "en-US" }, trouble, `${BASE}/tables/web`, TOKENS.web.gm);
  const player = await joinedPage(browser, "player", { ...PHONE, locale: "en-US" }, trouble, `${BASE}/tables/web`,
    TOKENS.web.player, { tap: true });
  result.added = [(await addActor(gm, "web", TOKENS.web.gm, ODD)).type, (await addActor(gm, "web", TOKENS.web.gm, GANGER)).type];
  await player.getByText("Ganger").first().waitFor();
  await gm.getByText("Ganger").first().waitFor();

  // the player, on a phone, acts as Odd
  await player.selectOption("#action-select", "attack");
  const form = player.locator('form.action-form[data-action="attack"]');
  await form.locator('select[name="actor"]').selectOption("odd");
  const weapon = form.locator('select[name="weapon"]');
  const box = await weapon.boundingBox();
  result.player = {
    weapons: await optionsOf(form, "weapon"),
    injected: await player.evaluate(() => Boolean(window.rbInjected) || document.querySelectorAll("#action img").length),
    box,
    width: await player.evaluate(() => document.documentElement.scrollWidth),
  };
  await form.locator('input[name="target"][value="rook"]').check();
  await weapon.selectOption(SPACED);
  const done = await submitAction(player);
  result.player.sent = done.sent;
  result.player.reply = replyTo(player, done.sent.id);

  // the GM acts as the NPC and picks its Uzi; an actor added rebuilds the forms
  await gm.selectOption("#action-select", "attack");
  const gmForm = gm.locator('form.action-form[data-action="attack"]');
  await gmForm.locator('select[name="actor"]').selectOption("ganger");
  await gmForm.locator('select[name="weapon"]').selectOption("Uzi");
  await gmForm.evaluate((node) => { node.dataset.before = "yes"; });
  result.added.push((await addActor(gm, "web", TOKENS.web.gm,
    { id: "late", name: "Late", controllers: [], sheet: { body: 3 } })).type);
  await gm.getByText("Late").first().waitFor();
  await gm.locator('form.action-form[data-action="attack"]:not([data-before])').waitFor();
  result.gm = {
    actor: await gmForm.locator('select[name="actor"]').inputValue(),
    weapons: await optionsOf(gmForm, "weapon"),
    weapon: await gmForm.locator('select[name="weapon"]').inputValue(),
  };
} finally {
  result.trouble = trouble;
  await browser.close();
}
process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
