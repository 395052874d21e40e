// Dice So Nice (issue 15, item 2): a public card's message is created with its
// rolls (no separate showForRoll), Dice So Nice animates those very results in
// the order the Rolls hold them, and the card of an event replayed after a
// reconnect is not animated again. The whole module is loaded as Foundry
// loads it (its esmodules entry, then init and ready) on the stand-in, with
// the stand-in of Dice So Nice's chat-message path (v6: its PreProcess hook).

import assert from "node:assert/strict";
import { after, test } from "node:test";

import { FakeWebSocket } from "./fakes.mjs";
import { Standin, world } from "./standin.mjs";

await world({ generation: 13, system: "shadowrun5e" });
Standin.installDiceSoNice({ version: 6 });
await import("../../../adapters/foundry/module/scripts/rollbridge.mjs");
await Standin.boot();
const api = game.modules.get("rollbridge").api;
after(() => {
  api.disconnect();
  Standin.uninstall();
});

const until = async (predicate, what, ms = 5000) => {
  const start = Date.now();
  while (!predicate()) {
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

function welcome(ws, extra = {}) {
  ws.open();
  const hello = ws.messages().find((m) => m.type === "hello");
  ws.receive({ type: "welcome", id: hello.id, protocol: 1, role: "gm", epoch: 1, seq: 0, locale: "en", table: { id: "t1", actors: [] }, ...extra });
  return hello;
}

// 3d6!! rolling 6+6+3, 2, 5: the Die term's results as the adapter emits them, in
// Foundry's order (adapters/foundry/dice_out.py; its order is checked in Python)
const RESULTS = [6, 2, 5, 6, 3];
function rollEvent(seq) {
  const results = RESULTS.map((result, i) => ({ result, active: true, ...(i === 0 || i === 3 ? { exploded: true } : {}) }));
  return {
    type: "event", table: "t1", epoch: 1, seq, kind: "roll", request: `r${seq}`,
    data: { formula: "3d6!!", total: 22, roll: { groups: [{ formula: "3d6!!", total: 22, dice: [{ faces: 6, rolls: [6, 6, 3], value: 15 }, { faces: 6, rolls: [2], value: 2 }, { faces: 6, rolls: [5], value: 5 }] }] } },
    actors: [],
    foundry: { speaker: null, rolls: [{ class: "Roll", formula: "3d6x", options: {}, dice: [], total: 22, evaluated: true, terms: [{ class: "Die", number: 3, faces: 6, modifiers: ["x"], options: {}, evaluated: true, results }] }] },
  };
}
const messageOf = (seq) => Standin.log.messages.find((m) => m.flags.rollbridge?.seq === seq);

test("a public card carries its rolls; Dice So Nice animates them, once, in their order", async () => {
  await until(() => FakeWebSocket.last(), "the connection");
  welcome(FakeWebSocket.last());
  await until(() => api.status().status === "connected", "connected");
  FakeWebSocket.last().receive(rollEvent(1));
  await until(() => messageOf(1), "the card");
  const message = messageOf(1);
  assert.equal(message.rolls.length, 1);
  assert.equal(message.rolls[0].total, 22);
  assert.equal(message.flags.rollbridge.replayed, false);
  const shown = Standin.log.dice3d.filter((d) => d.message === message.id);
  assert.equal(shown.length, 1);
  assert.equal(shown[0].animated, true);
  assert.deepEqual(shown[0].rolls[0].results, RESULTS);
  assert.deepEqual(Standin.log.showForRoll, [], "no separate showForRoll");
});

test("after a reconnect, a missed event's card is posted but not animated; a live one is", async () => {
  const first = FakeWebSocket.last();
  first.drop(1006);
  await until(() => FakeWebSocket.last() !== first, "the reconnect", 8000);
  const hello = welcome(FakeWebSocket.last(), { seq: 2, resume: { recovered: true, missed: 1 } });
  assert.deepEqual(hello.resume, { epoch: 1, seq: 1 });
  FakeWebSocket.last().receive(rollEvent(2)); // the missed one: the welcome's seq covers it
  FakeWebSocket.last().receive(rollEvent(3)); // new
  await until(() => messageOf(3), "the live card");
  const replayed = messageOf(2);
  assert.equal(replayed.flags.rollbridge.replayed, true);
  assert.equal(messageOf(3).flags.rollbridge.replayed, false);
  const animated = (m) => Standin.log.dice3d.filter((d) => d.message === m.id).map((d) => d.animated);
  assert.deepEqual(animated(replayed), [false]);
  assert.deepEqual(animated(messageOf(3)), [true]);
  assert.deepEqual(Standin.log.compatibility, [], "the v6 decision is made in PreProcess, nothing written later");
});

test("before v6 (the Processed hook only) the same handler turns a replayed card's animation off", async () => {
  const { skipReplayedDice } = await import("../../../adapters/foundry/module/scripts/foundry/chat.mjs");
  const replayed = { willTrigger3DRoll: true };
  skipReplayedDice(messageOf(2).id, replayed);
  assert.equal(replayed.willTrigger3DRoll, false);
  const live = { willTrigger3DRoll: true };
  skipReplayedDice(messageOf(3).id, live);
  assert.equal(live.willTrigger3DRoll, true);
});
