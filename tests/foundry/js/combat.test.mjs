// Foundry's combat tracker runs the table's encounter (audit F5): the active
// GM's client sends encounter.start when a combat begins, encounter.next for
// each turn forward, encounter.end when the combat is deleted — driven here
// through the stand-in's Combat (tests/foundry/standin/), whose hooks fire as
// Foundry v12/v13 fire them (combatTurnChange and deleteCombat on every client
// after the update; combatStart/combatTurn/combatRound on the initiating
// client only).

import assert from "node:assert/strict";
import { after, afterEach, test } from "node:test";

import { catchUp, encounterOrder, stepsTo } from "../../../adapters/foundry/module/scripts/core/combat.mjs";
import { FoundryClient } from "../../../adapters/foundry/module/scripts/foundry/client.mjs";
import { registerCombat, ROUND_MAX_MS, ROUND_QUIET_MS } from "../../../adapters/foundry/module/scripts/foundry/combat.mjs";
import { FakeClock, FakeWebSocket } from "./fakes.mjs";
import { registerModuleSettings, Standin, world } from "./standin.mjs";

const USERS = [
  { _id: "standinGM000001", name: "Gamemaster", isGM: true },
  { _id: "standinPlr00001", name: "Player" },
];
const [GM, PLAYER] = USERS.map((u) => u._id);

let client = null;
let sync = null;
afterEach(() => {
  sync?.unregister();
  client?.stop();
  sync = null;
  client = null;
});
after(() => Standin.uninstall());

/** A world with three actors on the table (a, b, c) and one that is not (x), in a combat. */
async function setup({ user = "gm", generation = 13, settings = {}, encounter = null, seq = 0, system = undefined } = {}) {
  await world({ users: USERS, user, generation, settings, system });
  await registerModuleSettings();
  game.ready = true;
  const actor = (id, name, owner = null) => Standin.addActor({
    _id: `fvtt${id}000000000000`.slice(0, 16), name,
    ownership: owner ? { [owner]: 3 } : {},
    flags: id === "x" ? {} : { rollbridge: { actorId: id } },
  });
  const actors = { a: actor("a", "Alvar", PLAYER), b: actor("b", "Bandit"), c: actor("c", "Crow"), x: actor("x", "Extra") };
  client = new FoundryClient();
  client.start();
  sync = registerCombat(client, { roundQuiet: 0 });
  const ws = FakeWebSocket.last();
  ws.open();
  const hello = ws.messages().find((m) => m.type === "hello");
  const role = user === "gm" ? "gm" : "player";
  ws.receive({ type: "welcome", id: hello.id, protocol: 1, role, epoch: 1, seq, locale: "en", table: { id: "t1", actors: [], encounter } });
  return { ws, actors, server: new Server(ws, encounter, seq) };
}

/** The server's side: answers encounter requests as the engine does (core/engine/turns.py). */
class Server {
  constructor(ws, encounter, seq) {
    this.ws = ws;
    this.encounter = encounter;
    this.seq = seq;
    this.refuse = null;
    this.answered = 0;
    this.turnActors = []; // the actor views a turn hook's changes bring (its encounter.turn event)
    this.turnPlayers = null; // the same actors in the event's players' copy (FoundryAdapter.public_view)
    this.ws.send = (data) => {
      this.ws.sent.push(data);
      const message = JSON.parse(data);
      if (message.type?.startsWith("encounter.")) queueMicrotask(() => this.#answer(message));
    };
  }

  #answer(message) {
    this.answered += 1;
    const refusal = this.refuse ?? this.#refusal(message);
    if (refusal) {
      this.ws.receive({ type: "error", id: message.id, code: refusal.code, message: refusal.message });
      return;
    }
    let kind;
    if (message.type === "encounter.start") {
      this.encounter = { order: message.order, round: 1, turn: 0, current: message.order[0] };
      kind = "encounter.started";
    } else if (message.type === "encounter.next") {
      const { order, round, turn } = this.encounter;
      const wraps = turn + 1 >= order.length;
      const next = wraps ? { order: message.order ?? order, round: round + 1, turn: 0 } : { order, round, turn: turn + 1 };
      this.encounter = { ...next, current: next.order[next.turn] };
      kind = "encounter.turn";
    } else if (message.type === "encounter.reorder") {
      const { round, current } = this.encounter;
      this.encounter = { order: message.order, round, turn: message.order.indexOf(current), current };
      kind = "encounter.reordered";
    } else {
      this.encounter = null;
      kind = "encounter.ended";
    }
    this.seq += 1;
    const event = { type: "event", table: "t1", epoch: 1, seq: this.seq, kind, request: message.id, data: { hooks: [] },
      actors: kind === "encounter.turn" ? this.turnActors : [], table_after: { encounter: this.encounter } };
    if (kind === "encounter.turn" && this.turnPlayers) event.players = { ...event, actors: this.turnPlayers };
    this.ws.receive(event);
    this.ws.receive({ type: "result", id: message.id, status: "done", seq: this.seq });
  }

  /** What the engine refuses (core/engine/turns.py), as {code, message}, or null. */
  #refusal(message) {
    const e = this.encounter;
    if (message.type === "encounter.start" && e) return { code: "encounter_state", message: "an encounter is already running; end it first" };
    if (message.type !== "encounter.start" && !e) return { code: "encounter_state", message: "no encounter is running" };
    const order = message.order;
    if (message.type === "encounter.reorder" && (!order.includes(e.current) || order.join() === e.order.join())) {
      return { code: "invalid_request", message: "order: refused" };
    }
    if (message.type === "encounter.next" && order && e.turn + 1 < e.order.length) {
      return { code: "invalid_request", message: "order: only for the turn that begins a new round" };
    }
    return null;
  }

  /** The encounter requests the client sent: [type, order?]. */
  requests() {
    return this.ws.messages().filter((m) => m.type?.startsWith("encounter.")).map((m) => (m.order ? [m.type, m.order] : [m.type]));
  }
}

async function settle() {
  for (let i = 0; i < 10; i++) {
    await sync?.queue;
    await client?.queue;
    await new Promise((r) => setImmediate(r));
  }
}

/** A combat with combatants for the actors named (initiative: first named goes first). */
async function combat(actors, names) {
  const fight = await Combat.create();
  await fight.createEmbeddedDocuments("Combatant", names.map((n, i) => ({ actorId: actors[n].id, initiative: 20 - i })));
  return fight;
}

test("core: the order, a move of the tracker, the steps to a turn", () => {
  assert.deepEqual(encounterOrder([{ actor: "a" }, { name: "X", actor: null }, { actor: "b" }, { name: "A again", actor: "a" }]),
    { order: ["a", "b"], left: ["X", "A again"] });
  const running = { order: ["a", "b", "c"], round: 1, turn: 2 };
  assert.equal(stepsTo(running, 2, "a"), 1);
  assert.equal(stepsTo(running, 2, "c"), 3);
  assert.equal(stepsTo(running, 1, "b"), -1);
  assert.equal(stepsTo(running, 2, "z"), null);
});

