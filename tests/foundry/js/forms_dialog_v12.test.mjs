// The action dialog on Foundry v12 (docs/foundry.md, "The action dialog"): `/rb do
// attack guard` opens DialogV2 (the stand-in, strict as its v12 declarations) and
// sends exactly the request `/rb do` with JSON sends; Escape sends nothing (v12's
// DialogV2.wait rejects on dismissal by default: the module says rejectClose false).

import assert from "node:assert/strict";
import { test } from "node:test";

import { answerState, joined, openDialog, result } from "./forms-world.mjs";
import { Standin } from "./standin.mjs";

const { ws, next } = await joined({ generation: 12 });

test("v12: /rb do attack guard — the dialog sends the request /rb do with JSON sends; Escape sends nothing", async () => {
  Hooks.call("chatMessage", {}, '/rb do attack guard {"weapon": "Stun baton", "rounds": 3, "range": "medium"}', {});
  const typed = await next();
  ws.receive(result(typed));

  assert.equal(Hooks.call("chatMessage", {}, "/rb do attack guard", {}), false);
  await answerState(ws, next);
  let dialog = await openDialog();
  assert.equal(dialog.title, "Attack");
  assert.equal(dialog.form.noValidate, true, "the browser's own check is off: ours speaks the user's language");
  assert.deepEqual(dialog.buttons.map((b) => [b.action, Boolean(b.default)]), [["submit", true], ["cancel", false]]);
  await dialog.submit("submit", { weapon: "Stun baton", rounds: "3", range: "medium" });
  const sent = await next();
  ws.receive(result(sent));
  const { id: _a, ...fromDialog } = sent;
  const { id: _b, ...fromJson } = typed;
  assert.deepEqual(fromDialog, fromJson);

  Hooks.call("chatMessage", {}, "/rb do attack guard", {});
  await answerState(ws, next);
  dialog = await openDialog();
  const before = ws.messages().length;
  dialog.escape();
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
  assert.equal(ws.messages().length, before, "nothing sent");
  assert.equal(Standin.log.dialogs.length, 0);
  assert.deepEqual(Standin.log.notifications.filter((n) => n.level === "error"), [], "a dismissal is no error");
});
