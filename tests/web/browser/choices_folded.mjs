// A parameter whose choices are on the acting actor's sheet or state
// (`choicesFrom`) that the action neither needs nor fills in by its example —
// techlevel's `don.name` and `mount.name` (the example gives a new item or
// vehicle) — in headless Chromium on a 390 px phone, with the page's own
// forms.mjs: the list of the actor's own is on the form, not folded away under
// "more parameters", and the carried Chainmail, picked, is what is sent.
// Prints one line `RESULT {json}`; the Python test judges it.
//
// Environment: RB_BASE, RB_TOKENS (JSON: table → role → token; never printed),
// RB_CHROMIUM, RB_SPECS (JSON: techlevel's don and mount as its welcome describes them).

import process from "node:process";

import { PHONE, joinedPage, launch } from "./pages.mjs";

const env = process.env;
const TOKENS = JSON.parse(env.RB_TOKENS);
const trouble = { errors: [], dialogs: [] };
const browser = await launch(env.RB_CHROMIUM);
const result = {};
try {
  const player = await joinedPage(browser, "player", { ...PHONE, locale: "en-US" }, trouble,
    `${env.RB_BASE}/tables/web`, TOKENS.web.player, { tap: true });
  result.forms = await player.evaluate(async (specs) => {
    const { actionForm } = await import("/static/web/forms.mjs");
    const ana = { id: "ana", name: "Ana", controllers: ["player"], sheet: {},
      state: { carried: [{ name: "Chainmail" }], stable: [{ name: "Jeep" }] } };
    const session = { role: "player", actors: new Map([[ana.id, ana]]), controllable: () => [ana] };
    window.rbSent = [];
    const out = {};
    for (const [name, spec] of Object.entries(specs)) {
      const form = actionForm(session, name, spec, (message) => window.rbSent.push(message));
      form.id = `tl-${name}`;
      document.querySelector("#action").append(form);
      const list = form.querySelector('select[name="name"]');
      out[name] = { options: [...list.options].map((o) => o.value), folded: Boolean(list.closest("details")) };
    }
    return out;
  }, JSON.parse(env.RB_SPECS));
  const don = player.locator("#tl-don");
  result.visible = await don.locator('select[name="name"]').isVisible();
  if (result.visible) {
    await don.locator('select[name="name"]').selectOption("Chainmail");
    await don.locator('button[type="submit"]').click();
  }
  result.sent = await player.evaluate(() => window.rbSent.map((message) => message.params));
} finally {
  result.trouble = trouble;
  await browser.close();
}
process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