test("core: catching up with the tracker — steps, a new order within a round, a new round in a new order", () => {
  const running = { order: ["a", "b", "c"], round: 1, turn: 0 };
  const types = (plan) => plan.requests.map((r) => (r.order ? `${r.type} ${r.order.join("")}` : r.type));
  assert.deepEqual(types(catchUp(running, { round: 1, actor: "c", order: ["a", "b", "c"] })), ["encounter.next", "encounter.next"]);
  // initiative rolled after the start: a keeps its turn, now last
  assert.deepEqual(types(catchUp(running, { round: 1, actor: "a", order: ["c", "b", "a"] })), ["encounter.reorder cba"]);
  // ... and the next turn taken before it was sent: sorted first, then one step
  assert.deepEqual(types(catchUp(running, { round: 2, actor: "c", order: ["c", "b", "a"] })),
    ["encounter.next", "encounter.next", "encounter.next cba"], "round 1's turns in its order, round 2 in the new one");
  const last = { order: ["a", "b", "c"], round: 1, turn: 2 };
  assert.deepEqual(types(catchUp(last, { round: 2, actor: "c", order: ["c", "b", "a"] })), ["encounter.next cba"], "SWADE's new round");
  assert.deepEqual(types(catchUp(last, { round: 2, actor: "b", order: ["c", "b", "a"] })), ["encounter.next cba", "encounter.next"]);
  // the current actor left the tracker: its turn ends (old order), then the new order
  const atB = { order: ["a", "b", "c"], round: 1, turn: 1 };
  assert.deepEqual(types(catchUp(atB, { round: 1, actor: "c", order: ["a", "c"] })), ["encounter.next", "encounter.reorder ac"]);
  // behind the server: told only for a move back
  assert.deepEqual(catchUp(atB, { round: 1, actor: "a", order: ["a", "b", "c"] }), { requests: [], notice: null });
  assert.deepEqual(catchUp(atB, { round: 1, actor: "a", order: ["a", "b", "c"] }, { back: true }).notice, { key: "ROLLBRIDGE.Combat.NoBack" });
  assert.deepEqual(catchUp(running, { round: 3, actor: "b", order: ["a", "b", "c"] }).notice, { key: "ROLLBRIDGE.Combat.OutOfStep", data: { steps: 7 } });
  // Next Round and turns after it seen in one look (a new round's wait): the next round is in step
  assert.deepEqual(types(catchUp(running, { round: 2, actor: "c", order: ["a", "b", "c"] })), Array(5).fill("encounter.next"));
  assert.deepEqual(catchUp(last, { round: 3, actor: "a", order: ["a", "b", "c"] }).notice, { key: "ROLLBRIDGE.Combat.OutOfStep", data: { steps: 4 } });
});

for (const generation of [12, 13]) {
  test(`v${generation}: begin, next turn, round wrap and end send start, one next a turn, end`, async () => {
    const { actors, server } = await setup({ generation });
    const fight = await combat(actors, ["a", "b", "c"]);
    await fight.startCombat();
    await settle();
    assert.deepEqual(server.requests(), [["encounter.start", ["a", "b", "c"]]]);
    assert.deepEqual(client.encounter, { order: ["a", "b", "c"], round: 1, turn: 0, current: "a" }, "the event's table_after");
    await fight.nextTurn();
    await fight.nextTurn();
    await settle();
    assert.equal(server.requests().length, 3);
    // a turn hook's change (bandits' countdown of a dying bandit, say) comes as the event's actor
    // view: an NPC's, so its flags are written from the players' copy the GM's frame carries
    const dying = (common, limited) => ({ id: "b", controllers: [], ...(limited ? { limited } : {}), common,
      foundry: { flags: { rollbridge: { actorId: "b", seq: 4, limited, common } }, systems: {} } });
    const boxes = [{ key: "physical", label: "Physical", value: 11, max: 10 }];
    server.turnActors = [dying({ status: "dead", tracks: boxes, conditions: ["Physical: 11 boxes"] }, false)];
    server.turnPlayers = [dying({ status: "dead", tracks: [], conditions: ["Physical: Dead"] }, true)];
    await fight.nextTurn(); // c → round 2, a
    await settle();
    assert.deepEqual(server.requests().slice(1), [["encounter.next"], ["encounter.next"], ["encounter.next"]]);
    assert.deepEqual(actors.b.flags.rollbridge.common, { status: "dead", tracks: [], conditions: ["Physical: Dead"] },
      "written to the Foundry actor like any event's: the players' view");
    assert.deepEqual([actors.b.flags.rollbridge.view, actors.b.flags.rollbridge.limited], ["players", true]);
    assert.equal(Standin.log.messages.length, 0, "no chat card for an encounter event (docs/foundry.md)");
    assert.deepEqual(server.encounter, { order: ["a", "b", "c"], round: 2, turn: 0, current: "a" });
    await fight.endCombat();
    await settle();
    assert.deepEqual(server.requests().at(-1), ["encounter.end"]);
    assert.equal(server.encounter, null);
    assert.deepEqual(game.settings.get("rollbridge", "combat"), {}, "no combat followed any more");
    assert.deepEqual(Standin.log.notifications.filter((n) => n.level !== "info"), []);
  });
}

test("a player ending their own turn moves the encounter too (the hooks every client gets)", async () => {
  const { actors, server } = await setup();
  const fight = await combat(actors, ["a", "b"]);
  await fight.startCombat();
  await settle();
  // the player's own client moves the combat: no combatTurn hook on the GM's client
  await Standin.asUser(PLAYER, () => fight.nextTurn());
  await settle();
  assert.deepEqual(server.requests(), [["encounter.start", ["a", "b"]], ["encounter.next"]]);
});

test("Foundry's next round skips turns: one next for each, so the skipped turns' hooks run", async () => {
  const { actors, server } = await setup();
  const fight = await combat(actors, ["a", "b", "c"]);
  await fight.startCombat();
  await fight.nextRound(); // from a's turn: b and c are skipped
  await settle();
  assert.deepEqual(server.requests().slice(1), [["encounter.next"], ["encounter.next"], ["encounter.next"]]);
  assert.deepEqual(server.encounter.round, 2);
  assert.deepEqual(server.encounter.current, "a");
});

test("combatants whose actors are not on the table are left out, said once in the console; their turns send nothing", async (t) => {
  const info = t.mock.method(console, "info", () => {});
  const { actors, server } = await setup();
  const fight = await combat(actors, ["a", "x", "b"]);
  await fight.startCombat();
  await settle();
  assert.deepEqual(server.requests(), [["encounter.start", ["a", "b"]]]);
  const said = info.mock.calls.map((c) => String(c.arguments[0])).filter((s) => s.includes("Extra"));
  assert.equal(said.length, 1, "once");
  await fight.nextTurn(); // x's turn: a's turn goes on at the server
  await settle();
  assert.equal(server.requests().length, 1);
  await fight.nextTurn(); // b
  await fight.nextTurn(); // round 2, a
  await settle();
  assert.deepEqual(server.requests().slice(1), [["encounter.next"], ["encounter.next"]]);
  assert.deepEqual(server.encounter, { order: ["a", "b"], round: 2, turn: 0, current: "a" });
  assert.equal(info.mock.calls.map((c) => String(c.arguments[0])).filter((s) => s.includes("Extra")).length, 1);
});

test("going back is not sent: the GM is told (translated), and the tracker is followed again past that turn", async () => {
  const { actors, server } = await setup();
  await game.i18n.setLanguage("de");
  const fight = await combat(actors, ["a", "b", "c"]);
  await fight.startCombat();
  await fight.nextTurn(); // b
  await settle();
  await fight.previousTurn(); // back to a
  await settle();
  assert.equal(server.requests().length, 2, "nothing for going back");
  const warned = Standin.log.notifications.filter((n) => n.level === "warn");
  assert.equal(warned.length, 1);
  assert.match(warned[0].text, /keinen Zug zurück/);
  await fight.nextTurn(); // b again: the server is there already
  await settle();
  assert.equal(server.requests().length, 2);
  await fight.nextTurn(); // c
  await settle();
  assert.deepEqual(server.requests().at(-1), ["encounter.next"]);
  assert.equal(server.encounter.current, "c");
});

