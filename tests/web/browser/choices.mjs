// A parameter whose choices are on the acting actor's sheet (`choicesFrom`), in
// headless Chromium against a real rollbridge server (started by
// tests/web/test_web_sheet_choices.py): the sr2 player picks Tukan's weapon from a
// list on a phone and attacks with it; the GM's list follows the actor the GM acts
// as, an NPC's weapons included; the player's page never receives that NPC's weapons.
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

/** An NPC the GM adds: a weapon no player may learn of from the web view. */
const GANGER = {
  id: "ganger",
  name: "Ganger",
  controllers: [],
  sheet: { body: 4, combat_pool: 2, armor: { ballistic: 2, impact: 1 },
    weapons: [{ name: "Secret Predator", code: "9M", skill: 5 }] },
};

/** The options of a form's select `name`: [value, text] each. */
const optionsOf = (form, name) => form.locator(`select[name="${name}"] option`)
  .evaluateAll((options) => options.map((option) => [option.value, option.textContent]));

const browser = await launch(env.RB_CHROMIUM);
const result = {};
try {
  const gm = await joinedPage(browser, "gm", { ...DESKTOP, locale: "en-US" }, trouble, `${BASE}/tables/web`, TOKENS.web.gm);
  const player = await joinedPage(browser, "player", { ...PHONE, locale: "en-US" }, trouble, `${BASE}/tables/web`,
    TOKENS.web.player, { tap: true });
  result.added = (await addActor(gm, "web", TOKENS.web.gm, GANGER)).type;
  await player.getByText("Ganger").first().waitFor();
  await gm.getByText("Ganger").first().waitFor();

  // the player, on a phone, attacks Rook with a weapon picked from Tukan's
  await player.selectOption("#action-select", "attack");
  const form = player.locator('form.action-form[data-action="attack"]');
  const weapon = form.locator('select[name="weapon"]');
  const box = await weapon.boundingBox();
  result.player = {
    actors: await optionsOf(form, "actor"),
    weapons: await optionsOf(form, "weapon"),
    chosen: await weapon.inputValue(),
    typed: await form.locator('[name="weapon.other"]').count(),
    box,
    width: await player.evaluate(() => document.documentElement.scrollWidth),
  };
  await form.locator('input[name="target"][value="rook"]').check();
  await weapon.selectOption("Stun baton");
  const done = await submitAction(player);
  result.player.sent = done.sent;
  result.player.status = done.status;
  result.player.reply = replyTo(player, done.sent.id);

  // the GM: the list follows the actor chosen — the first (Tukan), the NPC, Rook
  // (whose sheet has no weapon)
  await gm.selectOption("#action-select", "attack");
  const gmForm = gm.locator('form.action-form[data-action="attack"]');
  result.gm = { first: [await gmForm.locator('select[name="actor"]').inputValue(), await optionsOf(gmForm, "weapon")] };
  await gmForm.locator('select[name="actor"]').selectOption("ganger");
  result.gm.ganger = await optionsOf(gmForm, "weapon");
  await gmForm.locator('select[name="actor"]').selectOption("rook");
  result.gm.rook = await optionsOf(gmForm, "weapon");

  // what the player's page received over its WebSocket, and what it shows
  result.wire = {
    frames: player.gate.frames,
    text: await player.evaluate(() => document.documentElement.outerHTML),
  };

  // a parameter that takes other values too (no `only`; the built-in rulesets take
  // none), on the phone: the page's own forms.mjs builds the form of a made-up
  // action for a session where the player plays Ana and sees an NPC limited
  result.free = await player.evaluate(async () => {
    const { actionForm } = await import("/static/web/forms.mjs");
    const ana = { id: "ana", name: "Ana", sheet: { moves: ["go aggro", "read a person"] }, state: {} };
    const npc = { id: "npc", name: "NPC", sheet: { moves: ["hidden move"] }, state: {}, limited: true };
    const session = { role: "player", actors: new Map([[ana.id, ana], [npc.id, npc]]), controllable: () => [ana] };
    const move = { type: "string", maxLength: 80, choicesFrom: { sheet: "moves" } };
    const spec = { label: "Move", actor: "required", params: { type: "object", properties: { move } },
      example: { move: "act under fire" } };
    window.rbSent = [];
    const form = actionForm(session, "move", spec, (message) => window.rbSent.push(message));
    form.id = "free-form";
    document.querySelector("#action").append(form);
    return [...form.querySelectorAll('select[name="actor"] option')].map((o) => o.value);
  });
  const free = player.locator("#free-form");
  result.free = { actors: result.free, moves: await optionsOf(free, "move"),
    typedHidden: await free.locator('input[name="move.other"]').isHidden() };
  await free.locator('select[name="move"]').selectOption("read a person");
  await free.locator('button[type="submit"]').click();
  await free.locator('select[name="move"]').selectOption({ label: "another value…" });
  const typed = free.locator('input[name="move.other"]');
  result.free.typedVisible = await typed.isVisible();
  result.free.placeholder = await typed.getAttribute("placeholder");
  await typed.fill("act under fire");
  const typedBox = await typed.boundingBox();
  result.free.typedFits = typedBox !== null && typedBox.x >= 0 && typedBox.x + typedBox.width <= 390;
  await free.locator('button[type="submit"]').click();
  result.free.sent = await player.evaluate(() => window.rbSent.map((message) => message.params));
} finally {
  result.trouble = trouble;
  await browser.close();
}
process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
