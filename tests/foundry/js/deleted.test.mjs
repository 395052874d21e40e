// Real games (foundry10 audit): an actor deleted in Foundry while a request for it
// is pending at the server, and one result that moves a whole scene of unlinked
// tokens. Foundry's TokenDocument#actor is `Actor | null`: an unlinked token whose
// base actor was deleted stays on its scene with no actor; the stand-in models
// that (and Actor#delete), where it used to throw building the synthetic actor.

import assert from "node:assert/strict";
import { after, test } from "node:test";

import { FoundryClient } from "../../../adapters/foundry/module/scripts/foundry/client.mjs";
import { foundryActors } from "../../../adapters/foundry/module/scripts/foundry/actors.mjs";
import { writeActors } from "../../../adapters/foundry/module/scripts/foundry/writes.mjs";
import { FakeWebSocket } from "./fakes.mjs";
import { consoleWarnings, registerModuleSettings, settle, Standin, welcomeClient, world } from "./standin.mjs";

const GM = "standinGM000001";
const PLAYER = "standinPlr00001";
const USERS = [{ _id: GM, name: "Gamemaster", isGM: true }, { _id: PLAYER, name: "Player" }];

const common = (physical) => ({ status: "ok", tracks: [{ key: "physical", label: "Physical", value: physical, max: 10 }], conditions: [] });
// an actor view as the server's Foundry adapter sends it (adapters/foundry/actors.py): a
// player's character, whose flags hold its view in full (an NPC's flags hold the players'
// view: npcview.test.mjs)
const view = (id, name, physical, seq) => ({
  id, name, controllers: ["player"], common: common(physical),
  foundry: { flags: { rollbridge: { actorId: id, table: "t1", seq, name, limited: false, common: common(physical) } }, systems: {} },
});

// the browser's CSS.escape, which Node lacks (a card's event kept: chat.mjs localizeRenderedCards)
globalThis.CSS ??= { escape: (s) => s };

const turns = async (n = 10) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

let client = null;
after(() => {
  client?.stop();
  Standin.uninstall();
});

/** A world with Alice's PC (a world actor on the table) and an unlinked goblin token on it. */
async function cave(user, { gmActive = true } = {}) {
  client?.stop();
  await world({ users: USERS.map((u) => (u.isGM ? { ...u, active: gmActive } : u)), user });
  await registerModuleSettings();
  game.ready = true;
  const alice = Standin.addActor({ _id: "fvttAlice0000001", name: "Alice", ownership: { [PLAYER]: 3 }, flags: { rollbridge: { actorId: "alice-pc" } } });
  const goblin = Standin.addActor({ _id: "fvttGoblin000001", name: "Goblin", type: "npc" });
  const scene = Standin.addScene({ _id: "sceneCave0000001", name: "Cave" });
  const token = Standin.addToken(scene, { _id: "tokGoblinA000001", name: "Goblin A", actorId: goblin.id, actorLink: false });
  token.delta._source.flags = { rollbridge: { actorId: token.uuid } };
  return { alice, goblin, token };
}

/** A guard whose every write the system's data model refuses (Foundry's DataModelValidationError). */
function refusingGuard() {
  const guard = Standin.addActor({ _id: "fvttGuard0000002", name: "Guard", flags: { rollbridge: { actorId: "guard" } } });
  guard.validate = () => {
    throw new Error(REFUSED);
  };
  return guard;
}

const REFUSED = "Actor [fvttGuard0000002] validation errors: system.track.physical.value: cannot exceed 10";

/**
 * Actor.updateDocuments refusing its next operation as a whole, as Foundry does for an
 * actor no longer there (collection.get(id, {strict: true})) or the server's refusal;
 * `words` its error. Returns a function putting the stand-in's back.
 */
function refuseNextBatch(words) {
  const own = Actor.updateDocuments;
  Actor.updateDocuments = async () => {
    Actor.updateDocuments = own;
    throw new Error(words);
  };
  return () => {
    Actor.updateDocuments = own;
  };
}

