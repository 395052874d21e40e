// The GM's Foundry client after a reload: the writer resumes from its saved
// cursor and the server recovers the missed events (no snapshot). Its welcome
// still says what undo and redo take (`undo_redo`): the tracker should start
// from it, and the card's Undo name its event (docs/foundry.md).

import assert from "node:assert/strict";
import { after, test } from "node:test";

import { press } from "../../../adapters/foundry/module/scripts/foundry/buttons.mjs";
import { FoundryClient } from "../../../adapters/foundry/module/scripts/foundry/client.mjs";
import { FakeWebSocket } from "./fakes.mjs";
import { registerModuleSettings, settle, Standin, world } from "./standin.mjs";

const USERS = [{ _id: "standinGM000001", name: "Gamemaster", isGM: true }, { _id: "standinPlr00001", name: "Player" }];
let client = null;
after(() => {
  client?.stop();
  Standin.uninstall();
});

test("a GM resumed from its saved cursor (recovered) follows the welcome's undo_redo", async () => {
  await world({ users: USERS, user: "gm", generation: 13 });
  await registerModuleSettings();
  await game.settings.set("rollbridge", "cursor", { table: "t1", epoch: 1, seq: 4 });
  client = new FoundryClient();
  client.start();
  const ws = FakeWebSocket.last();
  ws.open();
  const hello = ws.messages().find((m) => m.type === "hello");
  assert.deepEqual(hello.resume, { epoch: 1, seq: 4 });
  ws.receive({
    type: "welcome", id: hello.id, protocol: 1, role: "gm", epoch: 1, seq: 5, locale: "en",
    resume: { recovered: true, missed: 1 },
    table: { id: "t1", actors: [], undo_redo: { seq: 5, undo: [2, 5], redo: [], retain: 1000, depth: 100 } },
  });
  // the missed event: the welcome's stacks hold it already
  ws.receive({ type: "event", table: "t1", epoch: 1, seq: 5, kind: "adjusted", data: { actor: "g" }, actors: [{ id: "g" }] });
  await settle(client);
  assert.ok(client.undo.named, "the server said what undo takes: the module names the card's event");
  assert.deepEqual(client.undo.undo, [2, 5]);
  // a card of #5, pressed: the request names it
  const count = ws.messages().length;
  const pressed = press("undo", { table: "t1", epoch: 1, kind: "adjusted", seq: 5 }, client);
  for (let i = 0; i < 50 && ws.messages().length === count; i++) await new Promise((r) => setImmediate(r));
  const sent = ws.messages().at(-1);
  ws.receive({ type: "error", id: sent.id, code: "nothing_to_undo", message: "-" });
  await pressed.catch(() => null);
  assert.deepEqual({ type: sent.type, seq: sent.seq }, { type: "undo", seq: 5 });
});
