// Unlinked tokens (issue 15, item 1): each unlinked token's synthetic actor is
// its own rollbridge actor, keyed by its token's UUID, created at the table as
// a separate actor and written through its token's delta — never the base
// actor. Linked tokens and world actors keep their ids. Runs the module's glue
// (scripts/foundry/client.mjs) against the Foundry stand-in in Node.

import assert from "node:assert/strict";
import { after, beforeEach, test } from "node:test";

import { FoundryClient } from "../../../adapters/foundry/module/scripts/foundry/client.mjs";
import { findActor, rollbridgeIdOf, speakerFor } from "../../../adapters/foundry/module/scripts/core/state.mjs";
import { panelHtml } from "./panels.mjs";
import { registerModuleSettings, settle, Standin, welcomeClient, world } from "./standin.mjs";

const track = (physical = 0) => ({ track: { physical: { value: physical, overflow: { value: 0 } }, stun: { value: 0 } } });

// an actor view as the server's Foundry adapter sends it (adapters/foundry/actors.py): a
// player's character here, whose flags and system paths hold its view in full (an NPC's
// hold the players' view: npcViews below, and npcview.test.mjs)
function view(id, name, physical, { seq = 1 } = {}) {
  const common = { status: physical ? "impaired" : "ok", tracks: [{ key: "physical", label: "Physical", value: physical, max: 10 }, { key: "stun", label: "Stun", value: 0, max: 10 }], conditions: [] };
  return {
    id, name, controllers: ["player"], common,
    foundry: {
      flags: { rollbridge: { actorId: id, table: "t1", seq, name, limited: false, common } },
      systems: { sr5: { "system.track.physical.value": physical, "system.track.stun.value": 0 } },
    },
  };
}

// An NPC goblin as the GM's frame carries it (FoundryAdapter.public_view): the GM's view
// (its boxes, the sr5 mapping's paths) in `actors`, and in `players` the view players
// are sent — limited, no boxes, no mapping's paths (test_foundry_adapter.py).
function npcViews(id, name, physical, wound, seq) {
  const gm = view(id, name, physical, { seq });
  gm.controllers = [];
  gm.common.conditions = [`Physical: ${wound} (${physical} boxes)`];
  const common = { status: gm.common.status, tracks: [], conditions: [`Physical: ${wound}`] };
  const players = {
    id, name, controllers: [], limited: true, common,
    foundry: { flags: { rollbridge: { actorId: id, table: "t1", seq, name, limited: true, common } }, systems: {} },
  };
  return { gm, players };
}

/** An `adjusted` event hitting NPC goblins, as the GM's connection receives it. */
function npcAdjusted(seq, goblins) {
  const event = { type: "event", table: "t1", epoch: 1, seq, kind: "adjusted", data: {} };
  return { ...event, actors: goblins.map((g) => g.gm), players: { ...event, actors: goblins.map((g) => g.players) } };
}

let client = null;
let scene;
let goblin;
let tukan;
let guard;
let tokens;

beforeEach(async () => {
  client?.stop();
  await world({ generation: 13, system: "shadowrun5e" });
  await registerModuleSettings();
  goblin = Standin.addActor({ _id: "fvttGoblin000001", name: "Goblin", type: "npc", system: track() });
  tukan = Standin.addActor({ _id: "fvttTukan0000001", name: "Tukan", system: track() });
  guard = Standin.addActor({ _id: "fvttGuard0000002", name: "Guard", system: track() });
  scene = Standin.addScene({ _id: "sceneCave0000001", name: "Cave" });
  tokens = {
    a: Standin.addToken(scene, { _id: "tokGoblinA000001", name: "Goblin A", actorId: goblin.id, actorLink: false }),
    b: Standin.addToken(scene, { _id: "tokGoblinB000002", name: "Goblin B", actorId: goblin.id, actorLink: false }),
    tukan: Standin.addToken(scene, { _id: "tokTukan00000003", name: "Tukan", actorId: tukan.id, actorLink: true }),
  };
  client = new FoundryClient();
  client.start();
  welcomeClient(client, { role: "gm" });
});

after(() => {
  client?.stop();
  Standin.uninstall();
});

/** Answer the client's last request with an ok result. */
function answerLast(extra = {}) {
  const ws = globalThis.WebSocket.last();
  const request = ws.messages().at(-1);
  ws.receive({ type: "result", id: request.id, ok: true, ...extra });
  return request;
}