test("a refusal is shown to the GM with the server's message, once, and not sent again", async () => {
  const running = { order: ["b"], round: 3, turn: 0, current: "b" };
  const { actors, server } = await setup({ encounter: running });
  server.refuse = { code: "encounter_state", message: "an encounter is already running; end it first" };
  const fight = await combat(actors, ["a", "b"]);
  await fight.startCombat();
  await settle();
  const errors = Standin.log.notifications.filter((n) => n.level === "error");
  assert.equal(errors.length, 1);
  assert.equal(errors[0].text, "rollbridge: the server did not take the combat tracker's change: an encounter is already running; end it first",
    "the server's message alone: its code (encounter_state) is for the console");
  await fight.nextTurn();
  await fight.nextTurn();
  await fight.endCombat();
  await settle();
  assert.equal(server.answered, 1, "the combat it could not start is not followed: no next, no end");
  assert.deepEqual(server.requests(), [["encounter.start", ["a", "b"]]]);
});

test("the GM reloads mid-combat: no second start; the next turn goes on from the table's encounter in the welcome", async () => {
  let { actors, server } = await setup();
  const fight = await combat(actors, ["a", "b", "c"]);
  await fight.startCombat();
  await fight.nextTurn();
  await settle();
  const followed = game.settings.get("rollbridge", "combat");
  assert.deepEqual(followed, { table: "t1", id: fight.id, offset: 0 });
  // the reload: a new client (the same world: its combat and the hidden setting stay)
  sync.unregister();
  client.stop();
  client = new FoundryClient();
  client.start();
  sync = registerCombat(client, { roundQuiet: 0 });
  const ws = FakeWebSocket.last();
  ws.open();
  const hello = ws.messages().find((m) => m.type === "hello");
  ws.receive({ type: "welcome", id: hello.id, protocol: 1, role: "gm", epoch: 1, seq: server.seq, locale: "en",
    table: { id: "t1", actors: [], encounter: server.encounter } });
  server = new Server(ws, server.encounter, server.seq);
  await fight.update({ flags: { other: { x: 1 } } }); // a change that is no turn
  await fight.nextTurn(); // b → c
  await settle();
  assert.deepEqual(server.requests(), [["encounter.next"]], "no encounter.start after the reload");
  assert.equal(server.encounter.current, "c");
});

test("several combats: the one whose encounter runs is followed; another one's turns and deletion send nothing", async () => {
  const { actors, server } = await setup();
  const first = await combat(actors, ["a", "b"]);
  await first.startCombat();
  await settle();
  const second = await combat(actors, ["c"]);
  await second.startCombat();
  await second.nextTurn();
  await second.delete();
  await settle();
  assert.deepEqual(server.requests(), [["encounter.start", ["a", "b"]]]);
  assert.ok(Standin.log.notifications.some((n) => n.level === "warn" && /another combat/.test(n.text)));
  await first.nextTurn();
  await settle();
  assert.deepEqual(server.requests().at(-1), ["encounter.next"]);
});

test("a combatant added mid-combat joins the encounter's order; the turn stays with the current one", async () => {
  const { actors, server } = await setup();
  const fight = await combat(actors, ["a", "b"]);
  await fight.startCombat();
  await settle();
  await fight.createEmbeddedDocuments("Combatant", [{ actorId: actors.c.id, initiative: 30 }]); // sorts first
  await settle();
  assert.deepEqual(server.requests().slice(1), [["encounter.reorder", ["c", "a", "b"]]], "adding is no turn");
  assert.deepEqual(server.encounter, { order: ["c", "a", "b"], round: 1, turn: 1, current: "a" });
  await fight.nextTurn(); // b
  await fight.nextTurn(); // round 2: c
  await settle();
  assert.deepEqual(server.encounter, { order: ["c", "a", "b"], round: 2, turn: 0, current: "c" });
  await fight.deleteEmbeddedDocuments("Combatant", [fight.turns[0].id]); // c leaves on its own turn: a's
  await settle();
  assert.deepEqual(server.encounter, { order: ["a", "b"], round: 2, turn: 0, current: "a" });
  assert.deepEqual(server.requests().slice(-2), [["encounter.next"], ["encounter.reorder", ["a", "b"]]]);
});

test("with the world setting off nothing is sent", async () => {
  const { actors, server } = await setup({ settings: { "rollbridge.combatTracker": false } });
  const fight = await combat(actors, ["a", "b"]);
  await fight.startCombat();
  await fight.nextTurn();
  await fight.endCombat();
  await settle();
  assert.deepEqual(server.requests(), []);
  // switched on again: the next combat's start is sent
  await game.settings.set("rollbridge", "combatTracker", true);
  const next = await combat(actors, ["b", "a"]);
  await next.startCombat();
  await settle();
  assert.deepEqual(server.requests(), [["encounter.start", ["b", "a"]]]);
});

test("a player's client sends nothing (the GM moves the combat, the player ends a turn)", async () => {
  const { actors, server } = await setup({ user: "player", encounter: { order: ["a", "b"], round: 1, turn: 0, current: "a" } });
  const fight = await Standin.asUser(GM, () => combat(actors, ["a", "b"]));
  await Standin.asUser(GM, () => fight.startCombat());
  await fight.nextTurn(); // the player's own actor a: allowed to end its turn
  await Standin.asUser(GM, () => fight.endCombat());
  await settle();
  assert.deepEqual(server.requests(), []);
  assert.deepEqual(client.encounter, { order: ["a", "b"], round: 1, turn: 0, current: "a" }, "it knows the encounter all the same");
});

test("a player may not start a combat or end a turn that is not theirs (the stand-in is as strict as Foundry)", async () => {
  const { actors } = await setup({ user: "player" });
  await assert.rejects(Combat.create(), /lacks permission/);
  const fight = await Standin.asUser(GM, () => combat(actors, ["b", "a"]));
  await Standin.asUser(GM, () => fight.startCombat());
  await assert.rejects(fight.nextTurn(), /lacks permission/, "b's turn");
  await assert.rejects(fight.update({ active: false }), /lacks permission/);
  await assert.rejects(fight.update({ nonsense: 1 }), /unexpected field/);
});

test("the stand-in's combatTurnChange: once per step, not before the start, its prior state overwritten by the next change", async () => {
  const { actors } = await setup({ generation: 12 });
  const seen = [];
  const hook = Hooks.on("combatTurnChange", (combat, prior, current) => seen.push({ prior, now: { ...current }, was: { ...prior } }));
  const fight = await combat(actors, ["a", "b"]);
  assert.equal(seen.length, 0, "no turn change before the start");
  await fight.startCombat();
  await fight.nextTurn();
  Hooks.off("combatTurnChange", hook);
  assert.equal(seen.length, 2);
  assert.deepEqual(seen[0].was, { round: 0, turn: null, combatantId: null, tokenId: null });
  assert.equal(seen[0].prior, seen[1].prior, "the same object, as in Foundry");
  assert.equal(seen[0].prior.round, 1, "overwritten by the next change");
  assert.equal(game.combat, fight);
});

test("the module's entry point registers the setting and the combat hooks", async () => {
  await world({ users: USERS, user: "gm", generation: 13 });
  Standin.addActor({ _id: "fvtta00000000000", name: "Alvar", flags: { rollbridge: { actorId: "a" } } });
  await import("../../../adapters/foundry/module/scripts/rollbridge.mjs");
  await Standin.boot();
  assert.equal(game.settings.get("rollbridge", "combatTracker"), true, "on by default");
  const ws = FakeWebSocket.last();
  ws.open();
  const hello = ws.messages().find((m) => m.type === "hello");
  ws.receive({ type: "welcome", id: hello.id, protocol: 1, role: "gm", epoch: 1, seq: 0, locale: "en", table: { id: "t1", actors: [], encounter: null } });
  const fight = await Combat.create();
  await fight.createEmbeddedDocuments("Combatant", [{ actorId: "fvtta00000000000", initiative: 10 }]);
  await fight.startCombat();
  for (let i = 0; i < 20 && !ws.messages().some((m) => m.type === "encounter.start"); i++) await new Promise((r) => setTimeout(r, 5));
  assert.deepEqual(ws.messages().find((m) => m.type === "encounter.start")?.order, ["a"]);
  game.modules.get("rollbridge").api.disconnect();
});