/** Delete `actor` as the GM does (it reaches this page from the server). */
async function deleteAsGM(actor) {
  const me = game.user;
  game.user = game.users.get(GM);
  try {
    await actor.delete();
  } finally {
    game.user = me;
  }
}

function attack(seq, token, request) {
  return {
    type: "event", table: "t1", epoch: 1, seq, kind: "resolution", request,
    data: { action: "attack", actor: "alice-pc", targets: [token.uuid], narration: "Alice hits.", dice: [] },
    actors: [view("alice-pc", "Alice", 0, seq), view(token.uuid, "Goblin A", 4, seq)],
    foundry: { rolls: [], speaker: { actor: "alice-pc", alias: "Alice" } },
  };
}

test("the stand-in's token of a deleted base actor has no actor, as Foundry's (Actor | null)", async () => {
  const { goblin, token } = await cave(GM);
  assert.ok(token.actor, "its synthetic actor while the base actor is there");
  await goblin.delete();
  assert.equal(game.actors.get(goblin.id), undefined);
  assert.equal(token.actor, null);
  assert.equal(token.baseActor, undefined);
  assert.deepEqual(foundryActors().map((a) => a.name), ["Alice"], "the module looks through what is left");
});

test("actors deleted while a request is pending: the GM's client posts the card, writes nothing, fails nothing", async () => {
  const { alice, goblin, token } = await cave(GM);
  client = new FoundryClient();
  client.start();
  const ws = welcomeClient(client, { role: "gm", seq: 2 });
  // a player's attack is pending at the server; meanwhile the GM deletes Alice and the goblin's base actor
  await deleteAsGM(alice);
  await deleteAsGM(goblin);
  const errors = [];
  const error = console.error;
  console.error = (...args) => errors.push(args.join(" "));
  try {
    ws.receive(attack(3, token, "p-attack"));
    await settle(client);
  } finally {
    console.error = error;
  }
  // (Node has no DOM: redrawing cards already on the page is the browser's part)
  assert.deepEqual(errors.filter((e) => !/\b(document|CSS) is not defined/.test(e)), []);
  assert.deepEqual(Standin.log.updates, [], "no actor to write: nothing written, nothing made up");
  const cards = Standin.log.messages.filter((m) => m.flags?.rollbridge?.seq === 3);
  assert.equal(cards.length, 1);
  assert.deepEqual(cards[0].speaker, { alias: "Alice" }, "the card speaks as the server's name, for no Foundry actor");
  assert.deepEqual(client.status().cursor, { epoch: 1, seq: 3 }, "the event is applied; the next ones follow");
});

test("a player's pending roll whose actor is deleted resolves; with no GM active its own card is posted, under the name alone", async () => {
  const { alice, token } = await cave(PLAYER, { gmActive: false });
  client = new FoundryClient();
  client.start();
  const ws = welcomeClient(client, { role: "player", seq: 2 });
  const rolled = client.roll("2d6", { actor: alice, speaker: { actor: alice.id, alias: "Alice" } });
  for (let i = 0; i < 50 && ws.messages().at(-1)?.type !== "foundry.roll"; i++) await new Promise((r) => setImmediate(r));
  const request = ws.messages().at(-1);
  assert.equal(request.type, "foundry.roll");
  await deleteAsGM(alice);
  const warnings = await consoleWarnings(async () => {
    ws.receive({ ...attack(3, token, request.id), kind: "roll", data: { formula: "2d6", total: 7, actor: "alice-pc" } });
    ws.receive({ type: "result", id: request.id, ok: true, seq: 3 });
    const event = await rolled;
    assert.equal(event.seq, 3);
    await settle(client);
  });
  assert.deepEqual(warnings, []);
  const cards = Standin.log.messages.filter((m) => m.flags?.rollbridge?.seq === 3);
  assert.equal(cards.length, 1, "its own card, as no GM is there to post it");
  assert.deepEqual(cards[0].speaker, { alias: "Alice" });
  assert.deepEqual(Standin.log.updates, [], "a player's client writes no actor");
  assert.equal(FakeWebSocket.instances.length, 1);
});