async function addAll() {
  for (const [actor, sheet] of [[tokens.a.actor, { name: "Goblin A" }], [tokens.b.actor, { name: "Goblin B" }], [tukan, { name: "Tukan" }], [guard, { name: "Guard" }]]) {
    const done = client.addActor(actor, sheet);
    await new Promise((r) => setImmediate(r));
    answerLast();
    await done;
  }
}

test("two unlinked tokens of one base actor are two table actors, keyed by their tokens' UUIDs", async () => {
  assert.equal(tokens.a.actor.id, goblin.id, "a synthetic actor shares its base actor's id (as in Foundry)");
  const before = globalThis.WebSocket.last().messages().length;
  await addAll();
  const creates = globalThis.WebSocket.last().messages().slice(before).filter((m) => m.type === "actor.create");
  assert.deepEqual(creates.map((m) => m.actor.id), [
    "Scene.sceneCave0000001.Token.tokGoblinA000001", "Scene.sceneCave0000001.Token.tokGoblinB000002",
    tukan.id, guard.id,
  ]);
  assert.deepEqual(creates.map((m) => m.actor.name), ["Goblin A", "Goblin B", "Tukan", "Guard"]);
  // the links: in each token's delta; the base actor carries none
  assert.equal(tokens.a.delta.flags.rollbridge.actorId, tokens.a.uuid);
  assert.equal(tokens.b.delta.flags.rollbridge.actorId, tokens.b.uuid);
  assert.equal(goblin.flags.rollbridge, undefined);
  assert.equal(rollbridgeIdOf(tokens.a.actor), tokens.a.uuid);
  assert.equal(rollbridgeIdOf(tokens.tukan.actor), tukan.id, "a linked token's actor is the world actor");
});

test("two unlinked goblins take different damage; the base actor is never written", async () => {
  await addAll();
  const ws = globalThis.WebSocket.last();
  ws.receive({
    type: "event", table: "t1", epoch: 1, seq: 1, kind: "adjusted", data: {},
    actors: [view(tokens.a.uuid, "Goblin A", 3), view(tokens.b.uuid, "Goblin B", 7), view(tukan.id, "Tukan", 2), view(guard.id, "Guard", 5)],
  });
  await settle(client);
  const physical = (actor) => actor.flags.rollbridge.common.tracks.find((t) => t.key === "physical").value;
  assert.equal(physical(tokens.a.actor), 3);
  assert.equal(physical(tokens.b.actor), 7);
  // the sr5 mapping's system paths, through each token's delta too
  assert.equal(tokens.a.actor.system.track.physical.value, 3);
  assert.equal(tokens.b.actor.system.track.physical.value, 7);
  assert.equal(tokens.a.delta.system.track.physical.value, 3);
  // the shared base actor is untouched
  assert.equal(goblin.flags.rollbridge, undefined);
  assert.equal(goblin.system.track.physical.value, 0);
  // linked tokens and world actors as before: the world actor itself
  assert.equal(physical(tukan), 2);
  assert.equal(tukan.system.track.physical.value, 2);
  assert.equal(tokens.tukan.actor, tukan);
  assert.equal(physical(guard), 5);
  const written = Standin.log.updates.filter((u) => u.data["flags.rollbridge"] || Object.keys(u.data).some((k) => k.startsWith("flags.rollbridge")));
  const targets = new Set(written.map((u) => u.uuid));
  assert.ok(targets.has(`${tokens.a.uuid}.Actor.${goblin.id}`) && targets.has(`${tokens.b.uuid}.Actor.${goblin.id}`));
  assert.ok(!targets.has(goblin.uuid), "no update of the base actor");
});

test("two unlinked NPC goblins: each token's delta holds its own players' view, never the GM's; the base actor is never written", async () => {
  await addAll();
  const a = npcViews(tokens.a.uuid, "Goblin A", 3, "Light", 1);
  const b = npcViews(tokens.b.uuid, "Goblin B", 7, "Serious", 1);
  globalThis.WebSocket.last().receive(npcAdjusted(1, [a, b]));
  await settle(client);
  for (const [token, goblinViews, boxes] of [[tokens.a, a, "3 boxes"], [tokens.b, b, "7 boxes"]]) {
    const flags = token.delta.flags.rollbridge;
    // keyed by its token's UUID, written through its own delta
    assert.equal(flags.actorId, token.uuid);
    assert.deepEqual(flags.common, goblinViews.players.common, `${token.name}'s players' view`);
    assert.deepEqual([flags.limited, flags.view, flags.seq], [true, "players", 1]);
    assert.ok(!JSON.stringify(token.delta.flags).includes(boxes), `${token.name}'s delta holds the GM's "${boxes}"`);
    // `auto` picked sr5: the players' view makes no paths, so the GM's boxes stay out of its system data
    assert.equal(token.actor.system.track.physical.value, 0);
    // the GM's client draws the GM's view from its connection; a client without it, the players'
    assert.ok(panelHtml(token.actor, client.views).includes(boxes), `the GM's panel of ${token.name}`);
    const shown = panelHtml(token.actor);
    assert.ok(shown.includes(goblinViews.players.common.conditions[0]) && !shown.includes(boxes), shown);
  }
  assert.equal(goblin.flags.rollbridge, undefined);
  assert.equal(goblin.system.track.physical.value, 0);
  const targets = new Set(Standin.log.updates.map((u) => u.uuid));
  assert.ok(!targets.has(goblin.uuid), "no update of the base actor");
});

