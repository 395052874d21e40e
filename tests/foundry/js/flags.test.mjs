// State written cleanly (issue 15, item 4): flags.rollbridge replaced, not
// merged (Foundry's `-=` deletion keys), so a removed actor's old tracks
// vanish; the HUD and the sheet panel draw nothing for a removed actor;
// SWADE's Shaken and Incapacitated through the system's status effects, not
// a raw data path. The stand-in's Actor#update applies `-=` as Foundry's
// update does (mergeObject with performDeletions).

import assert from "node:assert/strict";
import { after, beforeEach, test } from "node:test";

import { actorUpdate, panelFlags, replaceKeys, statusChanges } from "../../../adapters/foundry/module/scripts/core/state.mjs";
import { FoundryClient } from "../../../adapters/foundry/module/scripts/foundry/client.mjs";
import { drawPanels } from "./panels.mjs";
import { registerModuleSettings, settle, Standin, welcomeClient, world } from "./standin.mjs";

test("replaceKeys: set what changed, walk objects, replace arrays, delete what is gone", () => {
  const current = { actorId: "g", seq: 3, common: { status: "impaired", tracks: [{ key: "physical", value: 4 }], modifier_note: "+1 TN" }, name: "Guard" };
  const next = { actorId: "g", seq: 4, common: { status: "ok", tracks: [] } };
  assert.deepEqual(replaceKeys("flags.rollbridge", current, next), {
    "flags.rollbridge.seq": 4,
    "flags.rollbridge.common.status": "ok",
    "flags.rollbridge.common.tracks": [],
    "flags.rollbridge.common.-=modifier_note": null,
    "flags.rollbridge.-=name": null,
  });
  assert.deepEqual(replaceKeys("flags.rollbridge", undefined, next), { "flags.rollbridge": next });
});

test("a removed actor keeps only its id and mark; the panels ignore it", () => {
  const current = { actorId: "g", table: "t1", seq: 3, name: "Guard", limited: false, common: { status: "down", tracks: [] } };
  const removed = { id: "g", removed: true, foundry: { flags: { rollbridge: { actorId: "g", table: "t1", seq: 9, removed: true } }, systems: {} } };
  assert.deepEqual(actorUpdate(removed, "sr5", current), {
    "flags.rollbridge.seq": 9,
    "flags.rollbridge.removed": true,
    "flags.rollbridge.-=name": null,
    "flags.rollbridge.-=limited": null,
    "flags.rollbridge.-=common": null,
  });
  assert.equal(panelFlags({ flags: { rollbridge: { ...current, removed: true } } }), null, "a removed mark draws nothing");
  assert.deepEqual(panelFlags({ flags: { rollbridge: current } }), current);
  assert.equal(panelFlags({ flags: {} }), null);
});

const swadeView = (id, { shaken, incapacitated = false, wounds = 1, seq = 1 }) => {
  const conditions = [shaken && "Shaken", incapacitated && "Incapacitated"].filter(Boolean);
  const common = { status: "impaired", tracks: [{ key: "wounds", label: "Wounds", value: wounds, max: 3 }], conditions };
  return {
    id, name: "Hero", controllers: ["player"], common,
    foundry: {
      flags: { rollbridge: { actorId: id, table: "t1", seq, name: "Hero", limited: false, common } },
      systems: { swade: { "system.wounds.value": wounds, "system.status.isShaken": shaken, "system.status.isIncapacitated": incapacitated } },
    },
  };
};

test("SWADE's Shaken is a status effect, not a data path", () => {
  const view = swadeView("h", { shaken: true });
  const update = actorUpdate(view, "swade");
  assert.equal(update["system.wounds.value"], 1);
  assert.ok(!("system.status.isShaken" in update) && !("system.status.isIncapacitated" in update));
  assert.deepEqual(statusChanges(view, "swade"), [{ status: "shaken", active: true }, { status: "incapacitated", active: false }]);
  assert.deepEqual(statusChanges(view, "sr5"), []);
});

