// What every client may read of an NPC (review 16): Foundry hands every actor —
// its flags and its system data — to every client, whatever the user's ownership,
// so the flags.rollbridge the active GM's client writes hold the players' view of
// each actor (the `players` copy of the GM's event: an NPC limited, its boxes and
// private numbers left out), never the GM's. The GM's own panels draw the GM's
// view from its live connection. A system mapping writes an NPC's GM's values only
// when the GM chose it by hand. An older module's flags (the GM's view) are never
// drawn and are replaced at the GM's connection. Runs the module's glue against
// the Foundry stand-in, v12 and v13; a player's client is a second stand-in page
// given the actor as the GM's client left it (as Foundry would send it).

import assert from "node:assert/strict";
import { after, test } from "node:test";

import { FoundryClient, PLAYERS_READS, PLAYERS_WAIT_MS } from "../../../adapters/foundry/module/scripts/foundry/client.mjs";
import { registerRelay } from "../../../adapters/foundry/module/scripts/foundry/relay.mjs";
import { registerSettings } from "../../../adapters/foundry/module/scripts/foundry/settings.mjs";
import { FakeClock, FakeWebSocket } from "./fakes.mjs";
import { panelHtml } from "./panels.mjs";
import { registerModuleSettings, rollEvent, settle, Standin, until, world } from "./standin.mjs";

const GM = "standinGM000001";
const PLAYER = "standinPlr00001";
const USERS = [{ _id: GM, name: "Gamemaster", isGM: true }, { _id: PLAYER, name: "Player" }];
const LIMITED = 1; // Foundry's DOCUMENT_OWNERSHIP_LEVELS.LIMITED
const OWNER = 3;

// What only the GM may read of the guard (sr2: its boxes, its Body in the note).
const PRIVATE = ["7 boxes", "Body 5", 'data-value="7"'];

const track = (key, value) => ({ key, label: key === "physical" ? "Physical" : "Stun", value, max: 10 });
const GM_GUARD = {
  status: "impaired", tracks: [track("physical", 7), track("stun", 2)],
  conditions: ["Physical: Serious (7 boxes)"], modifier: 3, modifier_note: "+3 TN (Body 5)",
};
// the guard as players see it (sr2's player_view: no boxes, "(hidden)" where the note had them)
const PLAYERS_GUARD = { status: "impaired", tracks: [], conditions: ["Physical: Serious"], modifier: 3, modifier_note: "+3 TN" };
/** The guard moderately hurt, as players see it. */
const MODERATE = { ...PLAYERS_GUARD, conditions: ["Physical: Moderate"] };
const TUKAN = { status: "impaired", tracks: [track("physical", 2), track("stun", 0)], conditions: [], modifier: 1, modifier_note: "+1 TN" };

/** An actor view as the server's Foundry adapter sends it (adapters/foundry/actors.py),
 * with the sr5 mapping's paths when its tracks make them (mappings.py). */
function view(id, name, common, { controllers = [], limited = false, seq = 1 } = {}) {
  const value = (key) => common.tracks.find((t) => t.key === key)?.value;
  const sr5 = value("physical") !== undefined && value("stun") !== undefined
    ? { sr5: { "system.track.physical.value": value("physical"), "system.track.stun.value": value("stun") } } : {};
  return {
    id, name, controllers, common, ...(limited ? { limited: true } : {}),
    foundry: { flags: { rollbridge: { actorId: id, table: "t1", seq, name, limited, common } }, systems: sr5 },
  };
}

/** An `adjusted` event as the GM's connection receives it: the GM's views, and the
 * players' copy of the same event (FoundryAdapter.public_view). */
function adjusted(seq, goblinUuid) {
  const gm = [view("guard", "Guard", GM_GUARD, { seq }), view("tukan", "Tukan", TUKAN, { controllers: ["alice"], seq }),
    view(goblinUuid, "Goblin A", GM_GUARD, { seq })];
  const players = [view("guard", "Guard", PLAYERS_GUARD, { limited: true, seq }), view("tukan", "Tukan", TUKAN, { controllers: ["alice"], seq }),
    view(goblinUuid, "Goblin A", PLAYERS_GUARD, { limited: true, seq })];
  const event = { type: "event", table: "t1", epoch: 1, seq, kind: "adjusted", data: { actor: "guard" } };
  return { ...event, actors: gm, players: { ...event, actors: players } };
}

const sr5 = () => ({ track: { physical: { value: 0 }, stun: { value: 0 } } });
/** The sr5 mapping as the welcome describes it (adapters/foundry/mappings.py describe). */
const SR5 = {
  id: "sr5", system: "shadowrun5e", label: "Shadowrun 5e (condition monitors and overflow)",
  tracks: { physical: "system.track.physical.value", stun: "system.track.stun.value", overflow: "system.track.physical.overflow.value" },
  conditions: {}, requires: ["physical", "stun"],
};

/** A world as `user` (v12 or v13) with the guard (an NPC the player may see LIMITED),
 * Tukan (the player's) and an unlinked goblin token, each linked or flagged as given. */
async function table(generation, user, { flags = {}, settings = {}, users = USERS, settingsBy = {} } = {}) {
  await world({ generation, users, user, system: "shadowrun5e", settings, settingsBy });
  await registerModuleSettings();
  const guard = Standin.addActor({ _id: "fvttGuard0000002", name: "Guard", type: "npc", system: sr5(),
    ownership: { [PLAYER]: LIMITED }, flags: { rollbridge: flags.guard ?? { actorId: "guard" } } });
  const tukan = Standin.addActor({ _id: "fvttTukan0000001", name: "Tukan", system: sr5(),
    ownership: { [PLAYER]: OWNER }, flags: { rollbridge: flags.tukan ?? { actorId: "tukan" } } });
  const goblin = Standin.addActor({ _id: "fvttGoblin000001", name: "Goblin", type: "npc", system: sr5(), ownership: { [PLAYER]: LIMITED } });
  const scene = Standin.addScene({ _id: "sceneCave0000001", name: "Cave" });
  const token = Standin.addToken(scene, { _id: "tokGoblinA000001", name: "Goblin A", actorId: goblin.id, actorLink: false });
  token.delta._source.flags = { rollbridge: flags.goblin ?? { actorId: token.uuid } };
  return { guard, tukan, token, other: flags.other ? Standin.addActor({ _id: "fvttOther0000003", name: "Other", flags: { rollbridge: flags.other } }) : null };
}

let client = null;
after(() => {
  client?.stop();
  Standin.uninstall();
});

/** This world's client, started and welcomed with `welcome`'s fields (its role, its
 * table's actors): the GM's unless the welcome says otherwise. */
function welcomedClient(welcome = {}) {
  client?.stop();
  client = new FoundryClient();
  client.start();
  const ws = FakeWebSocket.last();
  ws.open();
  const hello = ws.messages().find((m) => m.type === "hello");
  ws.receive({ type: "welcome", id: hello.id, protocol: 1, role: "gm", epoch: 1, seq: 0, locale: "en", table: { id: "t1", actors: [] }, ...welcome });
  return ws;
}

/** An sr5 world (`generation`) whose GM chose the sr5 mapping by hand, its client
 * welcomed and the guard adjusted at #1: the GM's values of every actor in system data. */
async function chosenSr5(generation) {
  const actors = await table(generation, GM, { settings: { "rollbridge.systemMapping": "sr5" } });
  // the settings as rollbridge.mjs registers them: the mapping's change tells the client
  registerSettings(() => {}, { onMapping: () => client?.mappingChanged?.() });
  const ws = welcomedClient({ foundry: { adapter: "test", mappings: [SR5] } });
  ws.receive(adjusted(1, actors.token.uuid));
  await settle(client);
  assert.deepEqual([boxes(actors.guard), boxes(actors.token.actor)], [[7, 2], [7, 2]], "the GM's values, as chosen");
  return actors;
}

/** An actor's sr5 physical and stun boxes in its system data. */
const boxes = (actor) => [actor.system.track.physical.value, actor.system.track.stun.value];

/**
 * An sr5 world under `auto` where the actor `name` (of table()) carries flags naming the
 * guard, marked `mapped` by the mapping `mapped` at #1, its sr5 boxes `[physical, stun]`
 * in system data; the GM's client welcomed as a resume at #2 (the guard's GM's view),
 * its `state` requests answered with the table at #1. Returns {actors, asked}.
 */
async function markedAtWelcome(generation, name, mapped, [physical, stun]) {
  const flags = { actorId: "guard", table: "t1", epoch: 1, seq: 1, mapped, name: "Guard", limited: true, view: "players", common: PLAYERS_GUARD };
  const actors = await table(generation, GM, { flags: { [name]: flags } });
  actors[name]._source.system = { track: { physical: { value: physical }, stun: { value: stun } } };
  const ws = welcomedClient({ seq: 2, resume: { recovered: true, missed: 0 }, foundry: { adapter: "test", mappings: [SR5] },
    table: { id: "t1", actors: [view("guard", "Guard", GM_GUARD, { seq: 2 })] } });
  const asked = answersState(ws, () => ({ id: "t1", epoch: 1, seq: 1, actors: adjusted(1, actors.token.uuid).actors }));
  await settle(client);
  return { actors, asked };
}

/** The GM's record of what a mapping chosen by hand wrote (the world setting `mapped`,
 * foundry/marks.mjs) for table t1: {actor UUID: "mapping actorId"}. */
function recorded() {
  const marks = game.settings.get("rollbridge", "mapped")?.marks ?? [];
  return Object.fromEntries(marks.filter((m) => m.table === "t1").map((m) => [m.key, `${m.mapping} ${m.actorId}`]));
}

/** `ws` answers each `state` the client sends with `at` as a server would, with the
 * table `tableAt(at)`; returns the seqs asked, in order. */
function answersState(ws, tableAt) {
  const asked = [];
  const send = ws.send.bind(ws);
  ws.send = (data) => {
    send(data);
    const message = JSON.parse(data);
    if (message.type !== "state") return;
    asked.push(message.at);
    setImmediate(() => ws.receive({ type: "result", id: message.id, table: tableAt(message.at) }));
  };
  return asked;
}

/** A world (`generation`) whose guard and other NPC are not linked yet, the GM's client
 * welcomed at #4 and its `state` answered with both in the GM's view. */
async function guardAndOther(generation) {
  const actors = await table(generation, GM, { flags: { guard: {}, other: {} } });
  const ws = welcomedClient({ seq: 4, foundry: { adapter: "test", mappings: [SR5] } });
  await settle(client);
  answersState(ws, () => ({ id: "t1", epoch: 1, seq: 4, actors: [view("guard", "Guard", GM_GUARD, { seq: 4 }), view("other", "Other", GM_GUARD, { seq: 4 })] }));
  return actors;
}

/** A reading connection (#readPlayersView) opened and answered with the snapshot
 * welcome of seq 4 a real server sends a GM's Foundry client: the guard in the GM's
 * view, and in `players` as players see it. */
function guardsSnapshot(reader) {
  reader.open();
  const hello = reader.messages().find((m) => m.type === "hello");
  reader.receive({ type: "welcome", id: hello.id, protocol: 1, role: "gm", epoch: 1, seq: 4, locale: "en", resume: { recovered: false },
    table: { id: "t1", actors: [view("guard", "Guard", GM_GUARD, { seq: 4 })] },
    players: { actors: [view("guard", "Guard", PLAYERS_GUARD, { limited: true, seq: 4 })] } });
}

/** What a player's client (another stand-in page of the same world) draws of the
 * guard and the goblin, given them as the GM's client left them. */
async function playerDraws(generation, { guard, token }) {
  const flags = { guard: structuredClone(guard.flags.rollbridge), goblin: structuredClone(token.delta._source.flags.rollbridge) };
  client?.stop();
  const seen = await table(generation, PLAYER, { flags });
  assert.equal(game.user.isGM, false);
  assert.ok(seen.guard.testUserPermission(game.user, LIMITED) && !seen.guard.isOwner, "the player may see the guard's sheet, LIMITED");
  return { guard: panelHtml(seen.guard), goblin: panelHtml(seen.token.actor) };
}

