// api.actionDialog and `/rb do` alone (docs/foundry.md, "The action dialog"): the
// acting actor's weapons offered from its rollbridge sheet, a value out of bounds
// said in the dialog in the user's language (Czech here) with nothing sent, Enter
// submitting, Cancel resolving null, and the server's refusal shown as any `/rb do`
// refusal is.

import assert from "node:assert/strict";
import { test } from "node:test";

import { answerState, CS, joined, openDialog, result } from "./forms-world.mjs";
import { localization } from "./localization.mjs";
import { Standin, until } from "./standin.mjs";

const cs = await localization("cs");
const { api, ws, next } = await joined({ lang: "cs" });

test("api.actionDialog: Tukan's weapons offered, a value out of bounds said in Czech and nothing sent, Enter submits", async () => {
  const done = api.actionDialog("attack", { actor: "tukan", targets: ["guard"] });
  await answerState(ws, next);
  let dialog = await openDialog();
  const weapon = dialog.form.elements.find((c) => c.name === "weapon");
  assert.deepEqual(weapon.options, ["", "Hackler", "Stun baton"], "not required: empty leaves it to the server");
  assert.equal(weapon.value, "Hackler");
  assert.equal(dialog.title, CS.actions.attack.label);
  assert.ok(dialog.content.includes(cs.format("ROLLBRIDGE.Dialog.WhoOnWhom", { actor: "Tukan", targets: "Guard A" })), dialog.content);
  const before = ws.messages().length;
  await dialog.submit("submit", { rounds: "0" });
  dialog = await openDialog();
  assert.equal(ws.messages().length, before, "nothing sent");
  assert.ok(dialog.content.includes(cs.format("ROLLBRIDGE.Dialog.Problem.Below", { min: 1 })), dialog.content);
  assert.equal(dialog.form.elements.find((c) => c.name === "rounds").value, "0", "what was entered is kept");
  await dialog.enter({ rounds: "2" });
  const sent = await next();
  assert.deepEqual([sent.type, sent.action, sent.actor, sent.targets, sent.params], [
    "foundry.resolve", "attack", "tukan", ["guard"], { weapon: "Hackler", rounds: 2, range: "short" },
  ]);
  ws.receive(result(sent));
  const event = await done;
  assert.equal(event.request, sent.id);
});

test("cancelled resolves null; /rb do alone picks the action first; a refusal is shown as any /rb do refusal", async () => {
  const cancelled = api.actionDialog("attack", { actor: "tukan", targets: ["guard"] });
  await answerState(ws, next);
  const before = ws.messages().length;
  await (await openDialog()).submit("cancel");
  assert.equal(await cancelled, null);
  assert.equal(ws.messages().length, before, "nothing sent");

  Hooks.call("chatMessage", {}, "/rb do", {});
  const pick = await openDialog();
  assert.deepEqual(pick.form.elements[0].options, Object.keys(CS.actions));
  await pick.submit("submit", { action: "success_test" });
  await answerState(ws, next);
  const dialog = await until(() => Standin.log.dialogs.find((d) => d !== pick), "the action's dialog");
  assert.equal(dialog.title, CS.actions.success_test.label);
  await dialog.submit("submit", {});
  const sent = await next();
  assert.deepEqual(sent.params, { dice: 4, tn: 5 });
  Standin.log.notifications.length = 0;
  ws.receive({ type: "error", id: sent.id, code: "invalid_params", message: "Ne." });
  await until(() => Standin.log.notifications.length, "the refusal");
  assert.deepEqual(Standin.log.notifications.map((n) => [n.level, n.text]), [["error", "rollbridge: Ne."]]);
});

test("an action without parameters (sr2's new_turn) has nothing to ask: /rb do new_turn sends at once, no dialog", async () => {
  Hooks.call("chatMessage", {}, "/rb do new_turn", {});
  await answerState(ws, next);
  const sent = await next();
  assert.deepEqual([sent.type, sent.action, sent.params], ["foundry.resolve", "new_turn", {}]);
  assert.equal(Standin.log.dialogs.length, 0);
  ws.receive(result(sent));
});

test("an action the table does not have: a typed error naming it and the table's actions, nothing sent", async () => {
  const before = ws.messages().length;
  await assert.rejects(api.actionDialog("fly"), (error) => {
    assert.equal(error.code, "unknown_action");
    assert.equal(error.key, "ROLLBRIDGE.Dialog.UnknownAction");
    assert.equal(cs.format(error.key, error.data),
      `stůl nemá akci fly; jeho akce: ${Object.keys(CS.actions).join(", ")}.`);
    return true;
  });
  assert.equal(ws.messages().length, before);
  assert.equal(Standin.log.dialogs.length, 0);
});

test("a name every object inherits (constructor, toString, __proto__) is no action of the table: refused before sending", async () => {
  const before = ws.messages().length;
  for (const name of ["constructor", "toString", "__proto__"]) {
    await assert.rejects(api.actionDialog(name), (error) => {
      assert.equal(error.code, "unknown_action", name);
      return true;
    });
  }
  Standin.log.notifications.length = 0;
  Hooks.call("chatMessage", {}, "/rb do toString guard", {});
  await until(() => Standin.log.notifications.length, "the refusal");
  assert.deepEqual(Standin.log.notifications.map((n) => n.level), ["error"]);
  assert.ok(Standin.log.notifications[0].shown.includes(cs.format("ROLLBRIDGE.Dialog.UnknownAction", {
    action: "toString", actions: Object.keys(CS.actions).join(", "),
  })), Standin.log.notifications[0].shown);
  assert.equal(ws.messages().length, before, "nothing sent, not even the state request");
  assert.equal(Standin.log.dialogs.length, 0);
});

test("two dialogs open at once (a macro's two calls) share no element id: each label names its own dialog's control", async () => {
  const first = api.actionDialog("attack", { actor: "tukan", targets: ["guard"] });
  await answerState(ws, next);
  const one = await openDialog();
  const second = api.actionDialog("attack", { actor: "tukan", targets: ["guard"] });
  await answerState(ws, next);
  const two = await until(() => Standin.log.dialogs.find((d) => d !== one), "the second dialog");
  const ids = (dialog) => [...dialog.content.matchAll(/ id="([^"]+)"/g)].map(([, id]) => id);
  assert.ok(ids(one).length > 5);
  assert.deepEqual(ids(two).filter((id) => ids(one).includes(id)), []);
  await two.submit("cancel");
  await one.escape();
  assert.deepEqual([await first, await second], [null, null]);
});

test("a number the browser cannot read (1e, abc) in a field the action does not need is said in Czech, not left out", async () => {
  const done = api.actionDialog("attack", { actor: "tukan", targets: ["guard"] });
  await answerState(ws, next);
  let dialog = await openDialog();
  const before = ws.messages().length;
  // a browser's number input reads "" for these (validity.badInput): before, the
  // field was left out as if empty and the attack went with the server's default
  await dialog.submit("submit", { rounds: "1e" });
  dialog = await openDialog();
  assert.equal(ws.messages().length, before, "nothing sent");
  assert.ok(dialog.content.includes(cs.localize("ROLLBRIDGE.Dialog.Problem.NotInteger")), dialog.content);
  await dialog.submit("submit", { rounds: "3" });
  const sent = await next();
  assert.equal(sent.params.rounds, 3);
  ws.receive(result(sent));
  await done;
});