// -- the review of the combat sync (notes/review-combat.md): F1–F7 ----------------------------

/** The tracker's and the server's turns, side by side: "r2 c | r2 c". */
const sides = (fight, server) => `r${fight.round} ${fight.combatant?.actor?.flags?.rollbridge?.actorId ?? "-"} | r${server.encounter?.round} ${server.encounter?.current}`;
/** The rollbridge ids of a combat's combatants: {a: combatant id, …}. */
const combatantIds = (fight) => Object.fromEntries(fight.combatants.contents.map((c) => [c.actor.flags.rollbridge.actorId, c.id]));
const noWarnings = () => Standin.log.notifications.filter((n) => n.level !== "info").map((n) => n.text);

test("a new world is a new page: the combat sync of the page before (never unregistered, as the module's is not) hears none of its hooks", async () => {
  await setup();
  const before = { client, sync }; // that page's: its hooks stay registered
  client = null;
  sync = null;
  before.client.stop();
  const { actors, server } = await setup();
  const fight = await combat(actors, ["a", "b"]);
  await fight.startCombat();
  await settle();
  await fight.endCombat();
  await settle();
  await before.sync.queue;
  before.sync.unregister();
  // the page before's sync shares the world setting of the combat followed: had it heard the
  // End Combat, it would have taken the followed combat off first and this page sent no end
  assert.deepEqual(server.requests(), [["encounter.start", ["a", "b"]], ["encounter.end"]]);
  assert.deepEqual(noWarnings(), [], "nor did it try to start the encounter on its closed connection");
});

test("the stand-in is Foundry's: started is round > 0, the active GM's turn hook after its turn events, initiative sorts again", async () => {
  const { actors } = await setup({ generation: 13 });
  const seen = [];
  const turnHook = Hooks.on("combatTurnChange", (combat, prior, current) => seen.push(["turn", prior.round, current.round, current.turn]));
  const updateHook = Hooks.on("updateCombat", (combat, changed) => seen.push(["update", Object.keys(changed).join()]));
  const combatantHook = Hooks.on("updateCombatant", (combatant, changes) => seen.push(["combatant", changes.initiative]));
  let release;
  Standin.turnEvents = () => new Promise((resolve) => { release = resolve; });
  const empty = await Combat.create();
  await empty.startCombat();
  assert.equal(empty.started, true, "begun with no combatant: started all the same");
  assert.deepEqual(seen, [["update", "round,turn"]], "the active GM's hook waits for its turn events");
  release();
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(seen.at(-1), ["turn", 0, 1, 0]);
  Standin.turnEvents = async () => {};
  seen.length = 0;
  const fight = await combat(actors, ["a", "b", "c"]);
  await fight.startCombat();
  await fight.nextTurn(); // b
  const ids = combatantIds(fight);
  await fight.rollInitiative([ids.c], { formula: "30" });
  assert.deepEqual(fight.turns.map((t) => t.id), [ids.c, ids.a, ids.b], "sorted again");
  assert.equal(fight.combatant.id, ids.b, "the same combatant's turn, at its new place");
  assert.equal(fight.turn, 2);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(seen.slice(-1), [["combatant", 30]], "v13: no turn hook for it");
  seen.length = 0;
  await fight.resetAll();
  assert.equal(fight.combatant.id, ids.b, "v13's resetAll keeps the turn");
  // combatants updated through their parent (Combat#update({combatants})): Foundry's update
  // workflow of the Combat only — updateCombat, its `changed` carrying them, no updateCombatant
  assert.deepEqual(seen, [["update", "combatants,turn"]], "no updateCombatant for a reset through the combat");
  seen.length = 0;
  await fight.update({ turn: fight.turn, round: fight.round }); // nothing differs: Foundry's diff drops it
  await fight.update({ "system.awaiting": true }); // a dotted key comes expanded
  assert.deepEqual(seen, [["update", "system"]], "an update that changes nothing fires no hook");
  Hooks.off("combatTurnChange", turnHook);
  Hooks.off("updateCombat", updateHook);
  Hooks.off("updateCombatant", combatantHook);
});

for (const generation of [12, 13]) {
  test(`v${generation} (F2): Begin Combat then Next Turn while the GM's turn events still run: started, and the turn sent`, async () => {
    const { actors, server } = await setup({ generation });
    Standin.turnEvents = () => new Promise((r) => setTimeout(r, 20)); // a system's _onStartTurn, a token update
    const fight = await combat(actors, ["a", "b", "c"]);
    await fight.startCombat();
    await fight.nextTurn();
    await new Promise((r) => setTimeout(r, 60));
    await settle();
    assert.deepEqual(server.requests(), [["encounter.start", ["a", "b", "c"]], ["encounter.next"]]);
    await fight.nextTurn();
    await new Promise((r) => setTimeout(r, 40));
    await settle();
    assert.deepEqual(sides(fight, server), "r1 c | r1 c");
    assert.deepEqual(noWarnings(), []);
  });

  test(`v${generation} (F1): begun before initiative, rolled after: the server's order follows, the current actor keeps its turn`, async () => {
    const { actors, server } = await setup({ generation });
    const fight = await Combat.create();
    await fight.createEmbeddedDocuments("Combatant", ["a", "b", "c"].map((n) => ({ actorId: actors[n].id })));
    await fight.startCombat(); // a, b, c (no initiative: by id)
    await settle();
    const ids = combatantIds(fight);
    await fight.rollInitiative([ids.c], { formula: "20" });
    await fight.rollInitiative([ids.b], { formula: "10" });
    await fight.rollInitiative([ids.a], { formula: "5" }); // c, b, a: a's turn goes on, now the last
    await settle();
    assert.deepEqual(server.encounter, { order: ["c", "b", "a"], round: 1, turn: 2, current: "a" });
    const log = [];
    for (let i = 0; i < 4; i++) {
      await fight.nextTurn();
      await settle();
      log.push(sides(fight, server));
    }
    assert.deepEqual(log, ["r2 c | r2 c", "r2 b | r2 b", "r2 a | r2 a", "r3 c | r3 c"]);
    assert.deepEqual(server.requests().filter(([type]) => type === "encounter.next").length, 4, "one next a turn");
    assert.deepEqual(noWarnings(), []);
  });
}

test("F1: a combatant's initiative changed mid-round: reordered, no turn sent, the next turn the tracker's", async () => {
  const { actors, server } = await setup();
  const fight = await combat(actors, ["a", "b", "c"]);
  await fight.startCombat();
  await fight.nextTurn(); // b
  await settle();
  await fight.combatants.get(combatantIds(fight).c).update({ initiative: 50 }); // c first: c, a, b; b's turn
  await settle();
  assert.deepEqual(server.requests().slice(-1), [["encounter.reorder", ["c", "a", "b"]]]);
  assert.deepEqual(server.encounter, { order: ["c", "a", "b"], round: 1, turn: 2, current: "b" });
  await fight.nextTurn(); // round 2: c
  await settle();
  assert.equal(sides(fight, server), "r2 c | r2 c");
});

// -- a new round read once the tracker has settled (its order dealt) -----------------------------
// The combat sync waits on the page's timers: the test's FakeClock stands in for setTimeout and
// clearTimeout, so a wait runs only when the test lets the time pass (the old module's fixed
// sleep ran on the same clock, and these tests caught it reading a half-dealt round).