/** A panel's HTML without the note a GM's panel drawn from the flags has (foundry/hud.mjs). */
const NOTE = /<p class="rb-players-view">[^<]*<\/p>/g;
const withoutNote = (html) => html.replace(NOTE, "");

const holdsNone = (text, what) => {
  for (const detail of PRIVATE) assert.ok(!text.includes(detail), `${what} holds the GM's "${detail}": ${text}`);
};

for (const generation of [12, 13]) {
  test(`v${generation}: a player's client drawing an NPC's panel draws the players' view, never the GM's private values`, async () => {
    const actors = await table(generation, GM);
    const ws = welcomedClient();
    ws.receive(adjusted(1, actors.token.uuid));
    await settle(client);
    // the GM's client draws the GM's view from its live connection
    const gmPanel = panelHtml(actors.guard, client.views);
    for (const detail of PRIVATE) assert.ok(gmPanel.includes(detail), `the GM's panel shows "${detail}"`);
    assert.ok(panelHtml(actors.token.actor, client.views).includes('data-value="7"'));
    // a second GM, or this one before connecting, draws the flags (checked below: the players' view)
    const flagsOnly = panelHtml(actors.guard);
    const written = [["the guard's flags", structuredClone(actors.guard.flags)], ["the goblin's delta", structuredClone(actors.token.delta._source.flags)]];
    const system = [actors.guard, actors.token.actor, actors.tukan].map((actor) => actor.system.track.physical.value);
    const tukan = structuredClone(actors.tukan.flags.rollbridge.common);
    // a player's client
    const drawn = await playerDraws(generation, actors);
    holdsNone(drawn.guard, "the player's guard panel");
    holdsNone(drawn.goblin, "the player's goblin panel");
    assert.ok(drawn.guard.includes("Physical: Serious") && drawn.guard.includes("+3 TN"), drawn.guard);
    assert.equal(flagsOnly.match(NOTE)?.length, 2, "both of the GM's panels say they show the players' view");
    assert.equal(withoutNote(flagsOnly), drawn.guard, "a GM without the live view draws what the player draws");
    // every client receives the flags: the players' view alone
    for (const [what, flags] of written) {
      holdsNone(JSON.stringify(flags), what);
      assert.equal(flags.rollbridge.view, "players");
      assert.equal(flags.rollbridge.limited, true);
      assert.deepEqual(flags.rollbridge.common, PLAYERS_GUARD);
    }
    // the player's character: the players see it in full
    assert.deepEqual(tukan, TUKAN);
    // `auto` picked sr5: the system data (every client's too) gets no value the players'
    // view hides (the guard's and the goblin's boxes), a player's character's in full
    assert.deepEqual(system, [0, 0, 2]);
  });

  test(`v${generation}: without the players' view at hand (a snapshot) an NPC's flags hold no state; a mapping the GM chose writes its values`, async () => {
    const actors = await table(generation, GM, { settings: { "rollbridge.systemMapping": "sr5" } });
    // a first connection: the welcome's table is a snapshot, in the GM's view only
    welcomedClient({ seq: 4, table: { id: "t1", actors: [view("guard", "Guard", GM_GUARD, { seq: 4 }), view("tukan", "Tukan", TUKAN, { controllers: ["alice"], seq: 4 })] } });
    await settle(client);
    const flags = actors.guard.flags.rollbridge;
    holdsNone(JSON.stringify(flags), "the guard's flags");
    assert.equal(flags.common, null, "withheld until an event brings its players' view");
    assert.deepEqual([flags.withheld, flags.limited, flags.view, flags.name], [true, true, "players", "Guard"]);
    assert.deepEqual(actors.tukan.flags.rollbridge.common, TUKAN);
    // sr5 chosen by hand: the GM asked for the system's own sheet to show the NPC's boxes
    assert.equal(actors.guard.system.track.physical.value, 7);
    assert.ok(panelHtml(actors.guard, client.views).includes('data-value="7"'), "the GM draws the live view");
    const drawn = await playerDraws(generation, actors);
    assert.equal(drawn.guard, "", "the player's client draws nothing of the guard");
  });

  test(`v${generation}: a snapshot welcome whose players' copy holds an NPC writes its players' view, not withheld`, async () => {
    // the server's Foundry dialect sends a GM's welcome `players`: the NPCs as players
    // see them (a restored table, a first connection: the table is the GM's view only)
    const actors = await table(generation, GM);
    welcomedClient({ seq: 4, foundry: { adapter: "test", mappings: [SR5] },
      table: { id: "t1", actors: [view("guard", "Guard", GM_GUARD, { seq: 4 }), view("tukan", "Tukan", TUKAN, { controllers: ["alice"], seq: 4 })] },
      players: { actors: [view("guard", "Guard", PLAYERS_GUARD, { limited: true, seq: 4 })] } });
    await settle(client);
    assert.deepEqual(actors.guard.flags.rollbridge, { actorId: "guard", table: "t1", seq: 4, epoch: 1, name: "Guard", limited: true, common: PLAYERS_GUARD, view: "players" });
    assert.equal(actors.guard.system.track.physical.value, 0, "auto writes no NPC's boxes");
    const drawn = await playerDraws(generation, actors);
    assert.ok(drawn.guard.includes("Physical: Serious"), `a player without a connection sees the guard at once: ${drawn.guard}`);
    holdsNone(drawn.guard, "the player's guard panel");
  });

  test(`v${generation}: an upgraded world: an older module's flags (the GM's view) are never drawn, and are replaced at the GM's connection`, async () => {
    const old = (actorId, table = "t1") => ({ actorId, table, seq: 3, name: "Guard", limited: false, common: structuredClone(GM_GUARD) });
    const flags = { guard: old("guard"), tukan: { ...old("tukan"), name: "Tukan", common: structuredClone(TUKAN) }, other: old("x", "t0") };
    // before the GM connects, a player's client draws none of it
    await table(generation, PLAYER, { flags });
    assert.equal(panelHtml(game.actors.get("fvttGuard0000002")), "");
    // the GM's client resumes from its cursor (recovered: no snapshot is written)
    const actors = await table(generation, GM, { flags, settings: { "rollbridge.cursor": { table: "t1", epoch: 1, seq: 3 } } });
    const ws = welcomedClient({ seq: 3, resume: { recovered: true, missed: 0 },
      table: { id: "t1", actors: [view("guard", "Guard", GM_GUARD, { seq: 3 }), view("tukan", "Tukan", TUKAN, { controllers: ["alice"], seq: 3 })] } });
    await settle(client);
    assert.equal(client.connection.stats.recovered, 1, "a recovered resume");
    for (const actor of [actors.guard, actors.other]) {
      holdsNone(JSON.stringify(actor.flags), `${actor.name}'s flags`);
      assert.equal(actor.flags.rollbridge.common, null);
      assert.equal(actor.flags.rollbridge.withheld, true);
    }
    assert.equal(actors.other.flags.rollbridge.table, "t0", "another table's actor keeps its link");
    assert.deepEqual(actors.tukan.flags.rollbridge.common, TUKAN);
    assert.equal(actors.tukan.flags.rollbridge.view, "players");
    // the next event brings the guard's players' view: written whole, the withheld mark gone
    ws.receive(adjusted(4, actors.token.uuid));
    await settle(client);
    assert.deepEqual(actors.guard.flags.rollbridge, { actorId: "guard", table: "t1", seq: 4, epoch: 1, name: "Guard", limited: true, common: PLAYERS_GUARD, view: "players" });
  });

  test(`v${generation}: an upgraded world's recovered resume: the NPCs it withholds get their players' view from a snapshot read once`, async () => {
    const old = (actorId, name, common) => ({ actorId, table: "t1", seq: 3, name, limited: false, common: structuredClone(common) });
    // the goblin is an unlinked token: its flags are its delta's, its id the token's uuid
    const goblinA = `Scene.sceneCave0000001.Token.tokGoblinA000001`;
    const flags = { guard: old("guard", "Guard", GM_GUARD), tukan: old("tukan", "Tukan", TUKAN), goblin: old(goblinA, "Goblin A", GM_GUARD) };
    const actors = await table(generation, GM, { flags, settings: { "rollbridge.cursor": { table: "t1", epoch: 1, seq: 3 } } });
    assert.equal(actors.token.uuid, goblinA);
    const tableNow = [view("guard", "Guard", GM_GUARD, { seq: 3 }), view("tukan", "Tukan", TUKAN, { controllers: ["alice"], seq: 3 }),
      view(goblinA, "Goblin A", GM_GUARD, { seq: 3 })];
    const main = welcomedClient({ seq: 3, resume: { recovered: true, missed: 0 }, table: { id: "t1", actors: tableNow } });
    await settle(client);
    assert.equal(actors.guard.flags.rollbridge.withheld, true, "withheld at first: the resume's welcome has no players' view");
    // the module opens one connection of its own with no resume: a snapshot welcome
    const reader = FakeWebSocket.last();
    assert.notEqual(reader, main, "a second connection");
    reader.open();
    const hello = reader.messages().find((m) => m.type === "hello");
    assert.equal(hello.resume, undefined, "no resume: the server answers a snapshot");
    // meanwhile an event brought the goblin's players' view (seq 4): the snapshot's older one must not replace it
    const goblin4 = { type: "event", table: "t1", epoch: 1, seq: 4, kind: "adjusted", data: { actor: goblinA },
      actors: [view(goblinA, "Goblin A", GM_GUARD, { seq: 4 })] };
    main.receive({ ...goblin4, players: { ...goblin4, actors: [view(goblinA, "Goblin A", MODERATE, { limited: true, seq: 4 })] } });
    await settle(client);
    reader.receive({ type: "welcome", id: hello.id, protocol: 1, role: "gm", epoch: 1, seq: 3, locale: "en", resume: { recovered: false },
      table: { id: "t1", actors: tableNow },
      players: { actors: [view("guard", "Guard", PLAYERS_GUARD, { limited: true, seq: 3 }), view(goblinA, "Goblin A", PLAYERS_GUARD, { limited: true, seq: 3 })] } });
    await settle(client);
    assert.deepEqual(actors.guard.flags.rollbridge, { actorId: "guard", table: "t1", seq: 3, epoch: 1, name: "Guard", limited: true, common: PLAYERS_GUARD, view: "players" });
    holdsNone(JSON.stringify(actors.guard.flags), "the guard's flags");
    assert.deepEqual(actors.token.delta._source.flags.rollbridge.common, MODERATE, "the goblin keeps the later event's view");
    assert.equal(actors.token.delta._source.flags.rollbridge.seq, 4);
    assert.ok(reader.closedWith, "the reading connection is closed once its welcome came");
    assert.deepEqual(reader.messages().map((m) => m.type), ["hello"], "it asks nothing more");
    assert.equal(FakeWebSocket.instances.length, 2, "read once");
    // the GM's next page (a reload: a recovered resume again) finds this version's flags
    // only, so it opens no reader: the extra connection is the upgrade's, once per world
    welcomedClient({ seq: 4, resume: { recovered: true, missed: 0 }, table: { id: "t1", actors: tableNow } });
    await settle(client);
    assert.equal(FakeWebSocket.instances.length, 3, "the page's own connection alone");
  });

  test(`v${generation}: an NPC the GM maps by hand (linkActor) shows its state at once: its players' view read once, a mapping chosen by hand its GM's values`, async () => {
    // the guard's Foundry actor not linked yet (a GM's macro links it to the server's NPC)
    const actors = await table(generation, GM, { flags: { guard: {} }, settings: { "rollbridge.systemMapping": "sr5" } });
    const ws = welcomedClient({ seq: 4, foundry: { adapter: "test", mappings: [SR5] } });
    await settle(client);
    const asked = answersState(ws, () => ({ id: "t1", epoch: 1, seq: 4, actors: [view("guard", "Guard", GM_GUARD, { seq: 4 })] }));
    await client.linkActor(actors.guard, "guard");
    await settle(client);
    assert.deepEqual(asked, [undefined], "the table read once, as it stands");
    assert.deepEqual(boxes(actors.guard), [7, 2], "sr5 chosen by hand: the GM's values at once, not at the guard's next change");
    const withheld = actors.guard.flags.rollbridge;
    assert.deepEqual([withheld.actorId, withheld.seq, withheld.epoch, withheld.withheld], ["guard", 4, 1, true]);
    holdsNone(JSON.stringify(withheld), "the guard's flags");
    // its players' view: one connection of the module's own, whose snapshot welcome carries it
    const reader = FakeWebSocket.last();
    assert.notEqual(reader, ws, "a second connection");
    guardsSnapshot(reader);
    await settle(client);
    const flags = actors.guard.flags.rollbridge;
    assert.deepEqual([flags.common, flags.withheld, flags.view, flags.seq], [PLAYERS_GUARD, undefined, "players", 4]);
    assert.ok(reader.closedWith, "the reading connection is closed once its welcome came");
    const drawn = await playerDraws(generation, actors);
    assert.ok(drawn.guard.includes("Physical: Serious"), `a player sees the guard's state at once: ${drawn.guard}`);
    holdsNone(drawn.guard, "the player's guard panel");
  });

  test(`v${generation}: a player's character the GM maps by hand (linkActor) shows its state at once, with no second connection`, async () => {
    const actors = await table(generation, GM, { flags: { tukan: {} } });
    const ws = welcomedClient({ seq: 4, foundry: { adapter: "test", mappings: [SR5] } });
    await settle(client);
    answersState(ws, () => ({ id: "t1", epoch: 1, seq: 4, actors: [view("tukan", "Tukan", TUKAN, { controllers: ["alice"], seq: 4 })] }));
    const before = FakeWebSocket.instances.length;
    await client.linkActor(actors.tukan, "tukan");
    await settle(client);
    assert.deepEqual(actors.tukan.flags.rollbridge.common, TUKAN);
    assert.equal(actors.tukan.system.track.physical.value, 2, "auto: players see it in full");
    assert.equal(FakeWebSocket.instances.length, before, "nothing more to read");
  });

  test(`v${generation}: NPCs mapped one after another share one players' view read: the next is written from it and the events since, until a gap or a settings change`, async () => {
    const actors = await guardAndOther(generation);
    const before = FakeWebSocket.instances.length;
    await client.linkActor(actors.guard, "guard");
    await settle(client);
    assert.equal(FakeWebSocket.instances.length, before + 1, "the first link reads the players' view");
    snapshotOf(FakeWebSocket.last(), 1, ["guard", "other"]);
    await settle(client);
    assert.deepEqual(actors.guard.flags.rollbridge.common, PLAYERS_GUARD);
    // the read has ended; the GM maps the other NPC a while later: until 7 December 2026,
    // night, a reading connection of its own (hello and a whole table's snapshot each)
    await client.linkActor(actors.other, "other");
    await settle(client);
    assert.equal(FakeWebSocket.instances.length, before + 1, "no second reading connection");
    assert.deepEqual([actors.other.flags.rollbridge.common, actors.other.flags.rollbridge.withheld], [PLAYERS_GUARD, undefined], "its players' view, not withheld");
    holdsNone(JSON.stringify(actors.other.flags.rollbridge), "the other NPC's flags");
    // an event of the GM's own connection (seq 5) keeps it current: its players' copy
    const ws = FakeWebSocket.instances[before - 1];
    const seen = { ...PLAYERS_GUARD, conditions: ["Physical: Deadly"] };
    const gmView = { ...GM_GUARD, conditions: ["Physical: Deadly (10 boxes)"] };
    const event = { type: "event", table: "t1", epoch: 1, seq: 5, kind: "adjusted", data: { actor: "other" } };
    ws.receive({ ...event, actors: [view("other", "Other", gmView, { seq: 5 })], players: { ...event, actors: [view("other", "Other", seen, { limited: true, seq: 5 })] } });
    await settle(client);
    actors.other._source.flags.rollbridge = {}; // unlinked meanwhile
    await client.linkActor(actors.other, "other");
    await settle(client);
    assert.equal(FakeWebSocket.instances.length, before + 1);
    assert.deepEqual(actors.other.flags.rollbridge.common, seen, "the players' view of seq 5");
    // a settings change may show or hide what it does not list: the next link reads again
    const settings = { type: "event", table: "t1", epoch: 1, seq: 6, kind: "settings", data: {}, actors: [] };
    ws.receive({ ...settings, players: { ...settings, actors: [] } });
    await settle(client);
    actors.other._source.flags.rollbridge = {};
    await client.linkActor(actors.other, "other");
    await settle(client);
    assert.equal(FakeWebSocket.instances.length, before + 2, "read again after the settings change");
    assert.ok(client.playersReader, "a read open for it");
    assert.equal(actors.other.flags.rollbridge.withheld, true, "withheld until that read answers");
  });

  test(`v${generation}: NPCs mapped while their players' view is read share its connection; refused (too many with the GM's token) it closes for good, and a later mapping reads again`, async () => {
    const actors = await guardAndOther(generation);
    const before = FakeWebSocket.instances.length;
    await client.linkActor(actors.guard, "guard");
    await client.linkActor(actors.other, "other");
    await settle(client);
    assert.equal(FakeWebSocket.instances.length, before + 1, "one reading connection for both");
    const reader = FakeWebSocket.last();
    reader.open();
    const hello = reader.messages().find((m) => m.type === "hello");
    assert.equal(hello.resume, undefined, "a snapshot: no resume");
    // a hosted server's --max-connections-per-token (docs/operations.md), then its close 1013
    reader.receive({ type: "error", id: hello.id, code: "too_many_connections", message: "too many connections with this token", details: { limit: 8 } });
    reader.drop(1013);
    await settle(client);
    assert.ok(reader.closedWith, "the reading connection is closed");
    assert.equal(client.playersReader, null, "and not tried again");
    assert.deepEqual([actors.guard.flags.rollbridge.withheld, actors.other.flags.rollbridge.withheld], [true, true], "both withheld until their next event");
    holdsNone(JSON.stringify(actors.guard.flags.rollbridge), "the guard's flags");
    // mapped again: a new reading connection, which writes it
    await client.linkActor(actors.guard, "guard");
    await settle(client);
    const again = FakeWebSocket.last();
    assert.equal(FakeWebSocket.instances.length, before + 2);
    guardsSnapshot(again);
    await settle(client);
    assert.deepEqual(actors.guard.flags.rollbridge.common, PLAYERS_GUARD);
    assert.ok(again.closedWith, "closed once its welcome came");
  });

  test(`v${generation}: linking one actor at a table of 200 (linkActor) reads nothing: the view the GM's connection holds is written`, async () => {
    const actors = await table(generation, GM, { flags: { tukan: {}, guard: {} } });
    // 198 more NPCs beside Tukan and the guard: a `state` read would answer all 200
    const crowd = Array.from({ length: 198 }, (_, i) => view(`npc-${i}`, `NPC ${i}`, GM_GUARD, { seq: 4 }));
    const all = [view("tukan", "Tukan", TUKAN, { controllers: ["alice"], seq: 4 }), view("guard", "Guard", GM_GUARD, { seq: 4 }), ...crowd];
    const ws = welcomedClient({ seq: 4, foundry: { adapter: "test", mappings: [SR5] }, table: { id: "t1", actors: all } });
    await settle(client);
    // the guard hurt more at #5: the view held is the newest event's, not the welcome's
    ws.receive({ type: "event", table: "t1", epoch: 1, seq: 5, kind: "adjusted", data: { actor: "guard" },
      actors: [view("guard", "Guard", { ...GM_GUARD, tracks: [track("physical", 9), track("stun", 2)] }, { seq: 5 })] });
    await settle(client);
    const asked = answersState(ws, () => ({ id: "t1", epoch: 1, seq: 5, actors: all }));
    const sent = ws.messages().length;
    await client.linkActor(actors.tukan, "tukan");
    await settle(client);
    assert.deepEqual(asked, [], "no `state` read for one actor");
    assert.equal(ws.messages().length, sent, "nothing sent at all");
    assert.deepEqual(actors.tukan.flags.rollbridge.common, TUKAN, "its state at once");
    assert.equal(actors.tukan.system.track.physical.value, 2, "auto: players see it in full");
    await client.linkActor(actors.guard, "guard");
    await settle(client);
    assert.deepEqual(asked, [], "nor for an NPC");
    const flags = actors.guard.flags.rollbridge;
    assert.deepEqual([flags.actorId, flags.seq, flags.withheld], ["guard", 5, true], "the newest view, withheld until its players' view comes");
    holdsNone(JSON.stringify(flags), "the guard's flags");
  });

  test(`v${generation}: the view a link writes is the connection's latest: none for an actor removed since, the undo's after its removal is undone, the new epoch's after a restore`, async () => {
    const actors = await table(generation, GM, { flags: { tukan: {} } });
    const ws = welcomedClient({ seq: 4, foundry: { adapter: "test", mappings: [SR5] }, table: { id: "t1", actors: [view("tukan", "Tukan", TUKAN, { controllers: ["alice"], seq: 4 })] } });
    await settle(client);
    const asked = answersState(ws, () => ({ id: "t1", epoch: 1, seq: 5, actors: [view("tukan", "Tukan", TUKAN, { controllers: ["alice"], seq: 4 })] }));
    ws.receive({ type: "event", table: "t1", epoch: 1, seq: 5, kind: "actor.removed", data: { actor: "tukan" }, actors: [{ id: "tukan", removed: true }] });
    await settle(client);
    await client.linkActor(actors.tukan, "tukan");
    await settle(client);
    assert.deepEqual([asked, actors.tukan.flags.rollbridge.common], [[], undefined], "removed since: nothing written, nothing read");
    const back = { ...TUKAN, tracks: [track("physical", 3), track("stun", 0)] };
    ws.receive({ type: "event", table: "t1", epoch: 1, seq: 6, kind: "undo", data: { undone: 5 },
      actors: [{ ...view("tukan", "Tukan", back, { controllers: ["alice"], seq: 6 }), index: 0 }] });
    await settle(client);
    await client.linkActor(actors.tukan, "tukan");
    await settle(client);
    assert.deepEqual([asked, actors.tukan.flags.rollbridge.common, actors.tukan.flags.rollbridge.seq], [[], back, 6], "the undo's view");
    // a restore while connected: the connection resumes into a snapshot of the new epoch
    ws.drop();
    await settle(client);
    client.nudge();
    const again = FakeWebSocket.last();
    again.open();
    const hello = again.messages().find((m) => m.type === "hello");
    const restored = { ...TUKAN, tracks: [track("physical", 1), track("stun", 1)] };
    again.receive({ type: "welcome", id: hello.id, protocol: 1, role: "gm", epoch: 9, seq: 3, locale: "en", resume: { recovered: false },
      foundry: { adapter: "test", mappings: [SR5] }, table: { id: "t1", actors: [view("tukan", "Tukan", restored, { controllers: ["alice"], seq: 3 })] } });
    await settle(client);
    actors.tukan._source.flags.rollbridge = { actorId: "x" }; // unlinked meanwhile (the snapshot wrote it)
    await client.linkActor(actors.tukan, "tukan");
    await settle(client);
    const flags = actors.tukan.flags.rollbridge;
    assert.deepEqual([flags.common, flags.epoch, flags.seq], [restored, 9, 3], "the new epoch's view");
    assert.ok(!again.messages().some((m) => m.type === "state"), "nothing read");
  });

  test(`v${generation}: a mapping made while the GM's connection is down (linkActor) returns at once; the state is written when it is back`, async () => {
    const actors = await table(generation, GM, { flags: { tukan: {} } });
    const ws = welcomedClient({ seq: 4, foundry: { adapter: "test", mappings: [SR5] } });
    await settle(client);
    ws.drop();
    let linked = false;
    client.linkActor(actors.tukan, "tukan").then(() => { linked = true; });
    // before, the call waited for the connection (its `state` read queued until then)
    await until(() => linked, "linkActor returned while the connection was down");
    assert.equal(actors.tukan.flags.rollbridge.actorId, "tukan", "linked at once");
    assert.equal(actors.tukan.flags.rollbridge.common, undefined, "its state not read yet");
    // the connection back (a recovered resume): the read made then writes it
    client.nudge();
    const back = FakeWebSocket.last();
    assert.notEqual(back, ws);
    const asked = answersState(back, () => ({ id: "t1", epoch: 1, seq: 4, actors: [view("tukan", "Tukan", TUKAN, { controllers: ["alice"], seq: 4 })] }));
    back.open();
    const hello = back.messages().find((m) => m.type === "hello");
    back.receive({ type: "welcome", id: hello.id, protocol: 1, role: "gm", epoch: 1, seq: 4, locale: "en", resume: { recovered: true, missed: 0 },
      table: { id: "t1", actors: [view("tukan", "Tukan", TUKAN, { controllers: ["alice"], seq: 4 })] }, foundry: { adapter: "test", mappings: [SR5] } });
    await until(() => asked.length, "the table read once the connection is back");
    await settle(client);
    assert.deepEqual(actors.tukan.flags.rollbridge.common, TUKAN, "written once the connection is back");
  });

  test(`v${generation}: a player's client with its own connection draws the newer of its connection's view and the flags`, async () => {
    // the guard lightly hurt, as the player's connection last saw it (seq 1)
    const LIGHT = { ...PLAYERS_GUARD, conditions: ["Physical: Light"], modifier: 1, modifier_note: "+1 TN" };
    const mine = view("guard", "Guard", LIGHT, { limited: true, seq: 1 });
    // then the GM's client wrote the guard's players' view of seq 2 (seriously hurt) while
    // this player's connection was down or slower than Foundry's update of the actor
    const written = { ...view("guard", "Guard", PLAYERS_GUARD, { limited: true, seq: 2 }).foundry.flags.rollbridge, epoch: 1, view: "players" };
    const actors = await table(generation, PLAYER, { flags: { guard: written } });
    // a player's client with its own connection, the guard as the server shows it to players
    const ws = welcomedClient({ role: "player", seq: 1, table: { id: "t1", actors: [mine] } });
    await settle(client);
    assert.equal(client.views.get("guard").common.conditions[0], "Physical: Light", "the connection's view is the older one");
    const stale = panelHtml(actors.guard, client.views);
    assert.ok(stale.includes("Physical: Serious") && !stale.includes("Physical: Light"), `the flags' newer state: ${stale}`);
    // the player's connection catches up (seq 2) and brings a later event (seq 3): its
    // view is drawn again
    const event = (seq, common) => ({ type: "event", table: "t1", epoch: 1, seq, kind: "adjusted", data: { actor: "guard" },
      actors: [view("guard", "Guard", common, { limited: true, seq })] });
    ws.receive(event(2, PLAYERS_GUARD));
    ws.receive(event(3, { ...LIGHT, conditions: ["Physical: Moderate"] }));
    await settle(client);
    assert.ok(panelHtml(actors.guard, client.views).includes("Physical: Moderate"));
    holdsNone(panelHtml(actors.guard, client.views), "the player's guard panel");
  });

  test(`v${generation}: the newer of a player's own view and the flags is the later epoch's first, whatever the seqs`, async () => {
    const flagsAt = (common, epoch, seq) => ({ ...view("guard", "Guard", common, { limited: true, seq }).foundry.flags.rollbridge, epoch, view: "players" });
    // this player's connection holds its view of epoch 1, seq 5 (the flags the same)
    let actors = await table(generation, PLAYER, { flags: { guard: flagsAt(MODERATE, 1, 5) } });
    welcomedClient({ role: "player", epoch: 1, seq: 5, table: { id: "t1", actors: [view("guard", "Guard", MODERATE, { limited: true, seq: 5 })] } });
    await settle(client);
    // then the table was restored (epoch 2, its seqs counted afresh) while this player's
    // connection was down: the GM's client wrote the guard's players' view of epoch 2,
    // seq 1, and Foundry's update of the actor reached this page
    actors.guard._source.flags.rollbridge = flagsAt(PLAYERS_GUARD, 2, 1);
    const restored = panelHtml(actors.guard, client.views);
    assert.ok(restored.includes("Physical: Serious") && !restored.includes("Physical: Moderate"), `the restored epoch's flags: ${restored}`);
    // the other way round: the flags of epoch 1, seq 5, the player's connection already at epoch 2, seq 2
    actors = await table(generation, PLAYER, { flags: { guard: flagsAt(PLAYERS_GUARD, 1, 5) } });
    welcomedClient({ role: "player", epoch: 2, seq: 2, table: { id: "t1", actors: [view("guard", "Guard", MODERATE, { limited: true, seq: 2 })] } });
    await settle(client);
    const own = panelHtml(actors.guard, client.views);
    assert.ok(own.includes("Physical: Moderate") && !own.includes("Physical: Serious"), `the connection's view of the later epoch: ${own}`);
    holdsNone(own, "the player's guard panel");
  });

  test(`v${generation}: flags of an epoch the player's connection saw before its own are older, whatever the numbers`, async () => {
    // the GM restored a backup (epoch 5000), the GM's client wrote the guard's players'
    // view of it; the GM restored the backup again a minute later, and that restore's
    // epoch came out smaller (new_epoch's random spread: 3000). No GM is connected since.
    const abandoned = { ...view("guard", "Guard", PLAYERS_GUARD, { limited: true, seq: 9 }).foundry.flags.rollbridge, epoch: 5000, view: "players" };
    const actors = await table(generation, PLAYER, { flags: { guard: abandoned } });
    const first = welcomedClient({ role: "player", epoch: 5000, seq: 9, table: { id: "t1", actors: [view("guard", "Guard", PLAYERS_GUARD, { limited: true, seq: 9 })] } });
    await settle(client);
    // the second restore: the connection drops, and resumes into epoch 3000 (a snapshot)
    first.drop();
    client.nudge();
    const second = FakeWebSocket.last();
    assert.notEqual(second, first, "reconnected at once");
    second.open();
    const hello = second.messages().find((m) => m.type === "hello");
    second.receive({ type: "welcome", id: hello.id, protocol: 1, role: "player", epoch: 3000, seq: 2, locale: "en", resume: { recovered: false },
      table: { id: "t1", actors: [view("guard", "Guard", MODERATE, { limited: true, seq: 2 })] } });
    await settle(client);
    const drawn = panelHtml(actors.guard, client.views);
    assert.ok(drawn.includes("Physical: Moderate") && !drawn.includes("Physical: Serious"), `the table as restored the second time: ${drawn}`);
  });

  test(`v${generation}: a page loaded after two restores of one backup draws its connection's view, not the flags of the first`, async () => {
    // the GM restored a backup (epoch 5000) and the GM's client wrote the guard's players'
    // view of it; the GM restored the backup again a minute later, and that restore's
    // epoch came out smaller (3000). No GM's client connected since: its flags stay of 5000.
    const abandoned = { ...view("guard", "Guard", PLAYERS_GUARD, { limited: true, seq: 9 }).foundry.flags.rollbridge, epoch: 5000, view: "players" };
    // a player whose page loads now: its connection's first welcome is of epoch 3000
    const actors = await table(generation, PLAYER, { flags: { guard: abandoned } });
    welcomedClient({ role: "player", epoch: 3000, seq: 2, table: { id: "t1", actors: [view("guard", "Guard", MODERATE, { limited: true, seq: 2 })] } });
    await settle(client);
    const drawn = panelHtml(actors.guard, client.views);
    assert.ok(drawn.includes("Physical: Moderate") && !drawn.includes("Physical: Serious"), `the table as restored the second time: ${drawn}`);
    // a later restore whose flags come after the welcome (this connection down meanwhile):
    // an epoch the connection never saw, the larger number taken for the later
    actors.guard._source.flags.rollbridge = { ...abandoned, epoch: 4000, seq: 1 };
    const later = panelHtml(actors.guard, client.views);
    assert.ok(later.includes("Physical: Serious") && !later.includes("Physical: Moderate"), `the flags written after the welcome: ${later}`);
  });

  test(`v${generation}: flags an older module wrote (no epoch) never win over the view of a connection, whatever their seq`, async () => {
    // the previous module wrote the players' view without an epoch at seq 40; the world
    // was upgraded and the table restored from an older backup (epoch 7000, stored at seq 12)
    const older = { ...view("guard", "Guard", PLAYERS_GUARD, { limited: true, seq: 40 }).foundry.flags.rollbridge, view: "players" };
    const actors = await table(generation, PLAYER, { flags: { guard: older } });
    welcomedClient({ role: "player", epoch: 7000, seq: 12, table: { id: "t1", actors: [view("guard", "Guard", MODERATE, { limited: true, seq: 12 })] } });
    await settle(client);
    const drawn = panelHtml(actors.guard, client.views);
    assert.ok(drawn.includes("Physical: Moderate") && !drawn.includes("Physical: Serious"), `the connection's view: ${drawn}`);
  });

  test(`v${generation}: a GM's panel drawn from the flags (a reload before the welcome) says it shows the players' view`, async () => {
    const written = { ...view("guard", "Guard", PLAYERS_GUARD, { limited: true, seq: 4 }).foundry.flags.rollbridge, epoch: 1, view: "players" };
    const withheld = { actorId: "tukan", table: "t1", seq: 4, epoch: 1, name: "Tukan", common: null, limited: true, view: "players", withheld: true };
    const actors = await table(generation, GM, { flags: { guard: written, tukan: withheld } });
    const said = game.i18n.localize("ROLLBRIDGE.Panel.PlayersView");
    assert.notEqual(said, "ROLLBRIDGE.Panel.PlayersView", "the note is a declared message");
    const note = said.replaceAll("'", "&#39;"); // as the panel's HTML writes it
    // the GM's page reloaded: its client has no connection yet, its panels draw the flags
    client?.stop();
    client = new FoundryClient();
    const before = panelHtml(actors.guard, client.views);
    assert.ok(before.includes("Physical: Serious") && before.includes(note), `the players' view, said so: ${before}`);
    assert.ok(panelHtml(actors.tukan, client.views).includes(note), "an actor withheld there: the note alone");
    // the welcome brings the GM's own view: drawn, no note
    welcomedClient({ seq: 4, table: { id: "t1", actors: [view("guard", "Guard", GM_GUARD, { seq: 4 })] } });
    await settle(client);
    const after = panelHtml(actors.guard, client.views);
    assert.ok(after.includes('data-value="7"') && !after.includes(note), `the GM's view: ${after}`);
    // a player's panel drawn from the same flags has no such note (it is the player's own view)
    client.stop();
    const seen = await table(generation, PLAYER, { flags: { guard: written } });
    const drawn = panelHtml(seen.guard);
    assert.ok(drawn.includes("Physical: Serious") && !drawn.match(NOTE), drawn);
  });

  test(`v${generation}: a second GM's panel says its client never gets the GM's view, and whose client does`, async () => {
    const written = { ...view("guard", "Guard", PLAYERS_GUARD, { limited: true, seq: 4 }).foundry.flags.rollbridge, epoch: 1, view: "players" };
    client?.stop();
    client = null;
    // the other GM ("B…" sorts first by code unit) is the active GM: this GM's client does not connect
    const users = [...USERS, { _id: "BstandinGM00002", name: "Second GM", isGM: true, role: 4, active: true }];
    await world({ generation, users, user: GM, system: "shadowrun5e" });
    await registerModuleSettings();
    const guard = Standin.addActor({ _id: "fvttGuard0000002", name: "Guard", type: "npc", system: sr5(), flags: { rollbridge: written } });
    assert.equal(game.users.activeGM?.id, "BstandinGM00002");
    const drawn = panelHtml(guard);
    const note = drawn.match(NOTE)?.[0] ?? "";
    assert.ok(drawn.includes("Physical: Serious") && note, `the players' view, said so: ${drawn}`);
    assert.ok(!note.includes("yet") && note.includes("Second GM"), `not "yet": this client never connects; the active GM named: ${note}`);
    assert.ok(!note.includes("{gm}"), note);
  });

  test(`v${generation}: an unlinked token withheld shows nothing of its base actor's state through its delta`, async () => {
    // Goblin A's delta holds its players' view; its base actor is on the table too
    const flags = (actorId, name, common, seq) => ({ actorId, table: "t1", seq, name, limited: true, view: "players", common });
    const DEADLY = { ...PLAYERS_GUARD, conditions: ["Physical: Deadly"] };
    const goblinUuid = "Scene.sceneCave0000001.Token.tokGoblinA000001";
    const actors = await table(generation, GM, { flags: { goblin: flags(goblinUuid, "Goblin A", PLAYERS_GUARD, 1) } });
    const base = game.actors.get("fvttGoblin000001");
    base._source.flags = { rollbridge: flags("goblin", "Goblin", DEADLY, 1) };
    assert.equal(actors.token.uuid, goblinUuid);
    assert.ok(panelHtml(actors.token.actor).includes("Physical: Serious"), "the token's own players' view");
    // a snapshot (the GM's view only) has no players' view of Goblin A: it is withheld
    welcomedClient({ seq: 4, table: { id: "t1", actors: [view(goblinUuid, "Goblin A", GM_GUARD, { seq: 4 })] } });
    await settle(client);
    const written = actors.token.actor.flags.rollbridge;
    assert.deepEqual([written.actorId, written.seq, written.withheld], [goblinUuid, 4, true]);
    // Foundry applies the delta over the base actor: a key the delta lacks shows the base's
    const gmDraws = panelHtml(actors.token.actor);
    assert.ok(!gmDraws.includes('class="rb-state ') && gmDraws.match(NOTE)?.length === 2, `a GM without the live view draws nothing of Goblin A but the note: ${gmDraws}`);
    assert.ok(panelHtml(base).includes("Physical: Deadly"), "the base actor keeps its own state");
  });

  test(`v${generation}: a GM-only event's actors are written from the hidden event players receive, its card GM-only`, async () => {
    const actors = await table(generation, GM);
    const ws = welcomedClient();
    ws.receive(adjusted(1, actors.token.uuid));
    await settle(client);
    // the GM's secret roll hit the guard: the GM's frame carries, as `players`, the
    // `hidden` event players are sent (FoundryAdapter.public_view), with the guard's view
    const secret = { ...rollEvent(2, { gmOnly: true }), actors: [view("guard", "Guard", GM_GUARD, { seq: 2 })] };
    const hidden = { type: "event", table: "t1", kind: "hidden", epoch: 1, seq: 2,
      actors: [view("guard", "Guard", PLAYERS_GUARD, { limited: true, seq: 2 })] };
    ws.receive({ ...secret, players: hidden });
    await settle(client);
    assert.deepEqual(actors.guard.flags.rollbridge, { actorId: "guard", table: "t1", seq: 2, epoch: 1, name: "Guard", limited: true, common: PLAYERS_GUARD, view: "players" });
    assert.ok(panelHtml(actors.guard, client.views).includes('data-value="7"'), "the GM draws its own view");
    // the card is the GM's, whispered to the GMs: nothing of it is drawn from `players`
    const card = Standin.log.messages.find((m) => m.flags.rollbridge?.seq === 2);
    assert.ok(card, "the secret roll's card");
    assert.equal(card.flags.rollbridge.view, "gm");
    assert.deepEqual(card.whisper, [GM]);
  });
  test(`v${generation}: a settings change that shows or hides an NPC's boxes rewrites its flags from the players' copy`, async () => {
    // the guard's boxes as players see them with sr2's show_npc_details on (its player_view)
    const SHOWN = { ...PLAYERS_GUARD, tracks: [track("physical", 7), track("stun", 2)] };
    /** A settings event as the GM's connection receives it: no actors of its own (the
     * GM's view of the guard did not change), the guard's new players' view in its
     * players' copy (FoundryAdapter.public_view). */
    const changed = (seq, kind, common) => {
      const event = { type: "event", table: "t1", epoch: 1, seq, kind, data: {}, actors: [] };
      return { ...event, players: { ...event, actors: [view("guard", "Guard", common, { limited: true, seq })] } };
    };
    for (const chosen of [false, true]) {
      const actors = await table(generation, GM, { settings: chosen ? { "rollbridge.systemMapping": "sr5" } : {} });
      const ws = welcomedClient();
      ws.receive(adjusted(1, actors.token.uuid));
      await settle(client);
      const system = actors.guard.system.track.physical.value;
      assert.equal(system, chosen ? 7 : 0, "the GM's view with a mapping chosen by hand, else the players'");
      // on: the players' view with the boxes reaches the flags every client reads
      ws.receive(changed(2, "settings", SHOWN));
      await settle(client);
      assert.deepEqual(actors.guard.flags.rollbridge, { actorId: "guard", table: "t1", seq: 2, epoch: 1, name: "Guard", limited: true, common: SHOWN, view: "players" });
      // the players' view writes the system paths of `auto`; a mapping chosen by hand keeps the GM's
      assert.equal(actors.guard.system.track.physical.value, 7);
      const drawn = await playerDraws(generation, actors);
      assert.ok(drawn.guard.includes('data-value="7"'), `the player's panel shows the boxes: ${drawn.guard}`);
      // off (here the undo of "on"): the boxes leave the flags at once
      const again = await table(generation, GM, { flags: { guard: structuredClone(actors.guard.flags.rollbridge) },
        settings: chosen ? { "rollbridge.systemMapping": "sr5" } : {} });
      const ws2 = welcomedClient({ seq: 2 });
      ws2.receive(changed(3, "undo", PLAYERS_GUARD));
      await settle(client);
      assert.deepEqual(again.guard.flags.rollbridge, { actorId: "guard", table: "t1", seq: 3, epoch: 1, name: "Guard", limited: true, common: PLAYERS_GUARD, view: "players" });
      holdsNone(JSON.stringify(again.guard.flags), "the guard's flags");
      const gmDraws = panelHtml(again.guard, client.views);
      assert.ok(!gmDraws.includes('data-value="7"') && gmDraws.match(NOTE), `no live view here: the flags, said so: ${gmDraws}`);
    }
  });
  test(`v${generation}: under auto, the system paths a shown NPC's boxes filled are reset once the players' view no longer carries them`, async () => {
    // sr2's show_npc_details on: the players' view has the guard's boxes, so `auto`
    // wrote them into the sr5 paths; turned off, the players' view has none
    const SHOWN = { ...PLAYERS_GUARD, tracks: [track("physical", 7), track("stun", 2)] };
    const changed = (seq, kind, common) => {
      const event = { type: "event", table: "t1", epoch: 1, seq, kind, data: {}, actors: [] };
      return { ...event, players: { ...event, actors: [view("guard", "Guard", common, { limited: true, seq })] } };
    };
    const actors = await table(generation, GM);
    const ws = welcomedClient({ foundry: { adapter: "test", mappings: [SR5] } });
    ws.receive(changed(1, "settings", SHOWN));
    await settle(client);
    assert.deepEqual([actors.guard.system.track.physical.value, actors.guard.system.track.stun.value], [7, 2], "shown: written");
    ws.receive(changed(2, "settings", PLAYERS_GUARD));
    await settle(client);
    assert.deepEqual([actors.guard.system.track.physical.value, actors.guard.system.track.stun.value], [0, 0],
      "hidden again: the boxes players could read are reset, not left behind");
    // a player's character keeps its values: its players' view fills the paths
    ws.receive(adjusted(3, actors.token.uuid));
    await settle(client);
    assert.equal(actors.tukan.system.track.physical.value, 2);
    // a value the GM set by hand on the NPC's sheet afterwards is the GM's: no later write resets it
    actors.guard._source.system.track.physical.value = 4;
    ws.receive(adjusted(4, actors.token.uuid));
    await settle(client);
    assert.equal(actors.guard.system.track.physical.value, 4);
    const drawn = await playerDraws(generation, actors);
    holdsNone(drawn.guard, "the player's guard panel");
  });

  test(`v${generation}: under auto, hiding an NPC's boxes leaves a value the GM typed on its sheet since auto wrote it`, async () => {
    // show_npc_details on: auto wrote the guard's boxes (7, 2); the GM then typed 4
    // into its physical monitor by hand (damage dealt outside rollbridge): turned off,
    // the stun auto wrote is reset, the GM's physical value is not
    const SHOWN = { ...PLAYERS_GUARD, tracks: [track("physical", 7), track("stun", 2)] };
    const changed = (seq, common) => {
      const event = { type: "event", table: "t1", epoch: 1, seq, kind: "settings", data: {}, actors: [] };
      return { ...event, players: { ...event, actors: [view("guard", "Guard", common, { limited: true, seq })] } };
    };
    const actors = await table(generation, GM);
    const ws = welcomedClient({ foundry: { adapter: "test", mappings: [SR5] } });
    ws.receive(changed(1, SHOWN));
    await settle(client);
    assert.deepEqual([actors.guard.system.track.physical.value, actors.guard.system.track.stun.value], [7, 2]);
    actors.guard._source.system.track.physical.value = 4;
    ws.receive(changed(2, PLAYERS_GUARD));
    await settle(client);
    assert.equal(actors.guard.system.track.stun.value, 0, "what auto wrote and still stands is reset");
    assert.equal(actors.guard.system.track.physical.value, 4, "the value the GM typed is the GM's");
    assert.equal(actors.guard.flags.rollbridge.common.tracks.length, 0, "the flags lose the boxes all the same");
  });

  test(`v${generation}: switched back to auto from a mapping chosen by hand, the GM's values it wrote of an NPC are reset, a player's character's and a typed value kept`, async () => {
    // sr5 chosen by hand writes the GM's boxes of every NPC into system data, which every
    // client receives; back to `auto`, which writes of an NPC only what players see
    const actors = await chosenSr5(generation);
    actors.token.delta._source.system = { track: { physical: { value: 5 } } }; // the GM typed 5 on the goblin's sheet
    await game.settings.set("rollbridge", "systemMapping", "auto");
    await settle(client);
    assert.deepEqual(boxes(actors.guard), [0, 0], "the guard's hidden boxes are gone from system data");
    assert.deepEqual(boxes(actors.token.actor), [5, 0], "the goblin's typed value stays, the GM's stun from the mapping goes");
    assert.deepEqual(boxes(actors.tukan), [2, 0], "a player's character keeps its values");
    assert.deepEqual(recorded(), {}, "the chosen mapping's marks go with its values");
    assert.ok(!("mapped" in actors.guard.flags.rollbridge), "and no flag holds one");
  });

  test(`v${generation}: switched back to auto while the GM's client was away, the GM's values the chosen mapping wrote of an NPC are reset at its next welcome, a typed value kept`, async () => {
    const actors = await chosenSr5(generation);
    assert.equal(recorded()[actors.guard.uuid], "sr5 guard", "the GM's record says the chosen mapping wrote them");
    assert.equal(recorded()[actors.token.actor.uuid], `sr5 ${actors.token.uuid}`, "the goblin's too");
    assert.ok(!(actors.tukan.uuid in recorded()), "not the player's own actor");
    assert.ok(!("mapped" in actors.guard.flags.rollbridge), "nothing in the flags, which a player who owned the actor could write");
    client.stop(); // the GM's page closed
    client = null;
    await game.settings.set("rollbridge", "systemMapping", "auto"); // another GM's switch
    actors.token.delta._source.system = { track: { physical: { value: 5 } } }; // typed meanwhile
    assert.deepEqual(boxes(actors.guard), [7, 2], "no client to reset them: still there");
    // the GM's next page: a snapshot at #2, the guard hurt further meanwhile (8, 3)
    const worse = { ...GM_GUARD, tracks: [track("physical", 8), track("stun", 3)] };
    const players = [view("guard", "Guard", PLAYERS_GUARD, { limited: true, seq: 2 }), view("tukan", "Tukan", TUKAN, { controllers: ["alice"], seq: 1 }),
      view(actors.token.uuid, "Goblin A", PLAYERS_GUARD, { limited: true, seq: 1 })];
    const ws = welcomedClient({ seq: 2, resume: { recovered: false }, foundry: { adapter: "test", mappings: [SR5] }, players: { actors: players },
      table: { id: "t1", actors: [view("guard", "Guard", worse, { seq: 2 }), view("tukan", "Tukan", TUKAN, { controllers: ["alice"], seq: 1 }),
        view(actors.token.uuid, "Goblin A", GM_GUARD, { seq: 1 })] } });
    // the GM's view the mapping wrote: the table at the flags' seq (#1), asked once
    const asked = await until(() => ws.messages().find((m) => m.type === "state"), "the state at #1");
    assert.equal(asked.at, 1);
    ws.receive({ type: "result", id: asked.id, table: { id: "t1", epoch: 1, seq: 1, actors: adjusted(1, actors.token.uuid).actors } });
    await settle(client);
    assert.deepEqual(boxes(actors.guard), [0, 0], "the guard's boxes the mapping wrote are gone");
    assert.deepEqual(boxes(actors.token.actor), [5, 0], "the goblin's typed value stays, the mapping's stun goes");
    assert.deepEqual(boxes(actors.tukan), [2, 0], "a player's character keeps its values");
    assert.equal(ws.messages().filter((m) => m.type === "state").length, 1, "one state for the one seq");
    assert.deepEqual(recorded(), {}, "the marks are gone with them");
  });

  test(`v${generation}: a chosen mapping's writes from before the mapped mark are marked at the GM's first welcome since, so a switch back to auto while the GM's client was away resets them; a player's own actor is neither marked nor reset`, async () => {
    // as a module from before the mark left them, sr5 chosen by hand: the players' view in
    // the flags of #1, no mark, the GM's boxes of the guard in its sr5 paths. Tukan is
    // the player's: its owner wrote its flags as the guard's, and guesses of the guard's
    // boxes into its system data (physical 7: right; stun 5: wrong)
    const old = { actorId: "guard", table: "t1", epoch: 1, seq: 1, name: "Guard", limited: true, view: "players", common: PLAYERS_GUARD };
    const actors = await table(generation, GM, { flags: { guard: { ...old }, tukan: { ...old } }, settings: { "rollbridge.systemMapping": "sr5", "rollbridge.cursor": { table: "t1", epoch: 1, seq: 2 } } });
    actors.guard._source.system = { track: { physical: { value: 7 }, stun: { value: 2 } } };
    actors.tukan._source.system = { track: { physical: { value: 7 }, stun: { value: 5 } } };
    // the GM's first page since the upgrade: a reload whose resume recovered (no snapshot: nothing written)
    const resumed = { seq: 2, resume: { recovered: true, missed: 0 }, foundry: { adapter: "test", mappings: [SR5] },
      table: { id: "t1", actors: [view("guard", "Guard", GM_GUARD, { seq: 2 })] } };
    welcomedClient(resumed);
    await settle(client);
    assert.equal(recorded()[actors.guard.uuid], "sr5 guard", "the guard's earlier write is marked as the chosen mapping's, in the GM's record");
    assert.equal(actors.guard.flags.rollbridge.seq, 1, "its flags as they were");
    assert.deepEqual(boxes(actors.guard), [7, 2], "under the chosen mapping nothing is reset");
    assert.ok(!(actors.tukan.uuid in recorded()), "a player's own actor is not marked");
    client.stop(); // the GM's page closed
    client = null;
    await game.settings.set("rollbridge", "systemMapping", "auto"); // another GM's switch
    const ws = welcomedClient(resumed);
    const asked = answersState(ws, () => ({ id: "t1", epoch: 1, seq: 1, actors: adjusted(1, actors.token.uuid).actors }));
    await settle(client);
    assert.deepEqual(boxes(actors.guard), [0, 0], "the GM's boxes the chosen mapping wrote before the mark are gone");
    assert.deepEqual(recorded(), {}, "with the mark");
    assert.deepEqual(asked, [], "against the welcome's view: the GM's client left the table at the welcome's seq, no older one read");
    assert.deepEqual(boxes(actors.tukan), [7, 5], "the player's own actor: never reset against the GM's view, nothing to learn");
  });

  test(`v${generation}: an actor a player owned once, its flags written then as an NPC's that has its own actor, is not marked nor reset: nothing read`, async () => {
    // Tukan was the player's: they wrote its flags as the guard's at #1 and typed guesses
    // of the guard's boxes at #1 into its system data (physical 7: right then; stun 5);
    // then the GM took the ownership back (Foundry keeps no history of either)
    const written = { actorId: "guard", table: "t1", epoch: 1, seq: 1, name: "Guard", limited: true, view: "players", common: PLAYERS_GUARD };
    const actors = await table(generation, GM, { flags: { tukan: { ...written } }, settings: { "rollbridge.systemMapping": "sr5" } });
    actors.tukan._source.system = { track: { physical: { value: 7 }, stun: { value: 5 } } };
    actors.tukan._source.ownership = { [PLAYER]: LIMITED };
    // the guard healed at #2: its GM's view at the welcome (and in its own sr5 paths, every client's)
    const healed = view("guard", "Guard", { ...GM_GUARD, tracks: [track("physical", 1), track("stun", 0)] }, { seq: 2 });
    const resumed = { seq: 2, resume: { recovered: true, missed: 0 }, foundry: { adapter: "test", mappings: [SR5] }, table: { id: "t1", actors: [healed] } };
    welcomedClient(resumed);
    await settle(client);
    assert.ok(!(actors.tukan.uuid in recorded()), "not marked: the guard's own actor is the one the mapping writes the guard into");
    assert.equal(recorded()[actors.guard.uuid], "sr5 guard");
    client.stop();
    client = null;
    await game.settings.set("rollbridge", "systemMapping", "auto"); // switched back while the GM's page was closed
    const ws = welcomedClient({ ...resumed, seq: 3 });
    const tables = { 1: adjusted(1, actors.token.uuid).actors, 2: [healed] };
    const asked = answersState(ws, (at) => ({ id: "t1", epoch: 1, seq: at, actors: tables[at] ?? [] }));
    await settle(client);
    assert.deepEqual(boxes(actors.tukan), [7, 5], "neither guess reset: nothing learnt of the guard");
    assert.deepEqual(recorded(), {}, "the guard's mark done with");
  });

  test(`v${generation}: a player who owned an actor once and wrote a \`mapped\` mark naming an NPC into its flags learns nothing: the mark is no GM's, its actor reset blind, no table read`, async () => {
    // Tukan was the player's: they wrote its flags as the guard's with a chosen mapping's
    // mark (and a `mappedAt` or the flags' seq of their choosing), and typed guesses of
    // the guard's boxes into its system data. The GM took the ownership back; the GM's
    // page, gone since #3 (the guard's boxes 1 and 0 then), comes back under `auto`.
    // Until 7 December 2026, night, the table was read at the GM's cursor and a guess
    // was reset only where it was the guard's value there: one guess per NPC and welcome.
    const after = [];
    for (const [forged, guess] of [[{ mappedAt: { epoch: 1, seq: 1 } }, [1, 0]], [{ seq: 1 }, [7, 5]], [{}, [1, 5]]]) {
      const flags = { actorId: "guard", table: "t1", epoch: 1, seq: 3, mapped: "sr5", name: "Guard", limited: true, view: "players", common: PLAYERS_GUARD, ...forged };
      const actors = await table(generation, GM, { flags: { tukan: flags }, settings: { "rollbridge.cursor": { table: "t1", epoch: 1, seq: 3 } } });
      actors.tukan._source.system = { track: { physical: { value: guess[0] }, stun: { value: guess[1] } } };
      actors.tukan._source.ownership = { [PLAYER]: LIMITED };
      const healed = view("guard", "Guard", { ...GM_GUARD, tracks: [track("physical", 1), track("stun", 0)] }, { seq: 3 });
      const tables = { 1: adjusted(1, actors.token.uuid).actors, 3: [healed] };
      const ws = welcomedClient({ seq: 4, resume: { recovered: true, missed: 0 }, foundry: { adapter: "test", mappings: [SR5] }, table: { id: "t1", actors: [healed] } });
      const asked = answersState(ws, (at) => ({ id: "t1", epoch: 1, seq: at, actors: tables[at] ?? [] }));
      await settle(client);
      assert.deepEqual(asked, [], `${JSON.stringify(forged)}: no table read for a mark no GM wrote`);
      after.push(boxes(actors.tukan));
      assert.ok(!("mapped" in actors.tukan.flags.rollbridge) && !("mappedAt" in actors.tukan.flags.rollbridge), "the mark gone");
    }
    // the guard's boxes (1, 0), a wrong guess (7, 5) and a half-right one (1, 5): alike
    assert.deepEqual(after, [[0, 0], [0, 0], [0, 0]], "every guess reset alike, the right one as the wrong: nothing learnt");
  });

  test(`v${generation}: a record of marks a player wrote (granted SETTINGS_MODIFY) is no GM's: nothing read or reset by it`, async () => {
    const written = { actorId: "guard", table: "t1", epoch: 1, seq: 3, name: "Guard", limited: true, view: "players", common: PLAYERS_GUARD };
    const actors = await table(generation, GM, { flags: { tukan: written }, settingsBy: { "rollbridge.mapped": PLAYER },
      settings: { "rollbridge.cursor": { table: "t1", epoch: 1, seq: 3 },
        "rollbridge.mapped": { marks: [{ table: "t1", key: "Actor.fvttTukan0000001", mapping: "sr5", actorId: "guard" }] } } });
    actors.tukan._source.system = { track: { physical: { value: 1 }, stun: { value: 0 } } };
    actors.tukan._source.ownership = { [PLAYER]: LIMITED };
    assert.equal(actors.tukan.uuid, "Actor.fvttTukan0000001");
    const healed = view("guard", "Guard", { ...GM_GUARD, tracks: [track("physical", 1), track("stun", 0)] }, { seq: 3 });
    const ws = welcomedClient({ seq: 4, resume: { recovered: true, missed: 0 }, foundry: { adapter: "test", mappings: [SR5] }, table: { id: "t1", actors: [healed] } });
    const asked = answersState(ws, (at) => ({ id: "t1", epoch: 1, seq: at, actors: [healed] }));
    await settle(client);
    assert.deepEqual(asked, [], "no table read");
    assert.deepEqual(boxes(actors.tukan), [1, 0], "the right guess left as it is: the record is the player's");
  });

  test(`v${generation}: a player's own actor, its flags written by the player as another actor's mapped by hand, is not reset against the GM's view of that one: nothing to learn`, async () => {
    // Tukan is the player's: Foundry lets its owner write its flags. The player names the
    // guard there, with a chosen mapping's mark and an earlier seq, and types guesses of
    // the guard's boxes into Tukan's system data (physical 7: right; stun 5: wrong)
    const { actors, asked } = await markedAtWelcome(generation, "tukan", "sr5", [7, 5]);
    assert.deepEqual(boxes(actors.tukan), [7, 5], "a reset of the right guess alone would have told the guard's boxes");
    assert.deepEqual(asked, [], "no table read at the seq the player chose");
  });

  test(`v${generation}: an NPC marked by a mapping the welcome no longer describes loses its mark alone, no table read for it`, async () => {
    const { actors, asked } = await markedAtWelcome(generation, "guard", "sr4", [7, 2]);
    assert.deepEqual(boxes(actors.guard), [7, 2], "its paths are not known: left");
    assert.ok(!("mapped" in actors.guard.flags.rollbridge), "the mark goes");
    assert.deepEqual(asked, [], "nothing to compare a table with: none read");
  });

  test(`v${generation}: many NPCs marked at as many seqs: the table is read once, where the GM's client left it, whatever seqs their flags name`, async () => {
    await table(generation, GM, { settings: { "rollbridge.cursor": { table: "t1", epoch: 1, seq: 40 } } });
    const count = 12;
    const npcs = [];
    for (let n = 1; n <= count; n++) {
      const flags = { actorId: `npc${n}`, table: "t1", epoch: 1, seq: n, name: `NPC ${n}`, limited: true, view: "players", common: PLAYERS_GUARD };
      npcs.push(Standin.addActor({ _id: `fvttNpc${String(n).padStart(9, "0")}`, name: `NPC ${n}`, type: "npc", ownership: { [PLAYER]: LIMITED },
        system: { track: { physical: { value: 7 }, stun: { value: 2 } } }, flags: { rollbridge: flags } }));
    }
    // the GM's record, as the GM's client wrote it under the chosen mapping
    await game.settings.set("rollbridge", "mapped", { marks: npcs.map((npc, i) => ({ table: "t1", key: npc.uuid, mapping: "sr5", actorId: `npc${i + 1}` })) });
    const gmViews = npcs.map((_, i) => view(`npc${i + 1}`, `NPC ${i + 1}`, GM_GUARD, { seq: i + 1 }));
    const ws = welcomedClient({ seq: 50, resume: { recovered: true, missed: 0 }, foundry: { adapter: "test", mappings: [SR5] },
      table: { id: "t1", actors: [view("guard", "Guard", GM_GUARD), ...gmViews] } });
    const asked = answersState(ws, (at) => ({ id: "t1", epoch: 1, seq: at, actors: gmViews }));
    await settle(client);
    assert.deepEqual(asked, [40], "one read, at the GM's saved cursor");
    assert.deepEqual(npcs.map(boxes), npcs.map(() => [0, 0]), "every NPC's boxes the chosen mapping wrote are gone");
    assert.deepEqual(recorded(), {}, "with their marks");
  });

  test(`v${generation}: an upgraded world: the GM's values an older module wrote into an NPC's system data under auto are reset at the GM's connection`, async () => {
    const old = (actorId, common, table = "t1") => ({ actorId, table, seq: 3, name: actorId, limited: false, common: structuredClone(common) });
    const flags = { guard: old("guard", GM_GUARD), tukan: old("tukan", TUKAN), other: old("x", TUKAN, "t0") };
    const actors = await table(generation, GM, { flags, settings: { "rollbridge.cursor": { table: "t1", epoch: 1, seq: 3 } } });
    // as the older module left them: the GM's boxes of the guard in its sr5 paths
    actors.guard._source.system = { track: { physical: { value: 7 }, stun: { value: 2 } } };
    actors.tukan._source.system = { track: { physical: { value: 2 }, stun: { value: 0 } } };
    actors.other._source.system = { track: { physical: { value: 5 }, stun: { value: 1 } } };
    welcomedClient({ seq: 3, resume: { recovered: true, missed: 0 }, foundry: { adapter: "test", mappings: [SR5] },
      table: { id: "t1", actors: [view("guard", "Guard", GM_GUARD, { seq: 3 }), view("tukan", "Tukan", TUKAN, { controllers: ["alice"], seq: 3 })] } });
    await settle(client);
    assert.deepEqual([actors.guard.system.track.physical.value, actors.guard.system.track.stun.value], [0, 0], "the NPC's GM's values are gone");
    assert.equal(actors.tukan.system.track.physical.value, 2, "a player's character keeps its values");
    assert.equal(actors.other.system.track.physical.value, 5, "another table's actor (perhaps a player's character) is left");
  });

  test(`v${generation}: a settings change too large to carry the NPCs' views withholds them rather than keep the old view`, async () => {
    // the players' copy says `reread` and lists no actor (the NPCs' records did not fit
    // in the event): the GM's client cannot read the players' view, so it withholds
    // each NPC of the table, and keeps the player's character's flags
    const actors = await table(generation, GM);
    const ws = welcomedClient();
    ws.receive(adjusted(1, actors.token.uuid));
    await settle(client);
    const tukan = structuredClone(actors.tukan.flags.rollbridge);
    const event = { type: "event", table: "t1", epoch: 1, seq: 2, kind: "settings", data: {}, actors: [] };
    ws.receive({ ...event, players: { ...event, reread: true } });
    await settle(client);
    assert.deepEqual(actors.guard.flags.rollbridge, { actorId: "guard", table: "t1", seq: 2, epoch: 1, name: "Guard", limited: true, common: null, view: "players", withheld: true });
    assert.equal(actors.token.delta._source.flags.rollbridge.withheld, true);
    assert.equal(actors.token.delta._source.flags.rollbridge.common, null);
    assert.deepEqual(actors.tukan.flags.rollbridge, tukan);
    // the GM's own frame said nothing of `reread`: the GM's connection reads nothing again
    assert.ok(!ws.messages().some((m) => m.type === "state"), "no state asked by the GM's client");
    const drawn = await playerDraws(generation, actors);
    holdsNone(drawn.guard, "the player's guard panel");
    assert.ok(!drawn.guard.includes("Physical: Serious"), `the old players' view is not drawn: ${drawn.guard}`);
  });
  test(`v${generation}: a settings change too large to store the NPCs' views writes those the GM's frame carries, withholds the rest`, async () => {
    // the server's Foundry dialect lists in the players' copy of a `reread` change the
    // players' view of every NPC of the table as it stands (core/protocol/members.py)
    const SHOWN = { ...PLAYERS_GUARD, tracks: [track("physical", 7), track("stun", 2)] };
    const actors = await table(generation, GM);
    const ws = welcomedClient({ foundry: { adapter: "test", mappings: [SR5] } });
    ws.receive(adjusted(1, actors.token.uuid));
    await settle(client);
    const tukan = structuredClone(actors.tukan.flags.rollbridge);
    const event = { type: "event", table: "t1", epoch: 1, seq: 2, kind: "settings", data: {}, actors: [] };
    ws.receive({ ...event, players: { ...event, reread: true, actors: [view("guard", "Guard", SHOWN, { limited: true, seq: 2 })] } });
    await settle(client);
    assert.deepEqual(actors.guard.flags.rollbridge, { actorId: "guard", table: "t1", seq: 2, epoch: 1, name: "Guard", limited: true, common: SHOWN, view: "players" });
    assert.equal(actors.guard.system.track.physical.value, 7, "auto writes the boxes players now see");
    // an NPC the copy does not list (here the goblin token) is withheld, as before
    assert.equal(actors.token.delta._source.flags.rollbridge.withheld, true);
    assert.deepEqual(actors.tukan.flags.rollbridge, tukan);
    const drawn = await playerDraws(generation, actors);
    assert.ok(drawn.guard.includes('data-value="7"'), `a player without a connection sees the boxes at once: ${drawn.guard}`);
  });

  test(`v${generation}: a reread change resent on a resume carries the table as it is then, and the events after it lead to the same: the flags end as the table stands`, async () => {
    // the GM's client away from #1 to #3: #2 turned the NPCs' details on (too many NPCs
    // to store: reread), #3 hurt the guard further. Resent, #2's frame is built now: its
    // players' copy holds the guard as of #3 (8, 3), under #2's seq; #3 brings the same
    const at3 = { ...PLAYERS_GUARD, tracks: [track("physical", 8), track("stun", 3)] };
    const gm3 = { ...GM_GUARD, tracks: [track("physical", 8), track("stun", 3)] };
    const actors = await table(generation, GM, { settings: { "rollbridge.cursor": { table: "t1", epoch: 1, seq: 1 } } });
    const ws = welcomedClient({ seq: 3, resume: { recovered: true, missed: 2 }, foundry: { adapter: "test", mappings: [SR5] },
      table: { id: "t1", actors: [view("guard", "Guard", gm3, { seq: 3 })] } });
    const two = { type: "event", table: "t1", epoch: 1, seq: 2, kind: "settings", data: {}, actors: [] };
    ws.receive({ ...two, players: { ...two, reread: true, actors: [view("guard", "Guard", at3, { limited: true, seq: 2 })] } });
    await settle(client);
    assert.deepEqual(actors.guard.flags.rollbridge.common, at3, "#2 writes the guard as the table stands");
    assert.equal(actors.guard.flags.rollbridge.seq, 2, "under the event's seq (outbound.py: a frame's context)");
    const three = { type: "event", table: "t1", epoch: 1, seq: 3, kind: "adjusted", data: { actor: "guard" }, actors: [view("guard", "Guard", gm3, { seq: 3 })] };
    ws.receive({ ...three, players: { ...three, actors: [view("guard", "Guard", at3, { limited: true, seq: 3 })] } });
    await settle(client);
    assert.deepEqual(actors.guard.flags.rollbridge, { actorId: "guard", table: "t1", seq: 3, epoch: 1, name: "Guard", limited: true, common: at3, view: "players" });
    assert.deepEqual(boxes(actors.guard), [8, 3], "auto writes what players see now");
    holdsNone(JSON.stringify(actors.guard.flags), "the guard's flags");
  });

  test(`v${generation}: a player's connection told to read the table again asks for its state`, async () => {
    await table(generation, PLAYER);
    const ws = welcomedClient({ role: "player" });
    const event = { type: "event", table: "t1", epoch: 1, seq: 1, kind: "settings", data: {}, actors: [], reread: true };
    ws.receive(event);
    await settle(client);
    const asked = ws.messages().filter((m) => m.type === "state");
    assert.equal(asked.length, 1);
    const guard = view("guard", "Guard", PLAYERS_GUARD, { limited: true, seq: 1 });
    ws.receive({ type: "result", id: asked[0].id, table: { id: "t1", epoch: 1, seq: 1, actors: [guard] } });
    await settle(client);
    assert.deepEqual(client.views.get("guard")?.common, PLAYERS_GUARD);
  });
}