test("under auto, an NPC's SWADE values its players' view no longer fills are reset, Shaken and Incapacitated through status effects", () => {
  const SWADE = { id: "swade", tracks: { wounds: "system.wounds.value" },
    conditions: { Shaken: "system.status.isShaken", Incapacitated: "system.status.isIncapacitated" }, requires: ["wounds"] };
  const shown = swadeView("n", { shaken: true, wounds: 2 });
  const current = { ...shown.foundry.flags.rollbridge, view: "players" };
  // the NPC's players' view without its wounds (the table no longer shows them)
  const common = { status: "impaired", tracks: [], conditions: ["Shaken"] };
  const hidden = { id: "n", name: "Thug", controllers: [], limited: true, common,
    foundry: { flags: { rollbridge: { actorId: "n", table: "t1", seq: 2, name: "Thug", limited: true, common } }, systems: {} } };
  const options = { current, mappings: { swade: SWADE } };
  assert.equal(actorUpdate(hidden, "swade", current, options)["system.wounds.value"], 0);
  assert.deepEqual(statusChanges(hidden, "swade", options), [{ status: "shaken", active: false }, { status: "incapacitated", active: false }]);
  // flags that never filled the paths reset nothing, and a mapping chosen by hand is the GM's
  assert.ok(!("system.wounds.value" in actorUpdate(hidden, "swade", { ...current, common }, { ...options, current: { ...current, common } })));
  assert.deepEqual(statusChanges(hidden, "swade", { ...options, chosen: true }), []);
});

test("under auto, a SWADE value or status the GM set by hand since auto wrote it is not reset", () => {
  const SWADE = { id: "swade", tracks: { wounds: "system.wounds.value" },
    conditions: { Shaken: "system.status.isShaken", Incapacitated: "system.status.isIncapacitated" }, requires: ["wounds"] };
  // auto wrote wounds 2, Shaken on, Incapacitated off
  const current = { ...swadeView("n", { shaken: true, wounds: 2 }).foundry.flags.rollbridge, view: "players" };
  const common = { status: "impaired", tracks: [], conditions: [] };
  const hidden = { id: "n", name: "Thug", controllers: [], limited: true, common,
    foundry: { flags: { rollbridge: { actorId: "n", table: "t1", seq: 2, name: "Thug", limited: true, common } }, systems: {} } };
  // as auto left it: everything reset
  const untouched = { system: { wounds: { value: 2 } }, statuses: new Set(["shaken"]) };
  let options = { current, mappings: { swade: SWADE }, actor: untouched };
  assert.equal(actorUpdate(hidden, "swade", current, options)["system.wounds.value"], 0);
  assert.deepEqual(statusChanges(hidden, "swade", options), [{ status: "shaken", active: false }, { status: "incapacitated", active: false }]);
  // the GM typed 3 wounds and set Incapacitated by hand since: left, Shaken (auto's) reset
  const typed = { system: { wounds: { value: 3 } }, statuses: new Set(["shaken", "incapacitated"]) };
  options = { ...options, actor: typed };
  assert.ok(!("system.wounds.value" in actorUpdate(hidden, "swade", current, options)));
  assert.deepEqual(statusChanges(hidden, "swade", options), [{ status: "shaken", active: false }]);
});

let client = null;
async function gmClient(system) {
  client?.stop();
  await world({ system });
  await registerModuleSettings();
  client = new FoundryClient();
  client.start();
  return welcomeClient(client, { role: "gm" });
}
beforeEach(() => client?.stop());
after(() => {
  client?.stop();
  Standin.uninstall();
});