/** The combat sync as the module registers it (its waits as they are), on a FakeClock. */
function onClock(t) {
  const clock = new FakeClock();
  t.mock.method(globalThis, "setTimeout", clock.setTimeout);
  t.mock.method(globalThis, "clearTimeout", clock.clearTimeout);
  sync.unregister();
  sync = registerCombat(client);
  return clock;
}

/** Let the work queued run (no time passes on the clock). */
async function flush() {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
}

/** Let `ms` pass on the clock, then the work it let go run. */
async function pass(clock, ms) {
  clock.advance(ms);
  await flush();
}

/** Let `ms` pass on the clock: nothing is sent before its last millisecond. Returns what was
 * sent since request `from` once it has passed. */
async function sentAfter(clock, server, from, ms, message = `nothing sent before ${ms} ms`) {
  await pass(clock, ms - 1);
  assert.deepEqual(server.requests().slice(from), [], message);
  await pass(clock, 1);
  await settle();
  return server.requests().slice(from);
}

/** SwadeCombat#resetAll: every combatant's initiative cleared and turn 0, in one update. */
async function swadeReset(fight) {
  await fight.update({ turn: 0, combatants: fight.combatants.contents.map((c) => ({ _id: c.id, initiative: null })) }, { diff: false });
}

/** A combat of a, b, c (created in that order: their ids sort so) at a's turn, the last of round 1. */
async function lastTurnOfRound1(actors) {
  const fight = await Combat.create();
  await fight.createEmbeddedDocuments("Combatant", [["a", 10], ["b", 20], ["c", 30]].map(([n, initiative]) => ({ actorId: actors[n].id, initiative })));
  await fight.startCombat(); // c, b, a
  await fight.nextTurn();
  await fight.nextTurn(); // a
  await settle();
  return fight;
}

/**
 * SwadeCombat#_nextRoundAsGM: resetAll (initiative cleared, turn 0, one update), nextRound, a
 * card for each combatant in `cards` order (rollInitiative: updateEmbeddedDocuments — a player's
 * card picked in a dialog, the NPCs' at once), then update({turn: 0}) once all have one; `gaps`:
 * the ms before each update after the reset (chat cards, bennies, a player's pick).
 */
async function swadeDeal(fight, clock, cards, gaps) {
  const wait = [...gaps];
  await swadeReset(fight);
  await flush();
  await pass(clock, wait.shift());
  await fight.nextRound();
  await flush();
  const ids = combatantIds(fight);
  for (const [name, initiative] of Object.entries(cards)) {
    await pass(clock, wait.shift());
    await fight.updateEmbeddedDocuments("Combatant", [{ _id: ids[name], initiative }]);
    await flush();
  }
  await pass(clock, wait.shift());
  await fight.update({ turn: 0 });
  await flush();
}

const QUIET = ROUND_QUIET_MS;

for (const generation of [12, 13]) {
  test(`v${generation}: SWADE's new round dealt over 0.75 s is read dealt: one next in the new order, nothing of the reset`, async (t) => {
    const { actors, server } = await setup({ generation, system: "swade" });
    const clock = onClock(t);
    const fight = await lastTurnOfRound1(actors);
    const sent = server.requests().length;
    // the reset sorts the tracker by id (a, b, c) at a's turn; c's card, b's, a's; the turn
    await swadeDeal(fight, clock, { c: 30, b: 50, a: 40 }, [150, 150, 150, 150, 150]);
    assert.deepEqual(server.requests().slice(sent), [], "nothing while the round is dealt (no reorder of the reset)");
    assert.deepEqual(await sentAfter(clock, server, sent, QUIET, "nor before the tracker has been quiet for the window"),
      [["encounter.next", ["b", "a", "c"]]], "a's round-1 turn ends, round 2 begins with b");
    assert.equal(sides(fight, server), "r2 b | r2 b");
    assert.deepEqual(noWarnings(), []);
  });
}

test("SWADE: a player's card picked in a dialog 2 s after the NPCs' is waited for (no change meanwhile), then the round is read", async (t) => {
  const { actors, server } = await setup({ system: "swade" });
  const clock = onClock(t);
  const fight = await lastTurnOfRound1(actors);
  const sent = server.requests().length;
  await swadeDeal(fight, clock, { b: 20, c: 10, a: 30 }, [50, 50, 50, 2000, 50]);
  await pass(clock, QUIET);
  await settle();
  assert.deepEqual(server.requests().slice(sent), [["encounter.next", ["a", "b", "c"]]]);
  assert.equal(sides(fight, server), "r2 a | r2 a");
  // the next round dealt at once (no player picks a card): read after the quiet window
  await fight.nextTurn();
  await fight.nextTurn(); // c
  await settle();
  const before = server.requests().length;
  await swadeDeal(fight, clock, { c: 50, a: 40, b: 39 }, [0, 0, 0, 0, 0]);
  assert.deepEqual(await sentAfter(clock, server, before, QUIET), [["encounter.next", ["c", "a", "b"]]]);
  assert.equal(sides(fight, server), "r3 c | r3 c");
});

test("the bound: a tracker that keeps changing, or a card never dealt (a combatant on hold), is read after ROUND_MAX_MS", async (t) => {
  const { actors, server } = await setup({ system: "swade" });
  const clock = onClock(t);
  const fight = await lastTurnOfRound1(actors);
  const sent = server.requests().length;
  const ids = combatantIds(fight);
  // round 2 dealt as round 1 was (c, b, a), at once: the look waits for the quiet window
  await swadeReset(fight);
  await fight.nextRound();
  await fight.updateEmbeddedDocuments("Combatant", [["c", 30], ["b", 20], ["a", 10]].map(([n, v]) => ({ _id: ids[n], initiative: v })));
  await fight.update({ turn: 0 });
  await flush();
  let elapsed = 0;
  for (let i = 1; elapsed + QUIET - 1 < ROUND_MAX_MS; i++) {
    await pass(clock, QUIET - 1);
    elapsed += QUIET - 1;
    await fight.combatants.get(ids.b).update({ initiative: 40 + i }); // b first, its initiative changed again and again
    await flush();
  }
  // as the tracker stands at the bound: round 2 in b, c, a, at c's turn (Foundry kept it)
  assert.deepEqual(await sentAfter(clock, server, sent, ROUND_MAX_MS - elapsed, "nothing before the bound"),
    [["encounter.next", ["b", "c", "a"]], ["encounter.next"]]);
  assert.equal(sides(fight, server), "r2 c | r2 c");
  // round 3: reset, two cards dealt, a's never (on hold)
  await fight.nextTurn(); // a, the last of round 2
  await settle();
  const before = server.requests().length;
  await swadeReset(fight);
  await fight.nextRound();
  await fight.updateEmbeddedDocuments("Combatant", [{ _id: ids.c, initiative: 50 }, { _id: ids.b, initiative: 40 }]);
  await fight.update({ turn: 0 });
  await flush();
  assert.deepEqual(await sentAfter(clock, server, before, ROUND_MAX_MS, "a's card is waited for"),
    [["encounter.next", ["c", "b", "a"]]], "a without a card: last");
  assert.equal(sides(fight, server), "r3 c | r3 c");
  // round 4, a still on hold: read without a card when the round was, it is not waited for again
  await fight.nextTurn();
  await fight.nextTurn(); // a, the last of round 3
  await settle();
  const third = server.requests().length;
  await swadeDeal(fight, clock, { b: 50, c: 40 }, [50, 50, 50, 50]);
  assert.deepEqual(await sentAfter(clock, server, third, QUIET), [["encounter.next", ["b", "c", "a"]]]);
});