// The players' view of NPCs read once (#readPlayersView), at its edges: NPCs asked for
// under another epoch while a read is open (a restore meanwhile), a read a reload cut,
// and a link another GM's client made. Before, the first were dropped, the second stayed
// withheld until the NPC's next event, the third was written at the actor's next change.

/** The guard and the other NPC as a snapshot welcome of `epoch` gives them a GM's client:
 * each in `players` as players see it. */
function snapshotOf(reader, epoch, ids) {
  reader.open();
  const hello = reader.messages().find((m) => m.type === "hello");
  const names = { guard: "Guard", other: "Other" };
  reader.receive({ type: "welcome", id: hello.id, protocol: 1, role: "gm", epoch, seq: 4, locale: "en", resume: { recovered: false },
    table: { id: "t1", actors: ids.map((id) => view(id, names[id], GM_GUARD, { seq: 4 })) },
    players: { actors: ids.map((id) => view(id, names[id], PLAYERS_GUARD, { limited: true, seq: 4 })) } });
}

const OTHER_GM = "zstandinGM00002"; // sorts after GM: GM stays the active GM
const TWO_GMS = [...USERS, { _id: OTHER_GM, name: "Second GM", isGM: true, active: true }];

for (const generation of [12, 13]) {
  test(`v${generation}: an NPC asked for under another epoch while a players' view read is open is read for once it ends`, async () => {
    const actors = await table(generation, GM, { flags: { guard: {}, other: {} } });
    const ws = welcomedClient({ seq: 4, foundry: { adapter: "test", mappings: [SR5] } });
    await settle(client);
    // the table restored (epoch 2) between the two links: the second is read under epoch 2
    let reads = 0;
    answersState(ws, () => (++reads === 1
      ? { id: "t1", epoch: 1, seq: 4, actors: [view("guard", "Guard", GM_GUARD, { seq: 4 })] }
      : { id: "t1", epoch: 2, seq: 4, actors: [view("other", "Other", GM_GUARD, { seq: 4 })] }));
    const before = FakeWebSocket.instances.length;
    await client.linkActor(actors.guard, "guard");
    await client.linkActor(actors.other, "other");
    await settle(client);
    assert.equal(FakeWebSocket.instances.length, before + 1, "one reader at a time");
    assert.deepEqual([actors.guard.flags.rollbridge.withheld, actors.other.flags.rollbridge.withheld], [true, true]);
    // the first reader's snapshot is of epoch 1: the guard written; the other read for next
    snapshotOf(FakeWebSocket.last(), 1, ["guard"]);
    await settle(client);
    assert.deepEqual(actors.guard.flags.rollbridge.common, PLAYERS_GUARD);
    assert.equal(FakeWebSocket.instances.length, before + 2, "read again for the NPC of epoch 2");
    const again = FakeWebSocket.last();
    snapshotOf(again, 2, ["other"]);
    await settle(client);
    const other = actors.other.flags.rollbridge;
    assert.deepEqual([other.common, other.withheld, other.epoch], [PLAYERS_GUARD, undefined, 2]);
    assert.ok(again.closedWith, "closed once its welcome came");
    assert.equal(FakeWebSocket.instances.length, before + 2, "nothing more to read");
  });

  test(`v${generation}: an NPC whose players' view read a reload cut is read for at the next page's welcome`, async () => {
    const actors = await table(generation, GM, { flags: { guard: {} } });
    const ws = welcomedClient({ seq: 4, foundry: { adapter: "test", mappings: [SR5] } });
    await settle(client);
    answersState(ws, () => ({ id: "t1", epoch: 1, seq: 4, actors: [view("guard", "Guard", GM_GUARD, { seq: 4 })] }));
    await client.linkActor(actors.guard, "guard");
    await settle(client);
    const cut = FakeWebSocket.last();
    assert.notEqual(cut, ws, "its reader opened");
    assert.equal(actors.guard.flags.rollbridge.withheld, true);
    // the page reloaded before the reader's welcome: the next page resumes (recovered)
    const before = FakeWebSocket.instances.length;
    const resumed = { seq: 4, resume: { recovered: true, missed: 0 }, foundry: { adapter: "test", mappings: [SR5] },
      table: { id: "t1", actors: [view("guard", "Guard", GM_GUARD, { seq: 4 })] } };
    welcomedClient(resumed);
    await settle(client);
    assert.equal(FakeWebSocket.instances.length, before + 2, "the page's connection and a reader");
    snapshotOf(FakeWebSocket.last(), 1, ["guard"]);
    await settle(client);
    const flags = actors.guard.flags.rollbridge;
    assert.deepEqual([flags.common, flags.withheld, flags.view], [PLAYERS_GUARD, undefined, "players"]);
    holdsNone(JSON.stringify(flags), "the guard's flags");
  });

  test(`v${generation}: a players' view read refused for now (busy, rate_limited) connects again, keeping every NPC asked for; bounded`, async (t) => {
    const actors = await guardAndOther(generation);
    const before = FakeWebSocket.instances.length;
    await client.linkActor(actors.guard, "guard");
    await settle(client);
    // the other NPC asked for while the read is open: it shares the reader
    await client.linkActor(actors.other, "other");
    await settle(client);
    const refuse = (reader, code, details = {}) => {
      reader.open();
      const hello = reader.messages().find((m) => m.type === "hello");
      reader.receive({ type: "error", id: hello.id, code, message: `refused for now: ${code}`, details });
    };
    refuse(FakeWebSocket.last(), "busy");
    await settle(client);
    assert.ok(client.playersReader, "the read goes on: busy can pass");
    client.nudge(); // its wait skipped (the Connection's backoff, not the test's to wait)
    await until(() => FakeWebSocket.instances.length === before + 2, "the reader connected again");
    // the page's timers on a FakeClock from here: the refusal's wait passes only when
    // the test lets it (on real timers, a run stalled past it connected again before
    // the "none within" check, and failed it)
    const clock = new FakeClock();
    t.mock.method(globalThis, "setTimeout", clock.setTimeout);
    t.mock.method(globalThis, "clearTimeout", clock.clearTimeout);
    refuse(FakeWebSocket.last(), "rate_limited", { retry_after: 1 });
    await settle(client);
    // the refusal asked for a second: a nudge (the network back) does not cut it — until
    // 7 December 2026, night, the reader connected again at once
    client.nudge();
    await settle(client);
    assert.equal(FakeWebSocket.instances.length, before + 2, "no connection within the refusal's retry_after");
    clock.advance(999);
    client.nudge();
    await settle(client);
    assert.equal(FakeWebSocket.instances.length, before + 2, "nor a millisecond before it ends");
    clock.advance(1);
    await settle(client);
    assert.equal(FakeWebSocket.instances.length, before + 3, "and again after rate_limited, its wait over");
    snapshotOf(FakeWebSocket.last(), 1, ["guard", "other"]);
    await settle(client);
    assert.deepEqual([actors.guard.flags.rollbridge.common, actors.other.flags.rollbridge.common], [PLAYERS_GUARD, PLAYERS_GUARD], "both written, neither dropped");
    assert.equal(client.playersReader, null);
    // a server that keeps refusing: PLAYERS_READS more connections, then the read ends
    // (read again: a settings change since may show or hide what the read had)
    const settings = { type: "event", table: "t1", epoch: 1, seq: 5, kind: "settings", data: {}, actors: [] };
    FakeWebSocket.instances[before - 1].receive({ ...settings, players: { ...settings, actors: [] } });
    await settle(client);
    await client.linkActor(actors.guard, "guard");
    await settle(client);
    const start = FakeWebSocket.instances.length;
    for (let i = 0; i <= PLAYERS_READS; i++) {
      await until(() => FakeWebSocket.instances.length === start + i, `connection ${i + 1} of the read`);
      refuse(FakeWebSocket.last(), "busy");
      await settle(client);
      client.nudge();
    }
    await settle(client);
    assert.equal(client.playersReader, null, "ended: no loop");
    assert.equal(FakeWebSocket.instances.length, start + PLAYERS_READS, `${PLAYERS_READS} tries again, no more`);
    assert.equal(actors.guard.flags.rollbridge.withheld, true, "withheld until its next event");
  });

  test(`v${generation}: a players' view read refused rate_limited for longer than PLAYERS_WAIT_MS ends, its NPC withheld; a nudge opens nothing`, async () => {
    const actors = await guardAndOther(generation);
    const before = FakeWebSocket.instances.length;
    await client.linkActor(actors.guard, "guard");
    await settle(client);
    const reader = FakeWebSocket.last();
    reader.open();
    const hello = reader.messages().find((m) => m.type === "hello");
    // the wrong-token throttle's wait: ten minutes
    reader.receive({ type: "error", id: hello.id, code: "rate_limited", message: "too many wrong tokens", details: { retry_after: 600, scope: "wrong_tokens" } });
    await settle(client);
    assert.equal(client.playersReader, null, `ended: a wait of 600 s is past PLAYERS_WAIT_MS (${PLAYERS_WAIT_MS} ms)`);
    client.nudge();
    await settle(client);
    assert.equal(FakeWebSocket.instances.length, before + 1, "no connection opened again, a nudge neither");
    assert.equal(actors.guard.flags.rollbridge.withheld, true, "withheld until its next event or recovered resume");
  });

  test(`v${generation}: an NPC still withheld is asked for at each recovered resume of the page, bounded, and not once a read answered`, async () => {
    const withheld = { actorId: "guard", table: "t1", epoch: 1, seq: 4, name: "Guard", limited: true, withheld: true, common: null };
    const actors = await table(generation, GM, { flags: { guard: withheld } });
    const resumed = { seq: 4, resume: { recovered: true, missed: 0 }, foundry: { adapter: "test", mappings: [SR5] },
      table: { id: "t1", actors: [view("guard", "Guard", GM_GUARD, { seq: 4 })] } };
    let ws = welcomedClient(resumed);
    await settle(client);
    /** The GM's connection dropped and back with a recovered resume: the sockets it opened. */
    const resume = async () => {
      ws.drop();
      await settle(client);
      const before = FakeWebSocket.instances.length;
      client.nudge();
      ws = FakeWebSocket.instances[before];
      ws.open();
      const hello = ws.messages().find((m) => m.type === "hello");
      ws.receive({ type: "welcome", id: hello.id, protocol: 1, role: "gm", epoch: 1, locale: "en", ...resumed });
      await settle(client);
      return FakeWebSocket.instances.length - before;
    };
    // each read refused as one connection too many: it ends at once, unanswered
    const tooMany = () => {
      const reader = FakeWebSocket.last();
      reader.open();
      const hello = reader.messages().find((m) => m.type === "hello");
      reader.receive({ type: "error", id: hello.id, code: "too_many_connections", message: "too many", details: { limit: 8 } });
      reader.drop(1013);
    };
    assert.ok(client.playersReader, "asked for at the page's first welcome");
    tooMany();
    await settle(client);
    assert.equal(client.playersReader, null);
    assert.equal(await resume(), 2, "asked for again at the next recovered resume: the connection and a reader");
    tooMany();
    await settle(client);
    assert.equal(await resume(), 2, "and at the next");
    tooMany();
    await settle(client);
    assert.equal(await resume(), 1, `not after ${PLAYERS_READS} asks: no loop on a refusal that stays`);
    assert.equal(actors.guard.flags.rollbridge.withheld, true);
    // a new page: asked again, and answered by a snapshot without its players' view (an older server)
    ws = welcomedClient(resumed);
    await settle(client);
    const reader = FakeWebSocket.last();
    reader.open();
    const hello = reader.messages().find((m) => m.type === "hello");
    reader.receive({ type: "welcome", id: hello.id, protocol: 1, role: "gm", epoch: 1, seq: 4, locale: "en", resume: { recovered: false },
      table: { id: "t1", actors: [view("guard", "Guard", GM_GUARD, { seq: 4 })] } });
    await settle(client);
    assert.equal(await resume(), 1, "answered: not asked at every reconnect");
  });

  test(`v${generation}: an actor linked by a GM who is not the active GM is written at once by the active GM's client`, async () => {
    // the other GM's page: no connection; the link handed to the active GM's client
    let actors = await table(generation, OTHER_GM, { flags: { guard: {} }, users: TWO_GMS });
    Standin.setUserActive(GM, true);
    assert.equal(game.users.activeGM?.id, GM);
    const asked = [];
    Standin.queryClient = async (user, name, data) => {
      asked.push({ to: user.id, name, data });
      return { linked: true };
    };
    client?.stop();
    client = new FoundryClient();
    client.start();
    assert.equal(client.writer, false);
    await client.linkActor(actors.guard, "guard");
    assert.equal(actors.guard.flags.rollbridge.actorId, "guard", "linked");
    const handed = { type: "linked", id: "guard", user: OTHER_GM };
    // on the module's socket on v13 too: its sender is one Foundry vouches for (a query's is its word)
    assert.deepEqual(asked, [], "no query");
    assert.deepEqual(Standin.log.socket.map((m) => m.message).filter((m) => m.type === "linked"), [handed], "the module's socket");
    Standin.queryClient = null;
    // the active GM's page: the guard linked (as Foundry syncs it), its client told
    actors = await table(generation, GM, { flags: { guard: { actorId: "guard" } }, users: TWO_GMS });
    const ws = welcomedClient({ seq: 4, foundry: { adapter: "test", mappings: [SR5] } });
    await settle(client);
    const reads = answersState(ws, () => ({ id: "t1", epoch: 1, seq: 4, actors: [view("guard", "Guard", GM_GUARD, { seq: 4 })] }));
    registerRelay((m, o) => client.relayed(m, o));
    assert.equal(await client.relayed({ ...handed, user: PLAYER }, { sender: PLAYER }), null, "a player's: not taken");
    await settle(client);
    assert.deepEqual(reads, [], "nothing read for a player's");
    client.onSocket(handed, OTHER_GM);
    await settle(client);
    assert.deepEqual(reads, [undefined], "the table read once, at once");
    assert.equal(actors.guard.flags.rollbridge.withheld, true, "written from the GM's view: withheld");
    snapshotOf(FakeWebSocket.last(), 1, ["guard"]);
    await settle(client);
    assert.deepEqual(actors.guard.flags.rollbridge.common, PLAYERS_GUARD, "its players' view, not at its next change");
  });

  test(`v${generation}: a player cannot hand the active GM's client a link, naming a GM or not, on a query or the socket`, async () => {
    const actors = await table(generation, GM, { flags: { guard: { actorId: "guard" } }, users: TWO_GMS });
    const ws = welcomedClient({ seq: 4, foundry: { adapter: "test", mappings: [SR5] } });
    await settle(client);
    const reads = answersState(ws, () => ({ id: "t1", epoch: 1, seq: 4, actors: [view("guard", "Guard", GM_GUARD, { seq: 4 })] }));
    registerRelay((m, o) => client.relayed(m, o));
    const forged = { type: "linked", id: "guard", user: OTHER_GM };
    if (generation >= 13) {
      // a v13 query's handler gets no sender (Foundry's): the user it names is the player's word
      assert.equal(await CONFIG.queries["rollbridge.relay"](forged, { timeout: 5000 }), null, "a query naming a GM: refused");
      assert.equal(await CONFIG.queries["rollbridge.relay"]({ ...forged, user: GM }, { timeout: 5000 }), null, "naming the active GM: refused");
    }
    client.onSocket(forged, PLAYER); // the socket's sender: the player, whatever the message says
    client.onSocket({ type: "linked", id: "guard" }, PLAYER);
    client.onSocket({ type: "linked", id: "guard" }); // no sender Foundry vouches for
    await settle(client);
    assert.deepEqual(reads, [], "nothing read, nothing written");
    assert.equal(actors.guard.flags.rollbridge.withheld, undefined);
    client.onSocket({ type: "linked", id: "guard" }, OTHER_GM);
    await settle(client);
    assert.deepEqual(reads, [undefined], "a GM's, on the socket: read once");
  });
}
