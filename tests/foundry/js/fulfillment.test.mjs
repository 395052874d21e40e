// The server's dice for every Foundry roll (issue 15, item 6): the `rollbridge`
// dice fulfillment method (CONFIG.Dice.fulfillment, v12+) run by the stand-in's
// Roll#evaluate — which, as Foundry's DiceTerm#roll does, awaits the method's
// handler once per die — against the module's real FoundryClient on a fake
// socket that plays the server's `draw` (docs/protocol.md, "Table requests").
//
// Checked: a term's dice come in one draw and the roll holds exactly the
// server's results in the server's order (explosions one draw each); the draw
// carries the roll's formula, the speaker's rollbridge actor and `secret` for
// the GM, blind and self roll modes; with no connection, no answer in time or
// an error reply the roll takes Foundry's own dice, is marked, and the user is
// told once; the world setting makes rollbridge Foundry's default method and
// back; a die size the user gave another method keeps it.

import assert from "node:assert/strict";
import { after, beforeEach, test } from "node:test";

import { FoundryClient } from "../../../adapters/foundry/module/scripts/foundry/client.mjs";
import {
  applyServerDice,
  flagLocalDice,
  registerFulfillment,
} from "../../../adapters/foundry/module/scripts/foundry/fulfillment.mjs";
import { registerSettings } from "../../../adapters/foundry/module/scripts/foundry/settings.mjs";
import { diceMark, faceValue, METHOD_ID } from "../../../adapters/foundry/module/scripts/core/fulfillment.mjs";
import { en } from "./localization.mjs";
import { Standin, welcomeClient, world } from "./standin.mjs";