test("SWADE in a slow world: the turn set 0.8 s after the last card is waited for; the round is read at its first turn", async (t) => {
  const { actors, server } = await setup({ system: "swade" });
  const clock = onClock(t);
  const fight = await lastTurnOfRound1(actors);
  const sent = server.requests().length;
  // the reset's first combatant (a, by id) keeps the turn while the cards come: b, a, c at a's
  await swadeDeal(fight, clock, { c: 30, b: 50, a: 40 }, [50, 50, 50, 50, 800]);
  assert.deepEqual(server.requests().slice(sent), [], "quiet for 0.8 s, dealt, but its turn not set yet");
  assert.deepEqual(await sentAfter(clock, server, sent, QUIET), [["encounter.next", ["b", "a", "c"]]],
    "read once the turn is set: round 2 begins with b, no turn of a's run");
  assert.equal(sides(fight, server), "r2 b | r2 b");
  assert.deepEqual(noWarnings(), []);
});

/**
 * SWADE's later SwadeCombat#_nextRoundAsGM (Foundry v13): resetAll (initiative cleared, turn 0, no turn events),
 * update({"system.awaitingNextRound": true}), a card for each combatant (updateEmbeddedDocuments,
 * no turn events) — the round not advanced yet —, and once all have one (the active GM's
 * _onUpdateDescendantDocuments) update({turn: last, "system.awaitingNextRound": false}) with no
 * turn events, then Combat#nextRound (round + 1, turn 0); `gaps`: the ms before each update
 * after the reset.
 */
async function swadeV13Deal(fight, clock, cards, gaps) {
  const wait = [...gaps];
  await fight.update({ turn: 0, combatants: fight.combatants.contents.map((c) => ({ _id: c.id, initiative: null })) },
    { turnEvents: false, diff: false });
  await flush();
  await pass(clock, wait.shift());
  await fight.update({ "system.awaitingNextRound": true });
  await flush();
  const ids = combatantIds(fight);
  for (const [name, initiative] of Object.entries(cards)) {
    await pass(clock, wait.shift());
    await fight.updateEmbeddedDocuments("Combatant", [{ _id: ids[name], initiative }], { turnEvents: false });
    await flush();
  }
  await pass(clock, wait.shift());
  await fight.update({ turn: fight.turns.length - 1, "system.awaitingNextRound": false }, { turnEvents: false });
  await flush();
  await pass(clock, wait.shift());
  await fight.nextRound();
  await flush();
}

test("SWADE's later code deals before it advances the round: read in the new round, also when the round comes 0.8 s after the last card", async (t) => {
  const { actors, server } = await setup({ system: "swade" });
  const clock = onClock(t);
  const fight = await lastTurnOfRound1(actors); // c, b, a: a's turn
  const sent = server.requests().length;
  await swadeV13Deal(fight, clock, { c: 30, b: 50, a: 40 }, [50, 50, 50, 50, 50, 50]);
  assert.deepEqual(await sentAfter(clock, server, sent, QUIET), [["encounter.next", ["b", "a", "c"]]]);
  assert.equal(sides(fight, server), "r2 b | r2 b");
  await fight.nextTurn();
  await fight.nextTurn(); // c, the last of round 2
  await settle();
  const before = server.requests().length;
  await swadeV13Deal(fight, clock, { c: 50, a: 40, b: 30 }, [50, 50, 50, 50, 800, 800]);
  assert.deepEqual(server.requests().slice(before), [], "dealt, its turn set to the last, but no new round yet");
  assert.deepEqual(await sentAfter(clock, server, before, QUIET), [["encounter.next", ["c", "a", "b"]]],
    "no turn of round 2 run again in the new order");
  assert.equal(sides(fight, server), "r3 c | r3 c");
  assert.deepEqual(noWarnings(), []);
});

test("SWADE's later code: a card picked past the bound sends nothing of the deal; its new round is read in its order, no turn of the old run again", async (t) => {
  // SWADE marks the deal (system.awaitingNextRound) and refuses Next Turn until it is done: read at
  // the bound, its reset and the cards dealt so far went to the server as new orders of round 1,
  // and its turn set to the last before the new round ran a turn of round 1 again
  const { actors, server } = await setup({ system: "swade" });
  const clock = onClock(t);
  const fight = await lastTurnOfRound1(actors); // c, b, a: a's turn
  const sent = server.requests().length;
  // a's card picked in a dialog a second past the bound
  await swadeV13Deal(fight, clock, { c: 30, b: 50, a: 40 }, [50, 50, 50, ROUND_MAX_MS + 1000, 50, 50]);
  assert.deepEqual(server.requests().slice(sent), [], "nothing while SWADE deals, past the bound too");
  await pass(clock, QUIET);
  assert.equal(sync.settling.size, 0, "its new round read once quiet");
  await settle();
  assert.deepEqual(server.requests().slice(sent), [["encounter.next", ["b", "a", "c"]]], "a's round-1 turn ends, round 2 begins with b");
  assert.equal(sides(fight, server), "r2 b | r2 b");
  const before = server.requests().length;
  await fight.nextTurn();
  await fight.nextTurn(); // c, the last of round 2
  await settle();
  assert.deepEqual(server.requests().slice(before), [["encounter.next"], ["encounter.next"]]);
  const third = server.requests().length;
  // a's card past the bound of the look the reset began, b's past the bound of the look a's began
  await swadeV13Deal(fight, clock, { c: 50, a: 40, b: 30 }, [50, 50, ROUND_MAX_MS + 50, ROUND_MAX_MS + 50, 50, 50]);
  assert.deepEqual(server.requests().slice(third), []);
  await pass(clock, QUIET);
  await settle();
  assert.deepEqual(server.requests().slice(third), [["encounter.next", ["c", "a", "b"]]]);
  assert.equal(sides(fight, server), "r3 c | r3 c");
  assert.deepEqual(noWarnings(), []);
});

test("SWADE's later code: a GM's page reloaded while SWADE deals sends nothing of the deal either", async (t) => {
  const { actors, server } = await setup({ system: "swade" });
  let clock = onClock(t);
  const fight = await lastTurnOfRound1(actors); // c, b, a: a's turn
  const sent = server.requests().length;
  const ids = combatantIds(fight);
  await fight.update({ turn: 0, combatants: fight.combatants.contents.map((c) => ({ _id: c.id, initiative: null })) },
    { turnEvents: false, diff: false });
  await fight.update({ "system.awaitingNextRound": true });
  await fight.updateEmbeddedDocuments("Combatant", [{ _id: ids.c, initiative: 30 }], { turnEvents: false });
  await flush();
  await pass(clock, ROUND_MAX_MS); // the look the reset began
  await pass(clock, ROUND_MAX_MS); // the one its later changes queued
  assert.equal(sync.settling.size, 0);
  assert.deepEqual(server.requests().slice(sent), []);
  // the GM reloads while a player picks a card: the page's combat sync has seen nothing of the combat
  sync.unregister();
  t.mock.restoreAll();
  clock = onClock(t);
  for (const [name, initiative] of [["b", 50], ["a", 40]]) {
    await fight.updateEmbeddedDocuments("Combatant", [{ _id: ids[name], initiative }], { turnEvents: false });
    await flush();
  }
  await fight.update({ turn: fight.turns.length - 1, "system.awaitingNextRound": false }, { turnEvents: false });
  await flush();
  assert.deepEqual(server.requests().slice(sent), [], "nothing while SWADE deals");
  await fight.nextRound();
  await flush();
  await pass(clock, QUIET);
  await settle();
  assert.deepEqual(server.requests().slice(sent), [["encounter.next", ["b", "a", "c"]]]);
  assert.equal(sides(fight, server), "r2 b | r2 b");
});