/** A scene of 32 unlinked goblin tokens of one base actor, each on the table; the GM's client welcomed. */
async function horde() {
  await world({ users: USERS, user: GM });
  await registerModuleSettings();
  game.ready = true;
  const goblin = Standin.addActor({ _id: "fvttGoblin000001", name: "Goblin", type: "npc" });
  const scene = Standin.addScene({ _id: "sceneHorde000001", name: "Horde" });
  const tokens = [];
  for (let i = 0; i < 32; i++) {
    const token = Standin.addToken(scene, { _id: `tokGoblin${String(i).padStart(7, "0")}`, name: `Goblin ${i}`, actorId: goblin.id, actorLink: false });
    token.delta._source.flags = { rollbridge: { actorId: token.uuid } };
    tokens.push(token);
  }
  client?.stop();
  client = new FoundryClient();
  client.start();
  const ws = welcomeClient(client, { role: "gm", seq: 0 });
  return { goblin, tokens, ws };
}

test("one result for 32 unlinked tokens of one base actor: each token's delta written once, the base never, one card", async () => {
  const { goblin, tokens, ws } = await horde();
  ws.receive({
    type: "event", table: "t1", epoch: 1, seq: 1, kind: "resolution", request: "fireball",
    data: { action: "blast", actor: null, targets: tokens.map((t) => t.uuid), narration: "Boom.", dice: [] },
    actors: tokens.map((t, i) => view(t.uuid, t.name, 1 + (i % 9), 1)),
    foundry: { rolls: [], speaker: null },
  });
  await settle(client);
  const written = Standin.log.updates.map((u) => u.token);
  assert.equal(written.length, 32);
  assert.deepEqual(new Set(written), new Set(tokens.map((t) => t.id)), "each token once");
  tokens.forEach((t, i) => assert.equal(t.actor.flags.rollbridge.common.tracks[0].value, 1 + (i % 9)));
  assert.equal(goblin.flags.rollbridge, undefined, "the base actor untouched");
  assert.equal(Standin.log.messages.filter((m) => m.flags?.rollbridge?.seq === 1).length, 1);
});

test("the writes of one result for 32 tokens go out together, not one round trip after another", async () => {
  const { tokens, ws } = await horde();
  // each update waits for "Foundry's server" until the test answers it: count those waiting
  const update = Actor.prototype.update;
  const waiting = [];
  let most = 0;
  Actor.prototype.update = function held(data) {
    return new Promise((resolve) => {
      waiting.push(resolve);
      most = Math.max(most, waiting.length);
    }).then(() => update.call(this, data));
  };
  try {
    ws.receive({
      type: "event", table: "t1", epoch: 1, seq: 1, kind: "adjusted", data: {},
      actors: tokens.map((t) => view(t.uuid, t.name, 3, 1)),
    });
    for (let i = 0; i < 40 && Standin.log.updates.length < 32; i++) {
      await turns();
      for (const answer of waiting.splice(0)) answer();
    }
  } finally {
    Actor.prototype.update = update;
  }
  await settle(client);
  assert.equal(Standin.log.updates.length, 32);
  assert.equal(most, 32, "all 32 waiting for the server at once");
});

