import assert from "node:assert/strict";
import { test } from "node:test";

import {
  decodeFrame,
  encodeFrame,
  errorFromReply,
  helloMessage,
  newRequestId,
  parseChatCommand,
  resolveMessage,
  rollMessage,
} from "../../../adapters/foundry/module/scripts/core/protocol.mjs";

test("request ids are fresh and never repeat", () => {
  const ids = new Set(Array.from({ length: 1000 }, () => newRequestId()));
  assert.equal(ids.size, 1000);
  for (const id of ids) assert.ok(id.length <= 64, id);
});

test("hello names the dialect, asks for brief results, and resumes only with a cursor", () => {
  const fresh = helloMessage({ id: "h", table: "t", token: "rbt_x" });
  assert.deepEqual(fresh, {
    type: "hello", id: "h", table: "t", token: "rbt_x", dialect: "foundry", results: "brief",
  });
  const resumed = helloMessage({ id: "h", table: "t", token: "k", cursor: { epoch: 2, seq: 41 } });
  assert.deepEqual(resumed.resume, { epoch: 2, seq: 41 });
});

test("frames are JSON objects", () => {
  assert.deepEqual(decodeFrame(encodeFrame({ type: "pong", id: 1 })), { type: "pong", id: 1 });
  assert.throws(() => decodeFrame("[1]"), /object/);
  assert.throws(() => decodeFrame(new Uint8Array([0x80])), /JSON text frame/);
});

test("a roll message carries an unevaluated Roll for the server to roll", () => {
  const message = rollMessage({ id: "r", formula: "2d6+1", speaker: { actor: "A1" }, flavor: "Dodge", rollMode: "roll" });
  assert.deepEqual(message, {
    type: "foundry.roll",
    id: "r",
    roll: { class: "Roll", formula: "2d6+1", terms: [], evaluated: false },
    speaker: { actor: "A1" },
    flavor: "Dodge",
    rollMode: "publicroll",
  });
  assert.throws(() => rollMessage({ id: "r", formula: "1d6", rollMode: "loud" }), /roll mode/);
});

test("a resolve message defaults its targets and params", () => {
  const message = resolveMessage({ id: "a", action: "attack", actor: "tukan" });
  assert.deepEqual(message, { type: "foundry.resolve", id: "a", action: "attack", targets: [], params: {}, actor: "tukan" });
});

test("error replies become errors with the protocol's code", () => {
  const error = errorFromReply({ type: "error", id: 1, code: "forbidden", message: "no" });
  assert.equal(error.code, "forbidden");
  assert.equal(error.message, "no");
});

test("chat commands", () => {
  assert.equal(parseChatCommand("hello there"), null);
  assert.deepEqual(parseChatCommand("/rb"), { kind: "help" });
  assert.deepEqual(parseChatCommand("/rb status"), { kind: "status" });
  assert.deepEqual(parseChatCommand("/rb 2d6+1"), { kind: "roll", formula: "2d6+1", label: "" });
  assert.deepEqual(parseChatCommand("/rollbridge 3d6!! # Body"), { kind: "roll", formula: "3d6!!", label: "Body" });
  assert.deepEqual(parseChatCommand('/rb do attack guard-a {"weapon": "Hackler", "rounds": 3}'), {
    kind: "resolve", action: "attack", targets: ["guard-a"], params: { weapon: "Hackler", rounds: 3 },
  });
  // without {params}: the action's dialog (which sends an action without parameters at once)
  assert.deepEqual(parseChatCommand("/rb do new_turn"), { kind: "dialog", action: "new_turn", targets: [] });
  assert.deepEqual(parseChatCommand("/rb do new_turn {}"), { kind: "resolve", action: "new_turn", targets: [], params: {} });
  assert.equal(parseChatCommand("/rb do attack {oops").kind, "error");
  assert.equal(parseChatCommand("/rb # only a label").kind, "error");
});
