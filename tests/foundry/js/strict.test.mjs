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

// Foundry's BaseSetting (v12, v13): a world setting is written by a user with the
// permission SETTINGS_MODIFY — an assistant and a full gamemaster by default, but the
// GM's Permission Configuration (core.permissions) may grant it to players or take it
// from assistants, and a user's own permissions come first — not by "a GM"
const ROLES = [
  { _id: "standinGM000001", name: "Gamemaster", isGM: true },
  { _id: "standinAst00001", name: "Assistant", role: 3 },
  { _id: "standinPlr00001", name: "Player" },
  { _id: "standinPlr00002", name: "Trusted", role: 2, permissions: { SETTINGS_MODIFY: true } },
];
const whoMayWrite = async (permissions) => {
  const may = [];
  for (const { _id, name } of ROLES) {
    await world({ users: ROLES, user: _id, settings: permissions ? { "core.permissions": permissions } : {} });
    await registerModuleSettings();
    try {
      await game.settings.set("rollbridge", "serverDice", true);
      may.push(name);
      assert.equal(game.settings.storage.get("world").getSetting("rollbridge.serverDice")._stats.lastModifiedBy, _id, "the server's word of who wrote it");
    } catch (error) {
      assert.match(error.message, /lacks permission/);
      assert.equal(game.settings.get("rollbridge", "serverDice"), false, "nothing written");
    }
  }
  return may;
};

test("a world setting: a user with SETTINGS_MODIFY may write it, whatever their role; the server keeps who did", async () => {
  assert.deepEqual(await whoMayWrite(null), ["Gamemaster", "Assistant", "Trusted"], "by default an assistant may, a player not (unless their own permission says so)");
  assert.deepEqual(await whoMayWrite({ SETTINGS_MODIFY: [1, 2, 3, 4] }), ["Gamemaster", "Assistant", "Player", "Trusted"], "granted to players");
  assert.deepEqual(await whoMayWrite({ SETTINGS_MODIFY: [4] }), ["Gamemaster", "Trusted"], "taken from assistants");
  // a setting never written has no document; one given to the world, its first GM's
  await world({ users: ROLES, user: "standinPlr00001", settings: { "rollbridge.serverDice": true } });
  await registerModuleSettings();
  assert.equal(game.settings.storage.get("world").getSetting("rollbridge.combatTracker"), undefined);
  assert.equal(game.settings.storage.get("world").getSetting("rollbridge.serverDice")._stats.lastModifiedBy, "standinGM000001");
  assert.equal(game.settings.storage.get("world").getSetting("rollbridge.token"), undefined, "not a world setting");
});

test("a world setting is kept as JSON, and a write that changes nothing is no update: no onChange, its writer unchanged", async () => {
  await world({ users: ROLES, user: "standinGM000001" });
  const changes = [];
  game.settings.register("rollbridge", "kept", { scope: "world", config: false, type: Object, default: {}, onChange: (value) => changes.push(value) });
  await game.settings.set("rollbridge", "kept", { a: 1, gone: undefined, when: new Date(0) });
  assert.deepEqual(game.settings.get("rollbridge", "kept"), { a: 1, when: "1970-01-01T00:00:00.000Z" });
  await world({ users: ROLES, user: "standinAst00001", settings: { "rollbridge.kept": { a: 1 } } });
  game.settings.register("rollbridge", "kept", { scope: "world", config: false, type: Object, default: {}, onChange: (value) => changes.push(value) });
  await game.settings.set("rollbridge", "kept", { a: 1 });
  const doc = () => game.settings.storage.get("world").getSetting("rollbridge.kept");
  assert.equal(doc()._stats.lastModifiedBy, "standinGM000001", "the same value: no update");
  await game.settings.set("rollbridge", "kept", { a: 2 });
  assert.equal(doc()._stats.lastModifiedBy, "standinAst00001");
  assert.deepEqual(changes, [{ a: 1, when: "1970-01-01T00:00:00.000Z" }, { a: 2 }], "onChange once per change");
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

test("ChatMessage#update as declared: its author or a GM, schema fields and accepted flag scopes only; no change, no update", async () => {
  const people = await world({ user: "gm" });
  const message = await ChatMessage.create({ content: "card", flags: { rollbridge: { kind: "approval.requested", pending: "p1" } } });
  const seen = [];
  Hooks.on("updateChatMessage", (doc, changes) => seen.push([doc.id, changes]));
  await assert.rejects(message.update({ colour: "red" }), /no field "colour"/);
  await assert.rejects(message.update({ "flags.nomodule.x": 1 }), /not valid/);
  await assert.rejects(message.update({ flags: { nomodule: { x: 1 } } }), /not valid/);
  assert.equal(await message.update({ "flags.rollbridge.pending": "p1" }), undefined, "nothing changes: no update");
  assert.equal(await message.update({ "flags.rollbridge.outcome": "approved" }), message);
  assert.equal(message.getFlag("rollbridge", "outcome"), "approved");
  assert.deepEqual(seen, [[message.id, { "flags.rollbridge.outcome": "approved" }]], "updateChatMessage once");
  await message.update({ "flags.rollbridge.-=outcome": null });
  assert.equal(message.getFlag("rollbridge", "outcome"), undefined, "a -= key deletes");
  // a player may not update the GM's message
  game.user = people.player;
  await assert.rejects(message.update({ "flags.rollbridge.outcome": "rejected" }), /lacks permission/);
  game.user = people.gm;
  await message.delete();
  await assert.rejects(message.update({ "flags.rollbridge.outcome": "rejected" }), /does not exist/);
});