test("a change the system's data model refuses for one actor: Foundry skips it alone (its own notice), the others are written, the card is posted, the GM is told which", async () => {
  const { alice, token } = await cave(GM);
  const guard = refusingGuard();
  client = new FoundryClient();
  client.start();
  const ws = welcomeClient(client, { role: "gm", seq: 2 });
  const seen = [];
  Hooks.on("rollbridge.event", (event) => seen.push(event.seq));
  const errors = [];
  const error = console.error;
  console.error = (...args) => errors.push(args.join(" "));
  try {
    ws.receive({ ...attack(3, token, "p-attack"), actors: [view("alice-pc", "Alice", 2, 3), view("guard", "Guard", 12, 3), view(token.uuid, "Goblin A", 4, 3)] });
    await settle(client);
  } finally {
    console.error = error;
  }
  assert.deepEqual(Standin.log.updates.map((u) => u.actor).sort(), [alice.id, token.actor.id].sort(), "Alice and the goblin written");
  assert.equal(alice.flags.rollbridge.common.tracks[0].value, 2);
  assert.equal(token.actor.flags.rollbridge.common.tracks[0].value, 4);
  assert.equal(Standin.log.messages.filter((m) => m.flags?.rollbridge?.seq === 3).length, 1, "the card is posted");
  assert.deepEqual(seen, [3], "the event is handled to its end");
  assert.equal(guard.flags.rollbridge.common, undefined, "the guard not");
  assert.deepEqual(Standin.log.skipped.map((s) => s.actor), [guard.id], "Foundry skipped the guard's change alone, in the one batch");
  assert.deepEqual(Standin.log.notifications.filter((n) => n.level === "error").map((n) => n.text), [
    "validation errors: system.track.physical.value: cannot exceed 10",
    "rollbridge: Foundry did not take the new state of Guard: Foundry left the change out (the system's data model or a module refused it; Foundry's own notice says why)",
  ], "Foundry's own notice, then the module's naming the actor");
  assert.equal(errors.filter((e) => e.includes("Guard")).length, 1, "the console names it too");
});

test("the GM's notice of a refused write shows an actor's name and Foundry's words as text, never markup", async () => {
  const { token } = await cave(GM);
  const name = '<img src=x onerror="alert(1)">';
  const sneaky = Standin.addActor({ _id: "fvttSneaky000003", name, flags: { rollbridge: { actorId: "sneaky" } } });
  // the batch refused as a whole (the server's words), then the actor's own update too
  const words = `Actor [${sneaky.id}] cannot be updated: name: "${name}" is not a valid <b>value</b>`;
  sneaky.update = async () => {
    throw new Error(words);
  };
  client = new FoundryClient();
  client.start();
  const ws = welcomeClient(client, { role: "gm", seq: 2 });
  const error = console.error;
  console.error = () => {}; // the console line: plain text, not a page's markup
  const restore = refuseNextBatch(words);
  try {
    await consoleWarnings(async () => {
      ws.receive({ ...attack(3, token, "p-attack"), actors: [view("sneaky", name, 1, 3)] });
      await settle(client);
    });
  } finally {
    console.error = error;
    restore();
  }
  const [notice] = Standin.log.notifications.filter((n) => n.level === "error").map((n) => n.text);
  assert.ok(notice.includes("&lt;img src=x onerror=\"alert(1)\"&gt;"), notice);
  assert.ok(notice.includes("&lt;b&gt;value&lt;/b&gt;"), notice);
  assert.ok(!notice.includes("<"), notice);
});

// -- one batch for the world actors ------------------------------------------------------
// Foundry's batched form for world documents is Actor.updateDocuments([{_id, ...}])
// (the declarations' own example). A linked token's actor is a world actor; an unlinked
// token's synthetic actor is written by its own update (docs/foundry.md says why).

test("one result's world actors (a linked token's too) go in one Actor.updateDocuments; an unlinked token's by its own update", async () => {
  const { alice, goblin, token } = await cave(GM);
  const scene = game.scenes.get("sceneCave0000001");
  const bruno = Standin.addActor({ _id: "fvttBruno0000001", name: "Bruno", flags: { rollbridge: { actorId: "bruno" } } });
  const linked = Standin.addToken(scene, { _id: "tokBruno00000001", name: "Bruno", actorId: bruno.id, actorLink: true });
  const guard = Standin.addActor({ _id: "fvttGuard0000002", name: "Guard", flags: { rollbridge: { actorId: "guard" } } });
  client = new FoundryClient();
  client.start();
  const ws = welcomeClient(client, { role: "gm", seq: 2 });
  ws.receive({
    ...attack(3, token, "p-attack"),
    actors: [view("alice-pc", "Alice", 2, 3), view("bruno", "Bruno", 5, 3), view(token.uuid, "Goblin A", 4, 3), view("guard", "Guard", 7, 3)],
  });
  await settle(client);
  assert.deepEqual(Standin.log.batches, [{ document: "Actor", ids: [alice.id, bruno.id, guard.id] }], "one batch of the three world actors");
  assert.deepEqual(Standin.log.updates.filter((u) => !u.batch).map((u) => u.token), [token.id], "the goblin's delta on its own");
  assert.equal(linked.actor, bruno, "the linked token's actor is the world actor");
  assert.deepEqual([alice, bruno, guard, token.actor].map((a) => a.flags.rollbridge.common.tracks[0].value), [2, 5, 7, 4]);
  assert.equal(goblin.flags.rollbridge, undefined, "the goblin's base actor untouched");
  assert.equal(Standin.log.messages.filter((m) => m.flags?.rollbridge?.seq === 3).length, 1, "one card");
});

