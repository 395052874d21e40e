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

test("Hooks.on returns the hook's id, as Foundry's, not the function; off takes either; the combat tracker's unregister leaves no hook", async () => {
  await world({ user: "gm" });
  const seen = [];
  const id = Hooks.on("updateCombat", () => seen.push("id"));
  const fn = () => seen.push("fn");
  assert.equal(typeof id, "number");
  assert.equal(typeof Hooks.once("updateCombat", fn), "number");
  Hooks.callAll("updateCombat");
  Hooks.callAll("updateCombat");
  assert.deepEqual(seen, ["id", "fn", "id"], "once runs once");
  Hooks.off("updateCombat", id);
  Hooks.callAll("updateCombat");
  assert.equal(seen.length, 3);
  const { CombatSync } = await import("../../../adapters/foundry/module/scripts/foundry/combat.mjs");
  const sync = new CombatSync(/** @type {any} */ ({ writer: false })).register();
  const names = sync.hooks.map(([name]) => name);
  assert.ok(names.every((name) => Hooks.events[name]?.length === 1), "one hook each");
  sync.unregister();
  assert.ok(names.every((name) => !Hooks.events[name]?.length), "all gone, by their ids");
});