// a seeded source (mulberry32): the server's dice and Foundry's own, reproducible
function seeded(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let client = null;
let dice = null;
/** The seq a test's table is joined at: a table with some history. */
const WELCOME_SEQ = 10;

/** The fake server: answers each `draw` as the server does (an event, then the brief
 * result), from `answer(message)` → results, or {error}, or null (no answer). */
function serve(ws, answer) {
  const requests = [];
  let seq = WELCOME_SEQ; // the events follow the welcome without a gap
  const send = ws.send.bind(ws);
  ws.send = (data) => {
    send(data);
    const message = JSON.parse(data);
    if (message.type !== "draw") return;
    requests.push(message);
    const given = answer(message, requests.length);
    if (given === null) return;
    queueMicrotask(() => {
      if (given.error) {
        ws.receive({ type: "error", id: message.id, code: given.error, message: `refused: ${given.error}` });
        return;
      }
      seq += 1;
      const data = { faces: message.faces, number: message.number, results: given, label: message.label ?? "", actor: message.actor ?? null, supplied: false };
      ws.receive({ type: "event", table: "t1", epoch: 1, seq, kind: "dice.drawn", data, gm_only: Boolean(message.secret) });
      ws.receive({ type: "result", id: message.id, status: message.secret ? "secret" : "done", seq, results: given });
    });
  };
  return requests;
}

/** The server's dice from a seeded source: `number` faces of `faces`. */
function serverDice(seed) {
  const random = seeded(seed);
  return (message) => Array.from({ length: message.number }, () => 1 + Math.floor(random() * message.faces));
}

async function setUp({ serverDiceOn = true, connect = true, user = "gm", role = "gm", timeoutMs = 200, settings = {} } = {}) {
  client?.stop();
  await world({ generation: 13, user, settings: { "rollbridge.serverDice": serverDiceOn, ...settings } });
  CONFIG.Dice.randomUniform = seeded(7); // Foundry's own dice, when they are used
  registerSettings(() => {}, { onServerDice: applyServerDice });
  client = new FoundryClient();
  dice = registerFulfillment(client, { timeoutMs });
  applyServerDice(game.settings.get("rollbridge", "serverDice"));
  client.start();
  return connect ? welcomeClient(client, { role, seq: WELCOME_SEQ }) : null;
}

function values(roll) {
  return roll.dice.flatMap((d) => d.results.map((r) => r.result));
}

beforeEach(() => {
  Standin.log.notifications.length = 0;
});

after(() => client?.stop());

test("the method is registered as Foundry's API has it, and the world setting makes it the default and back", async () => {
  await setUp({ serverDiceOn: false });
  const method = CONFIG.Dice.fulfillment.methods[METHOD_ID];
  assert.equal(method.interactive, false);
  assert.equal(typeof method.handler, "function");
  assert.notEqual(en.localize(method.label), method.label, "the method's label is a key of lang/en.json");
  assert.equal(CONFIG.Dice.fulfillment.defaultMethod, "", "off: Foundry's own default");
  await game.settings.set("rollbridge", "serverDice", true);
  assert.equal(CONFIG.Dice.fulfillment.defaultMethod, METHOD_ID);
  await game.settings.set("rollbridge", "serverDice", false);
  assert.equal(CONFIG.Dice.fulfillment.defaultMethod, "");
  const config = game.settings.settings.get("rollbridge.serverDice");
  assert.equal(config.scope, "world", "the GM's: a world setting");
  assert.equal(config.default, false);
});

test("a term's dice come in one draw, and the roll holds the server's results in order", async () => {
  const ws = await setUp();
  const answer = serverDice(1234);
  const given = [];
  const requests = serve(ws, (m) => {
    const results = answer(m);
    given.push(...results);
    return results;
  });
  const roll = new Roll("2d20 + 1d6 + 5");
  await roll.evaluate();
  assert.deepEqual(requests.map((r) => [r.faces, r.number, r.label]), [[20, 2, "2d20 + 1d6 + 5"], [6, 1, "2d20 + 1d6 + 5"]]);
  assert.deepEqual(values(roll), given);
  assert.equal(roll.total, given.reduce((a, b) => a + b, 0) + 5);
  assert.deepEqual(diceMark(roll), { dice: "server", draws: [11, 12] });
  assert.equal(Standin.log.fulfilled.filter((f) => f.method === METHOD_ID).length, 3, "Foundry asked the method per die");
  assert.equal(Standin.log.notifications.filter((n) => n.level === "warn").length, 0);
});

test("an exploding term: its first dice in one draw, each explosion one more, in Foundry's order", async () => {
  const ws = await setUp();
  // the server's faces, as a test script: the first batch has two sixes, the explosions a six, a three, a one
  const script = [[6, 2, 6], [6], [3], [1]];
  const requests = serve(ws, (_m, n) => script[n - 1]);
  const roll = new Roll("3d6x");
  await roll.evaluate();
  assert.deepEqual(requests.map((r) => r.number), [3, 1, 1, 1]);
  assert.deepEqual(values(roll), script.flat());
  assert.equal(roll.total, 24);
});

test("the draw names the speaker's rollbridge actor and is secret for the GM, blind and self roll modes", async () => {
  const ws = await setUp();
  const hero = Standin.addActor({ _id: "fvttHero00000001", name: "Hero", flags: { rollbridge: { actorId: "hero" } } });
  game.standinControlled = hero;
  const requests = serve(ws, serverDice(99));
  const secretOf = {};
  for (const mode of ["publicroll", "gmroll", "blindroll", "selfroll"]) {
    await game.settings.set("core", "rollMode", mode);
    await new Roll("1d8").evaluate();
    secretOf[mode] = requests.at(-1).secret === true;
  }
  assert.deepEqual(secretOf, { publicroll: false, gmroll: true, blindroll: true, selfroll: true });
  assert.ok(requests.every((r) => r.actor === "hero"));
  // a roll that carries its own mode (a system's) goes by it
  await game.settings.set("core", "rollMode", "publicroll");
  await new Roll("1d4", {}, { rollMode: "blindroll" }).evaluate();
  assert.equal(requests.at(-1).secret, true);
  game.standinControlled = null;
});

test("an actor the server says is not this user's: the draw goes again without it", async () => {
  const ws = await setUp({ user: "player", role: "player" });
  game.standinControlled = Standin.addActor({ _id: "fvttOrc000000001", name: "Orc", flags: { rollbridge: { actorId: "orc" } } });
  const answer = serverDice(5);
  const requests = serve(ws, (m) => (m.actor ? { error: "forbidden" } : answer(m)));
  const roll = new Roll("2d10");
  await roll.evaluate();
  assert.deepEqual(requests.map((r) => r.actor ?? null), ["orc", null]);
  assert.equal(diceMark(roll).dice, "server");
  assert.equal(Standin.log.notifications.filter((n) => n.level === "warn").length, 0);
  game.standinControlled = null;
});

test("no connection: Foundry's own dice, the roll marked, one notice for two rolls", async () => {
  await setUp({ connect: false });
  const first = new Roll("2d6");
  await first.evaluate();
  const second = new Roll("1d20");
  await second.evaluate();
  // Foundry's own dice: the stand-in's randomFace from the seeded source
  const foundry = seeded(7);
  const expected = [6, 6, 20].map((faces) => Math.ceil((1 - foundry()) * faces));
  assert.deepEqual([...values(first), ...values(second)], expected);
  assert.equal(diceMark(first).dice, "local");
  assert.equal(diceMark(first).reason, "not_connected");
  assert.equal(diceMark(second).dice, "local");
  const warnings = Standin.log.notifications.filter((n) => n.level === "warn");
  assert.equal(warnings.length, 1, "once, not per die or per roll");
  assert.match(warnings[0].text, /Foundry's own dice/);
  assert.equal(client.connection.pending.size, 0, "nothing queued for a reconnect");
});

test("no answer in time: the draw is forgotten, the roll takes Foundry's dice; after a good draw a new outage is told again", async () => {
  const ws = await setUp({ timeoutMs: 30 });
  let silent = true;
  const answer = serverDice(3);
  serve(ws, (m) => (silent ? null : answer(m)));
  const slow = new Roll("1d12");
  await slow.evaluate();
  assert.equal(diceMark(slow).dice, "local");
  assert.equal(diceMark(slow).reason, "timeout");
  assert.equal(client.connection.pending.size, 0, "not sent again after a reconnect");
  silent = false;
  const good = new Roll("1d12");
  await good.evaluate();
  assert.equal(diceMark(good).dice, "server");
  silent = true;
  await new Roll("1d12").evaluate();
  assert.equal(Standin.log.notifications.filter((n) => n.level === "warn").length, 2);
});

test("a refused draw whose message holds markup: the notice shows it as text (Foundry reads a notification as HTML)", async () => {
  const ws = await setUp();
  serve(ws, () => ({ error: "<b>no</b>&" })); // the stand-in server's message: "refused: <code>"
  await new Roll("1d6").evaluate();
  const warnings = Standin.log.notifications.filter((n) => n.level === "warn").map((n) => n.text);
  assert.equal(warnings.length, 1);
  assert.ok(warnings[0].includes("refused: &lt;b&gt;no&lt;/b&gt;&amp;"), warnings[0]);
  assert.ok(!warnings[0].includes("<b>"), warnings[0]);
});

test("an error reply mid-roll: the dice drawn stay the server's, the rest are Foundry's, the roll is marked", async () => {
  const ws = await setUp();
  const answer = serverDice(11);
  const requests = serve(ws, (m, n) => (n === 1 ? answer(m) : { error: "invalid_request" }));
  const roll = new Roll("1d20 + 1d8 + 1d4");
  await roll.evaluate();
  assert.equal(requests.length, 2, "after the refusal the roll asks no more");
  assert.deepEqual(diceMark(roll), { dice: "local", draws: [11], reason: "invalid_request" });
  assert.equal(Standin.log.notifications.filter((n) => n.level === "warn").length, 1);
  // the message keeps a flag of it (preCreateChatMessage), a server-dice roll's does not
  Hooks.on("preCreateChatMessage", flagLocalDice);
  const marked = await ChatMessage.create({ content: "x", rolls: [roll] });
  // a roll the server's dice evaluated earlier (rebuilt from its JSON: evaluated)
  const plain = Roll.fromData({ formula: "1d4", total: 3, evaluated: true,
    options: { rollbridge: { dice: "server", draws: [12] } },
    terms: [{ class: "Die", number: 1, faces: 4, results: [{ result: 3, active: true }] }] });
  const clean = await ChatMessage.create({ content: "y", rolls: [plain] });
  Hooks.off("preCreateChatMessage", flagLocalDice);
  assert.equal(marked.getFlag("rollbridge", "localDice"), true);
  assert.equal(clean.getFlag("rollbridge", "localDice"), undefined);
});

test("setting off: Foundry's own dice, no draw, no mark; a die size the user set to another method keeps it", async () => {
  const off = await setUp({ serverDiceOn: false });
  const none = serve(off, serverDice(1));
  const roll = new Roll("1d20");
  await roll.evaluate();
  assert.equal(none.length, 0);
  assert.equal(diceMark(roll), null);
  const ws = await setUp({ settings: { "core.diceConfiguration": { d6: "mersenne" } } });
  const requests = serve(ws, serverDice(2));
  await new Roll("1d20 + 1d6").evaluate();
  assert.deepEqual(requests.map((r) => r.faces), [20]);
});

test("a server face becomes the term's own value through its mapping of a uniform draw", () => {
  const die = new Die({ number: 1, faces: 20 });
  for (let face = 1; face <= 20; face++) assert.equal(faceValue(die, face), face);
  // a coin as Foundry maps it (Math.round of the uniform draw): face 1 heads (1), face 2 tails (0)
  const coin = { faces: 2, mapRandomFace: (u) => Math.round(u) };
  assert.deepEqual([faceValue(coin, 1), faceValue(coin, 2)], [1, 0]);
});