test("a batch Foundry refuses as a whole (an actor no longer there): each written on its own, only that one fails, one notice", async () => {
  const { alice } = await cave(GM);
  const bruno = Standin.addActor({ _id: "fvttBruno0000001", name: "Bruno", flags: { rollbridge: { actorId: "bruno" } } });
  const guard = Standin.addActor({ _id: "fvttGuard0000002", name: "Guard", flags: { rollbridge: { actorId: "guard" } } });
  const gone = "Actor id [fvttGuard0000002] does not exist in the Actor collection.";
  guard.update = async () => {
    throw new Error(gone);
  };
  client = new FoundryClient();
  client.start();
  const ws = welcomeClient(client, { role: "gm", seq: 2 });
  const restore = refuseNextBatch(gone);
  const warned = await consoleWarnings(async () => {
    ws.receive({ type: "event", table: "t1", epoch: 1, seq: 3, kind: "adjusted", data: {},
      actors: [view("alice-pc", "Alice", 1, 3), view("guard", "Guard", 12, 3), view("bruno", "Bruno", 6, 3)] });
    await settle(client);
  }).finally(restore);
  assert.deepEqual(Standin.log.batches, [], "the batch wrote nothing");
  assert.deepEqual(Standin.log.updates.map((u) => u.actor).sort(), [alice.id, bruno.id].sort(), "Alice and Bruno written on their own");
  assert.equal(guard.flags.rollbridge.common, undefined, "the guard not");
  assert.equal(warned.filter((w) => w.includes("batch")).length, 1, "the console says the batch was refused");
  assert.deepEqual(Standin.log.notifications.filter((n) => n.level === "error").map((n) => n.text), [
    `rollbridge: Foundry did not take the new state of Guard: ${gone}`,
  ]);
});

test("the batch's answer says who was written: an actor Foundry left out gets no status effects and is named, unless it held its update already", async () => {
  const { alice } = await cave(GM);
  const guard = refusingGuard();
  const bruno = Standin.addActor({ _id: "fvttBruno0000001", name: "Bruno", flags: { rollbridge: { actorId: "bruno", seq: 3 } } });
  const statuses = [];
  const write = (actor, update) => ({ actor, name: actor.name, update: () => update, statuses: async () => statuses.push(actor.id) });
  // Foundry's diff leaves out a change that changes nothing (Bruno's seq is 3 already)
  const own = Actor.updateDocuments;
  Actor.updateDocuments = async (updates, operation) => own(updates.filter((u) => u._id !== bruno.id), operation);
  let failed;
  try {
    failed = await writeActors([
      write(alice, { "flags.rollbridge.seq": 4 }), write(guard, { "flags.rollbridge.seq": 4 }), write(bruno, { "flags.rollbridge.seq": 3 }),
    ]);
  } finally {
    Actor.updateDocuments = own;
  }
  assert.deepEqual(failed.map((f) => f.name), ["Guard"], "the guard, skipped by its data model, named; Bruno held his already");
  assert.deepEqual(statuses.sort(), [alice.id, bruno.id].sort(), "no status effects for the guard, whose update was not taken");
  assert.equal(alice.flags.rollbridge.seq, 4);
  assert.equal(guard.flags.rollbridge.seq, undefined);
});