test("in the stand-in world: a removed actor's flags vanish, no old track merged in", async () => {
  const ws = await gmClient("shadowrun5e");
  const guard = Standin.addActor({ _id: "fvttGuard0000002", name: "Guard", system: { track: { physical: { value: 0 }, stun: { value: 0 } } } });
  const common = { status: "impaired", tracks: [{ key: "physical", value: 4, max: 10 }], conditions: [], modifier_note: "+1 TN" };
  ws.receive({ type: "event", table: "t1", epoch: 1, seq: 1, kind: "adjusted", data: {}, actors: [
    { id: guard.id, controllers: ["player"], foundry: { flags: { rollbridge: { actorId: guard.id, table: "t1", seq: 1, name: "Guard", limited: false, common } }, systems: {} } },
  ] });
  await settle(client);
  assert.equal(guard.flags.rollbridge.common.modifier_note, "+1 TN");
  // the next state has no modifier note: it must not survive by merging
  const healed = { status: "ok", tracks: [{ key: "physical", value: 0, max: 10 }], conditions: [] };
  ws.receive({ type: "event", table: "t1", epoch: 1, seq: 2, kind: "adjusted", data: {}, actors: [
    { id: guard.id, controllers: ["player"], foundry: { flags: { rollbridge: { actorId: guard.id, table: "t1", seq: 2, name: "Guard", limited: false, common: healed } }, systems: {} } },
  ] });
  await settle(client);
  assert.deepEqual(guard.flags.rollbridge.common, healed);
  assert.equal(guard.flags.rollbridge.view, "players", "a player's character: the players see it in full");
  ws.receive({ type: "event", table: "t1", epoch: 1, seq: 3, kind: "actor.removed", data: { actor: guard.id }, actors: [
    { id: guard.id, removed: true, foundry: { flags: { rollbridge: { actorId: guard.id, table: "t1", seq: 3, removed: true } }, systems: {} } },
  ] });
  await settle(client);
  assert.deepEqual(guard.flags.rollbridge, { actorId: guard.id, table: "t1", seq: 3, epoch: 1, removed: true });
  assert.equal(panelFlags(guard), null);
});

test("in a SWADE world: Shaken on and off through Actor#toggleStatusEffect", async () => {
  const ws = await gmClient("swade");
  const hero = Standin.addActor({ _id: "fvttHero00000001", name: "Hero", system: { wounds: { value: 0 }, status: { isShaken: false } } });
  await hero.update({ "flags.rollbridge.actorId": "h" });
  ws.receive({ type: "event", table: "t1", epoch: 1, seq: 1, kind: "adjusted", data: {}, actors: [swadeView("h", { shaken: true })] });
  await settle(client);
  assert.ok(hero.statuses.has("shaken"));
  assert.equal(hero.system.wounds.value, 1);
  assert.equal(hero.system.status.isShaken, false, "no raw write of the derived field");
  ws.receive({ type: "event", table: "t1", epoch: 1, seq: 2, kind: "adjusted", data: {}, actors: [swadeView("h", { shaken: false, seq: 2 })] });
  await settle(client);
  assert.ok(!hero.statuses.has("shaken"));
  assert.deepEqual(Standin.log.statusEffects.map((e) => [e.status, e.active]), [["shaken", true], ["shaken", false]]);
  await assert.rejects(hero.toggleStatusEffect("nonsense"), /Invalid status ID/);
});

test("the token HUD and the sheet panel: the tracks of an actor on the table, nothing for a removed one", () => {
  const draw = (flags) => drawPanels({ flags: { rollbridge: flags } });
  const common = { status: "impaired", tracks: [{ key: "physical", label: "Physical", value: 4, max: 10 }] };
  const [hud, sheet] = draw({ actorId: "g", view: "players", common });
  assert.equal(hud.length, 1);
  assert.match(hud[0].className, /rollbridge-hud/);
  assert.match(hud[0].innerHTML, /data-track="physical" data-value="4"/);
  assert.match(sheet[0].className, /rollbridge-sheet/);
  // a removed mark left beside old tracks (an older module merged them): still nothing
  assert.deepEqual(draw({ actorId: "g", view: "players", removed: true, common }), [[], []]);
  // an older module's flags (the GM's view, unmarked) are never drawn (npcview.test.mjs)
  assert.deepEqual(draw({ actorId: "g", limited: false, common }), [[], []]);
});
