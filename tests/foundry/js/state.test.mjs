import assert from "node:assert/strict";
import { test } from "node:test";

import {
  actorUpdate,
  chooseMapping,
  connectPlan,
  findActor,
  holdsUpdate,
  isActiveGM,
  rollbridgeIdOf,
  shouldPostCard,
  speakerFor,
  trackRows,
} from "../../../adapters/foundry/module/scripts/core/state.mjs";

const gm = { id: "gm1", isGM: true };
const assistant = { id: "gm2", isGM: true };
const player = { id: "p1", isGM: false };
const url = "ws://127.0.0.1:8765/tables/t";

test("only the active GM connects as the world's writer; players connect for their own rolls", () => {
  assert.deepEqual(connectPlan({ user: gm, activeGM: gm, token: "k", url }), { connect: true, writer: true, reason: null });
  assert.deepEqual(connectPlan({ user: assistant, activeGM: gm, token: "k", url }), { connect: false, writer: false, reason: "not-active-gm" });
  assert.deepEqual(connectPlan({ user: player, activeGM: gm, token: "k", url }), { connect: true, writer: false, reason: null });
  assert.deepEqual(connectPlan({ user: player, activeGM: null, token: "", url }), { connect: false, writer: false, reason: "no-token" });
  assert.deepEqual(connectPlan({ user: gm, activeGM: gm, token: "k", url: "" }), { connect: false, writer: false, reason: "no-url" });
  assert.equal(isActiveGM(player, gm), false);
  assert.equal(isActiveGM(gm, null), false);
});

test("a rollbridge actor is the linked Foundry actor, else the one with its id", () => {
  const linked = { id: "fvtt1", name: "Ana", flags: { rollbridge: { actorId: "ana" } } };
  const same = { id: "guard", name: "Guard", flags: {} };
  const other = { id: "zzz", flags: {} };
  const actors = [other, same, linked];
  assert.equal(findActor("ana", actors), linked);
  assert.equal(findActor("guard", actors), same);
  assert.equal(findActor("fvtt1", actors), null, "a linked actor answers to its link only");
  assert.equal(findActor("nobody", actors), null);
  assert.equal(rollbridgeIdOf(linked), "ana");
  assert.equal(rollbridgeIdOf(same), "guard");
  assert.deepEqual(speakerFor("ana", actors), { actor: "fvtt1", alias: "Ana" });
  assert.deepEqual(speakerFor("nobody", actors, "Someone"), { alias: "Someone" });
});

const view = {
  id: "guard",
  name: "Guard",
  controllers: ["alice"],
  foundry: {
    flags: { rollbridge: { actorId: "guard", seq: 9, limited: false, common: { status: "impaired", tracks: [] } } },
    systems: { sr5: { "system.track.physical.value": 6, "system.track.stun.value": 0 } },
  },
};

test("the update writes the flags, and the chosen mapping's system paths", () => {
  // a player's character: the players see it in full, so its view is the players' too
  const flags = { ...view.foundry.flags.rollbridge, view: "players" };
  assert.deepEqual(actorUpdate(view, "sr5"), {
    "flags.rollbridge": flags,
    "system.track.physical.value": 6,
    "system.track.stun.value": 0,
  });
  assert.deepEqual(actorUpdate(view, "none"), { "flags.rollbridge": flags });
  assert.deepEqual(actorUpdate(view, "swade"), { "flags.rollbridge": flags });
  // a limited view is the players' view already (a GM who pasted a player token)
  const limited = structuredClone(view);
  limited.foundry.flags.rollbridge.limited = true;
  limited.controllers = [];
  assert.deepEqual(actorUpdate(limited, "sr5")["flags.rollbridge"], { ...limited.foundry.flags.rollbridge, view: "players" });
  assert.equal(actorUpdate({ id: "x" }, "sr5"), null);
});

test("auto picks the mapping of the world's system", () => {
  assert.equal(chooseMapping("auto", "shadowrun5e"), "sr5");
  assert.equal(chooseMapping("auto", "swade"), "swade");
  assert.equal(chooseMapping("auto", "dnd5e"), "none");
  assert.equal(chooseMapping("sr5", "dnd5e"), "sr5");
});

test("the writer posts every card; a player only its own while no GM is there", () => {
  const event = { kind: "roll", request: "r1" };
  const own = new Set(["r1"]);
  assert.equal(shouldPostCard({ event, writer: true, gmPresent: true, ownRequests: new Set() }), true);
  assert.equal(shouldPostCard({ event, writer: false, gmPresent: true, ownRequests: own }), false);
  assert.equal(shouldPostCard({ event, writer: false, gmPresent: false, ownRequests: own }), true);
  assert.equal(shouldPostCard({ event, writer: false, gmPresent: false, ownRequests: new Set() }), false);
  assert.equal(shouldPostCard({ event: { kind: "adjusted" }, writer: true, gmPresent: true }), false);
});

test("track rows", () => {
  assert.deepEqual(trackRows({ tracks: [{ key: "physical", label: "Physical", value: 6, max: 10 }] }), [
    { key: "physical", label: "Physical", value: 6, max: 10, ratio: 0.6 },
  ]);
  assert.deepEqual(trackRows(null), []);
});

test("holdsUpdate: whether a source holds an update's every change already (Foundry left it out: nothing to change, or refused)", () => {
  const source = { flags: { rollbridge: { seq: 3, common: { tracks: [{ value: 2 }] } } }, system: { hp: 5 } };
  assert.equal(holdsUpdate(source, {}), true);
  assert.equal(holdsUpdate(source, { "system.hp": 5, "flags.rollbridge.seq": 3 }), true);
  assert.equal(holdsUpdate(source, { "system.hp": 4 }), false);
  assert.equal(holdsUpdate(source, { "flags.rollbridge.common.tracks": [{ value: 2 }] }), true, "arrays compared by value");
  assert.equal(holdsUpdate(source, { "flags.rollbridge.common.tracks": [{ value: 3 }] }), false);
  assert.equal(holdsUpdate(source, { flags: { rollbridge: { seq: 3 } } }), true, "a nested object merged: the rest stays");
  assert.equal(holdsUpdate(source, { "flags.rollbridge": { seq: 4 } }), false);
  assert.equal(holdsUpdate(source, { "flags.rollbridge.-=gone": null }), true, "a deleted key that is not there");
  assert.equal(holdsUpdate(source, { "flags.rollbridge.-=seq": null }), false, "a deleted key still there");
  assert.equal(holdsUpdate(source, { "system.missing.deep": 1 }), false);
});