test("an NPC goblin hit alone: only its token's delta changes, the other goblin keeps its own view", async () => {
  await addAll();
  const ws = globalThis.WebSocket.last();
  ws.receive(npcAdjusted(1, [npcViews(tokens.a.uuid, "Goblin A", 3, "Light", 1), npcViews(tokens.b.uuid, "Goblin B", 3, "Light", 1)]));
  await settle(client);
  const before = structuredClone(tokens.a.delta.flags.rollbridge);
  ws.receive(npcAdjusted(2, [npcViews(tokens.b.uuid, "Goblin B", 9, "Deadly", 2)]));
  await settle(client);
  assert.deepEqual(tokens.a.delta.flags.rollbridge, before, "Goblin A is untouched");
  assert.deepEqual(tokens.b.delta.flags.rollbridge.common.conditions, ["Physical: Deadly"]);
  assert.equal(tokens.b.delta.flags.rollbridge.seq, 2);
  assert.ok(!JSON.stringify(tokens.b.delta.flags).includes("9 boxes"), "the GM's boxes stay out of Goblin B's delta");
  assert.equal(goblin.flags.rollbridge, undefined);
});

test("a synthetic actor's inherited link is not its own; world actors are found by link or id", async () => {
  // the base actor itself put on the table: its tokens inherit the flag but are not that actor
  await goblin.update({ "flags.rollbridge.actorId": goblin.id });
  assert.equal(tokens.a.actor.flags.rollbridge.actorId, goblin.id, "inherited, as Foundry derives it");
  const actors = [goblin, tukan, tokens.a.actor, tokens.b.actor];
  assert.equal(findActor(goblin.id, actors), goblin);
  assert.equal(findActor(tokens.a.uuid, actors), tokens.a.actor);
  assert.equal(findActor(tokens.b.uuid, [goblin, tokens.a.actor]), null);
  assert.equal(client.actorFor({ speaker: { scene: scene.id, token: tokens.a.id, actor: goblin.id } }), null, "not on the table yet");
  await addAll();
  assert.equal(client.actorFor({ speaker: { scene: scene.id, token: tokens.b.id, actor: goblin.id } }), tokens.b.uuid);
  assert.equal(client.actorFor({ speaker: { scene: scene.id, token: tokens.tukan.id, actor: tukan.id } }), tukan.id);
  assert.equal(client.actorFor({ speaker: { actor: guard.id } }), guard.id);
  assert.deepEqual(speakerFor(tokens.b.uuid, [goblin, tokens.a.actor, tokens.b.actor]), {
    scene: scene.id, token: tokens.b.id, actor: goblin.id, alias: "Goblin B",
  });
  assert.deepEqual(speakerFor(tukan.id, [tukan]), { actor: tukan.id, alias: "Tukan" });
});

test("the stand-in refuses what Foundry refuses: a player's update of an actor it does not own", async () => {
  await world({ generation: 13, user: "player" });
  const npc = Standin.addActor({ _id: "fvttNpc000000001", name: "NPC" });
  const own = Standin.addActor({ _id: "fvttPc0000000001", name: "PC", ownership: { standinPlr00001: 3 } });
  await assert.rejects(npc.update({ "flags.rollbridge.actorId": "x" }), /lacks permission/);
  await own.update({ "flags.rollbridge.actorId": "pc" });
  assert.equal(own.flags.rollbridge.actorId, "pc");
  await assert.rejects(own.update({ "flags.nosuchmodule.x": 1 }), /not valid or not currently active/);
  await assert.rejects(own.update({ prototypeToken: {} }), /unexpected field/);
});