test("the GM's world setting 'Longest wait for a new round's order' (seconds) is the bound", async (t) => {
  const { actors, server } = await setup({ system: "swade" });
  const clock = onClock(t);
  assert.equal(game.settings.get("rollbridge", "roundWait"), ROUND_MAX_MS / 1000, "5 s by default");
  await game.settings.set("rollbridge", "roundWait", 12); // players who take their time to pick a card
  const fight = await lastTurnOfRound1(actors);
  const sent = server.requests().length;
  await swadeReset(fight);
  await fight.nextRound();
  await flush();
  await pass(clock, 11_000);
  const ids = combatantIds(fight);
  await fight.updateEmbeddedDocuments("Combatant", [["a", 3], ["b", 2], ["c", 1]].map(([n, v]) => ({ _id: ids[n], initiative: v })));
  await fight.update({ turn: 0 });
  await flush();
  assert.deepEqual(server.requests().slice(sent), [], "dealt after 11 s: still waited for");
  await pass(clock, QUIET);
  await settle();
  assert.deepEqual(server.requests().slice(sent), [["encounter.next", ["a", "b", "c"]]]);
});

for (const generation of [12, 13]) {
  test(`v${generation}: a plain new round (initiative kept, as dnd5e keeps it: no deal) is sent at once, and the turns after it`, async (t) => {
    const { actors, server } = await setup({ generation });
    const clock = onClock(t);
    const fight = await lastTurnOfRound1(actors);
    const sent = server.requests().length;
    await fight.nextTurn(); // round 2, the same order
    await flush(); // no time passes on the clock (a wait begun would hold sync.queue: not awaited here)
    assert.deepEqual(server.requests().slice(sent), [["encounter.next"]], "sent without the quiet window");
    assert.equal(sides(fight, server), "r2 c | r2 c");
    assert.equal(sync.settling.size, 0, "no wait begun");
    // Next Round from c's turn (b's and a's skipped), then two turns: each sent as it comes
    await fight.nextRound(); // round 3, c
    await flush();
    assert.deepEqual(server.requests().slice(sent + 1), Array(3).fill(["encounter.next"]));
    await fight.nextTurn(); // b
    await fight.nextTurn(); // a
    await flush();
    assert.deepEqual(server.requests().slice(sent + 4), Array(2).fill(["encounter.next"]));
    assert.equal(sides(fight, server), "r3 a | r3 a");
    assert.equal(clock.now, 0, "no time passed");
    assert.deepEqual(noWarnings(), []);
  });
}

test("a new round whose initiative changes as it comes (re-rolled, not cleared) is still read once settled", async (t) => {
  const { actors, server } = await setup();
  const clock = onClock(t);
  const fight = await lastTurnOfRound1(actors); // c, b, a: a's turn
  const sent = server.requests().length;
  const ids = combatantIds(fight);
  // a system that re-rolls every combatant at its new round, without clearing first, in one update
  await fight.update({ round: 2, turn: 0, combatants: [["a", 50], ["b", 40], ["c", 30]].map(([n, v]) => ({ _id: ids[n], initiative: v })) });
  await flush();
  assert.deepEqual(await sentAfter(clock, server, sent, QUIET), [["encounter.next", ["a", "b", "c"]]]);
  assert.equal(sides(fight, server), "r2 a | r2 a");
});

for (const generation of [12, 13]) {
  test(`v${generation}: Foundry's own Reset, Next Round and Roll All (no SWADE) are read once rolled, not at the bound`, async (t) => {
    // a dnd5e GM who has initiative rolled anew each round by hand. Foundry's rollInitiative
    // keeps the turn with the combatant that had it (v12: update({turn}); v13: combatTurn): after
    // the reset that is the reset's first combatant (a, by id), not the first of the round —
    // only SWADE's rollInitiative sets the first turn once every card is dealt
    const { actors, server } = await setup({ generation });
    const clock = onClock(t);
    const fight = await lastTurnOfRound1(actors); // c, b, a: a's turn
    const sent = server.requests().length;
    await fight.resetAll();
    await flush();
    await pass(clock, 100);
    await fight.nextRound();
    await flush();
    await pass(clock, 100);
    const ids = combatantIds(fight);
    for (const [name, value] of [["a", 5], ["b", 25], ["c", 15]]) {
      await fight.rollInitiative(ids[name], { formula: String(value) }); // the GM's Roll All, a player's own roll
      await flush();
    }
    assert.equal(fight.turn, 2, "the turn kept with a (Foundry's), not set to the first");
    await pass(clock, QUIET);
    assert.equal(sync.settling.size, 0, "the wait ended once the tracker was quiet, not at the bound");
    await settle();
    assert.deepEqual(server.requests().slice(sent), [["encounter.next", ["b", "c", "a"]], ["encounter.next"], ["encounter.next"]],
      "round 2 in its order, the turns up to a's, where the tracker is");
    assert.equal(sides(fight, server), "r2 a | r2 a");
  });
}

test("End Combat during a new round's wait ends the encounter at once; the round is not sent, no wait left", async (t) => {
  const { actors, server } = await setup({ system: "swade" });
  const clock = onClock(t);
  const fight = await lastTurnOfRound1(actors);
  const sent = server.requests().length;
  await swadeReset(fight);
  await fight.nextRound(); // round 2, no card dealt yet: the look waits
  await flush();
  assert.equal(sync.settling.size, 1);
  await fight.endCombat();
  await flush();
  await settle();
  assert.deepEqual(server.requests().slice(sent), [["encounter.end"]]);
  assert.equal(sync.settling.size, 0, "no wait left behind");
  assert.deepEqual(clock.pending().filter((ms) => ms <= ROUND_MAX_MS), [], "nor its timers (the connection's ping aside)");
  assert.deepEqual(noWarnings(), []);
});

for (const generation of [12, 13]) {
  test(`v${generation} (F3): back to round 0 and begun again: the encounter ends and starts again, no second start refused`, async () => {
    const { actors, server } = await setup({ generation });
    const fight = await combat(actors, ["a", "b"]);
    await fight.startCombat();
    await fight.nextTurn(); // b
    await settle();
    await fight.previousRound(); // round 1 → 0: Foundry fires no turn hook
    await fight.previousRound();
    await settle();
    await fight.createEmbeddedDocuments("Combatant", [{ actorId: actors.c.id, initiative: 30 }]);
    await fight.startCombat();
    await settle();
    assert.deepEqual(server.requests(), [
      ["encounter.start", ["a", "b"]], ["encounter.next"], ["encounter.end"], ["encounter.start", ["c", "a", "b"]],
    ]);
    assert.deepEqual(server.encounter, { order: ["c", "a", "b"], round: 1, turn: 0, current: "c" });
    assert.deepEqual(noWarnings(), []);
    const told = Standin.log.notifications.filter((n) => n.level === "info").map((n) => n.text);
    assert.ok(told.some((t) => /begun again from round 0/.test(t)), "the GM is told");
  });
}

test("F3: the GM is told in their language that the encounter started afresh", async () => {
  const { actors } = await setup();
  await game.i18n.setLanguage("cs");
  const fight = await combat(actors, ["a", "b"]);
  await fight.startCombat();
  await fight.previousRound();
  await fight.startCombat();
  await settle();
  assert.ok(Standin.log.notifications.some((n) => n.level === "info" && /zahájen znovu od kola 0/.test(n.text)));
});

test("F5: End Combat with the setting off still ends the encounter; the next combat starts", async () => {
  const { actors, server } = await setup();
  const fight = await combat(actors, ["a", "b"]);
  await fight.startCombat();
  await settle();
  await game.settings.set("rollbridge", "combatTracker", false);
  await fight.nextTurn(); // not sent
  await fight.endCombat();
  await settle();
  await game.settings.set("rollbridge", "combatTracker", true);
  const next = await combat(actors, ["b", "a"]);
  await next.startCombat();
  await settle();
  assert.deepEqual(server.requests(), [["encounter.start", ["a", "b"]], ["encounter.end"], ["encounter.start", ["b", "a"]]]);
  assert.deepEqual(noWarnings(), []);
});

