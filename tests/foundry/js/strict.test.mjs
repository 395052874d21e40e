// The stricter stand-in (issue 15, item 8): what Foundry refuses, the stand-in
// refuses too — a world setting written by a player, a chat message with an
// unevaluated roll — while what Foundry accepts still works.

import assert from "node:assert/strict";
import { test } from "node:test";

import { registerModuleSettings, world } from "./standin.mjs";

test("a player may not write a world setting; the GM may, and a client setting is anyone's", async () => {
  await world({ user: "player" });
  await registerModuleSettings();
  await assert.rejects(game.settings.set("rollbridge", "serverDice", true), /lacks permission/);
  assert.equal(game.settings.get("rollbridge", "serverDice"), false);
  await world({ user: "gm" });
  await registerModuleSettings();
  await game.settings.set("rollbridge", "serverDice", true);
  assert.equal(game.settings.get("rollbridge", "serverDice"), true);
});

test("a chat message's rolls must be evaluated", async () => {
  await world({ user: "gm" });
  await assert.rejects(ChatMessage.create({ content: "x", rolls: [new Roll("1d6")] }), /evaluated/);
  const done = Roll.fromData({ formula: "1d6", total: 4, evaluated: true,
    terms: [{ class: "Die", number: 1, faces: 6, results: [{ result: 4, active: true }] }] });
  const message = await ChatMessage.create({ content: "y", rolls: [done] });
  assert.equal(message.rolls[0].total, 4);
});

test("the user scope is v13's: registering it on v12 throws, on v13 it works", async () => {
  await world({ generation: 12 });
  assert.throws(() => game.settings.register("rollbridge", "x", { scope: "user", config: false, type: String, default: "" }), /v13 only/);
  await world({ generation: 13 });
  game.settings.register("rollbridge", "x", { scope: "user", config: false, type: String, default: "" });
});
