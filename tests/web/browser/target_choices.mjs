// A parameter whose choices are on the action's target (`choicesFrom` with
// `"of": "target"`): techlevel's hit `section`, the sections of the vehicle the
// target rides, in headless Chromium against a real rollbridge server (started by
// tests/web/test_web_target_choices.py). The player, on a phone, picks the target
// and then the section of its vehicle, from the NPC as the player's view holds it;
// the list follows the target chosen, and the vehicle the GM has an NPC mount
// meanwhile; the GM's list is the same from the whole NPC; a limited target whose
// view holds no vehicle (a ruleset that hides it) offers nothing.
// Prints one line `RESULT {json}`; the Python test judges it.
//
// Environment: RB_BASE, RB_TOKENS (JSON: table → role → token; never printed),
// RB_CHROMIUM, RB_SPEC (JSON: techlevel's hit as its welcome describes it).

import process from "node:process";

import { DESKTOP, PHONE, gmRequest, joinedPage, launch, replyTo, submitAction } from "./pages.mjs";

const env = process.env;
const TOKENS = JSON.parse(env.RB_TOKENS);
const trouble = { errors: [], dialogs: [] };

/** The options of a form's select `name`: [value, text] each. */
const optionsOf = (form, name) => form.locator(`select[name="${name}"] option`)
  .evaluateAll((options) => options.map((option) => [option.value, option.textContent]));

const browser = await launch(env.RB_CHROMIUM);
const result = {};
try {
  const url = `${env.RB_BASE}/tables/tech`;
  const gm = await joinedPage(browser, "gm", { ...DESKTOP, locale: "en-US" }, trouble, url, TOKENS.tech.gm);
  const player = await joinedPage(browser, "player", { ...PHONE, locale: "en-US" }, trouble, url,
    TOKENS.tech.player, { tap: true });

  // the player: no target yet, then the raider, then the walker (on foot)
  await player.selectOption("#action-select", "hit");
  const form = player.locator('form.action-form[data-action="hit"]');
  const section = form.locator('select[name="section"]');
  result.player = { none: await optionsOf(form, "section"), folded: await section.evaluate((s) => Boolean(s.closest("details"))) };
  await form.locator('input[name="target"][value="raider"]').check();
  result.player.raider = await optionsOf(form, "section");
  const box = await section.boundingBox();
  result.player.fits = box !== null && box.x >= 0 && box.x + box.width <= 390;
  await form.locator('input[name="target"][value="walker"]').check();
  result.player.walker = await optionsOf(form, "section");
  // the raider's bed, struck
  await form.locator('input[name="target"][value="raider"]').check();
  await section.selectOption("bed");
  const done = await submitAction(player);
  result.player.sent = done.sent;
  result.player.reply = replyTo(player, done.sent.id);

  // the walker chosen, the GM has the walker mount a bike: the player's list follows
  await form.locator('input[name="target"][value="walker"]').check();
  const mounted = await gmRequest(gm, "tech", TOKENS.tech.gm, {
    type: "resolve", id: "walker-mounts", action: "mount", actor: "walker",
    params: { vehicle: { name: "Secret bike", tl: 2, sections: [{ name: "frame" }, { name: "sidecar" }] } },
  });
  result.mounted = mounted.status ?? mounted.type;
  await player.waitForFunction(() => [...document.querySelectorAll('form[data-action="hit"] select[name="section"] option')]
    .some((option) => option.value === "frame"));
  result.player.mounted = {
    checked: await form.locator('input[name="target"]:checked').getAttribute("value"),
    options: await optionsOf(form, "section"),
  };

  // the GM's list, from the whole raider
  await gm.selectOption("#action-select", "hit");
  const gmForm = gm.locator('form.action-form[data-action="hit"]');
  await gmForm.locator('input[name="target"][value="raider"]').check();
  result.gm = { raider: await optionsOf(gmForm, "section") };

  // a target the player's view holds limited without its vehicle (as a ruleset whose
  // players' view hides it would send it): the page's own forms.mjs offers nothing
  result.hidden = await player.evaluate(async (spec) => {
    const { actionForm } = await import("/static/web/forms.mjs");
    const ana = { id: "ana", name: "Ana", controllers: ["player"], sheet: {}, state: {} };
    const npc = { id: "npc", name: "NPC", controllers: [], limited: true, sheet: null, state: null };
    const session = { role: "player", actors: new Map([[ana.id, ana], [npc.id, npc]]), controllable: () => [ana] };
    const made = actionForm(session, "hit", spec, () => {});
    made.id = "hidden-form";
    document.querySelector("#action").append(made);
    made.querySelector('input[name="target"][value="npc"]').click();
    return [...made.querySelectorAll('select[name="section"] option')].map((o) => o.value);
  }, JSON.parse(env.RB_SPEC));

  // what the player's page received over its WebSocket, and what it shows
  result.wire = {
    frames: player.gate.frames,
    text: await player.evaluate(() => document.documentElement.outerHTML),
  };
} finally {
  result.trouble = trouble;
  await browser.close();
}
process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