test("F6: a turn and an End Combat while a new connection waits for its welcome are sent after it", async () => {
  let { actors, server } = await setup();
  const fight = await combat(actors, ["a", "b", "c"]);
  await fight.startCombat();
  await settle();
  client.start(); // a reconsider: the active GM changed back, the settings changed
  const ws = FakeWebSocket.last();
  ws.open();
  server = new Server(ws, server.encounter, server.seq);
  await fight.nextTurn(); // b: the encounter is not known yet
  await fight.endCombat();
  await new Promise((r) => setTimeout(r, 5));
  assert.deepEqual(server.requests(), [], "nothing before the welcome");
  const hello = ws.messages().find((m) => m.type === "hello");
  ws.receive({ type: "welcome", id: hello.id, protocol: 1, role: "gm", epoch: 1, seq: server.seq, locale: "en",
    table: { id: "t1", actors: [], encounter: server.encounter } });
  await settle();
  assert.deepEqual(server.requests(), [["encounter.next"], ["encounter.end"]]);
  assert.equal(server.encounter, null);
});

test("F7: a combat begun with no combatant on the table starts its encounter when combatants join", async () => {
  const { actors, server } = await setup();
  const fight = await Combat.create();
  await fight.startCombat();
  await settle();
  await fight.createEmbeddedDocuments("Combatant", ["a", "b"].map((n, i) => ({ actorId: actors[n].id, initiative: 20 - i })));
  await settle();
  await fight.nextTurn();
  await settle();
  assert.deepEqual(server.requests(), [["encounter.start", ["a", "b"]], ["encounter.next"]]);
  assert.equal(sides(fight, server), "r1 b | r1 b");
});

/** The server's event of a GM's undo or redo of event `seq`, the encounter after it `encounter`. */
function undoEvent(ws, server, kind, seq, encounter) {
  server.seq += 1;
  server.encounter = encounter;
  const key = kind === "undo" ? "undoes" : "redoes";
  ws.receive({ type: "event", table: "t1", epoch: 1, seq: server.seq, kind, data: { [key]: seq }, actors: [], table_after: { encounter } });
}

test("an undo of a turn (its hook card's Undo) moves the tracker back, a redo forward: nothing sent, the turn not run again", async () => {
  const { ws, actors, server } = await setup();
  const fight = await combat(actors, ["a", "b", "c"]);
  await fight.startCombat();
  await settle();
  await fight.nextTurn(); // b's turn
  await settle();
  const turnSeq = server.seq;
  const sent = server.requests().length;
  const undo = (kind, seq, encounter) => undoEvent(ws, server, kind, seq, encounter);
  undo("undo", turnSeq, { order: ["a", "b", "c"], round: 1, turn: 0, current: "a" });
  await settle();
  assert.deepEqual([fight.round, fight.combatant.actor.id], [1, actors.a.id], "the tracker back at a's turn");
  undo("redo", turnSeq, { order: ["a", "b", "c"], round: 1, turn: 1, current: "b" });
  await settle();
  assert.deepEqual([fight.round, fight.combatant.actor.id], [1, actors.b.id], "and forward again");
  assert.equal(server.requests().length, sent, "nothing sent for either");
  undo("undo", turnSeq, { order: ["a", "b", "c"], round: 1, turn: 0, current: "a" });
  await settle();
  await fight.nextTurn(); // the GM moves on: b's turn, once
  await settle();
  assert.deepEqual(server.requests().slice(sent), [["encounter.next"]]);
  assert.deepEqual([server.encounter.current, fight.combatant.actor.id], ["b", actors.b.id]);
  // the start undone: no encounter runs, the tracker is back at round 0; begun again, it starts
  undo("undo", server.seq, null);
  await settle();
  assert.equal(fight.round, 0);
  assert.deepEqual(server.requests().slice(sent + 1), []);
  await fight.startCombat();
  await settle();
  assert.deepEqual(server.requests().slice(sent + 1), [["encounter.start", ["a", "b", "c"]]]);
});

test("undoing a turn past a reorder (the web view's undo, twice) sends nothing, so the GM's redo takes both back; an undone reorder goes again at the tracker's next change", async () => {
  const { ws, actors, server } = await setup();
  const fight = await combat(actors, ["a", "b", "c"]);
  await fight.startCombat();
  await fight.nextTurn(); // b
  await settle();
  const turnSeq = server.seq;
  await fight.combatants.get(combatantIds(fight).c).update({ initiative: 50 }); // c, a, b; b's turn
  await settle();
  const reorderSeq = server.seq;
  const sent = server.requests().length;
  assert.deepEqual(server.requests().at(-1), ["encounter.reorder", ["c", "a", "b"]]);
  undoEvent(ws, server, "undo", reorderSeq, { order: ["a", "b", "c"], round: 1, turn: 1, current: "b" });
  await settle();
  undoEvent(ws, server, "undo", turnSeq, { order: ["a", "b", "c"], round: 1, turn: 0, current: "a" });
  await settle();
  assert.equal(sides(fight, server), "r1 a | r1 a", "the tracker back at a's turn");
  // a reorder sent here would be a new change: the server would drop its redo stack (the
  // turn and the reorder undone) and the GM's next undo would take that reorder
  assert.deepEqual(server.requests().slice(sent), [], "nothing sent for the tracker the undo moved");
  undoEvent(ws, server, "redo", turnSeq, { order: ["a", "b", "c"], round: 1, turn: 1, current: "b" });
  await settle();
  undoEvent(ws, server, "redo", reorderSeq, { order: ["c", "a", "b"], round: 1, turn: 2, current: "b" });
  await settle();
  assert.deepEqual(server.requests().slice(sent), [], "nor for the redos");
  await fight.nextTurn(); // round 2: c
  await settle();
  assert.deepEqual(server.requests().slice(sent), [["encounter.next"]]);
  assert.equal(sides(fight, server), "r2 c | r2 c");
  // an undone reorder alone: the tracker keeps its initiative's order, sent again with the next turn
  await fight.combatants.get(combatantIds(fight).a).update({ initiative: 60 }); // a, c, b; c's turn
  await settle();
  assert.deepEqual(server.requests().at(-1), ["encounter.reorder", ["a", "c", "b"]]);
  undoEvent(ws, server, "undo", server.seq, { order: ["c", "a", "b"], round: 2, turn: 0, current: "c" });
  await settle();
  const before = server.requests().length;
  await fight.nextTurn(); // b
  await settle();
  assert.deepEqual(server.requests().slice(before), [["encounter.reorder", ["a", "c", "b"]], ["encounter.next"]]);
  assert.equal(sides(fight, server), "r2 b | r2 b");
  assert.deepEqual(noWarnings(), []);
});

test("a replayed undo and an undo that did not change the encounter move nothing", async () => {
  const { ws, actors, server } = await setup();
  const fight = await combat(actors, ["a", "b", "c"]);
  await fight.startCombat();
  await settle();
  await fight.nextTurn();
  await settle();
  assert.equal(sync.undone({ kind: "undo", data: { undoes: 2 }, table_after: { encounter: server.encounter } }, { replayed: true }), null);
  server.seq += 1;
  ws.receive({ type: "event", table: "t1", epoch: 1, seq: server.seq, kind: "undo", data: { undoes: 1 }, actors: [{ id: "a" }] });
  await settle();
  assert.deepEqual([fight.round, fight.combatant.actor.id], [1, actors.b.id]);
});
