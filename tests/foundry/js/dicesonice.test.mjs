// Dice So Nice (issue 15, item 2): a public card's message is created with its
// rolls (no separate showForRoll), Dice So Nice animates those very results in
// the order the Rolls hold them, and the card of an event replayed after a
// reconnect is not animated again. The whole module is loaded as Foundry
// loads it (its esmodules entry, then init and ready) on the stand-in, with
// the stand-in of Dice So Nice's chat-message path (v6: its PreProcess hook).

import assert from "node:assert/strict";
import { test } from "node:test";

import { FakeWebSocket } from "./fakes.mjs";
import { bootModule, Standin, world } from "./standin.mjs";

await world({ generation: 13, system: "shadowrun5e" });
Standin.installDiceSoNice({ version: 6 });
const api = await bootModule();

const until = async (predicate, what, ms = 5000) => {
  const start = Date.now();
  while (!predicate()) {
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

function welcome(ws, extra = {}) {
  ws.open();
  const hello = ws.messages().find((m) => m.type === "hello");
  ws.receive({ type: "welcome", id: hello.id, protocol: 1, role: "gm", epoch: 1, seq: 0, locale: "en", table: { id: "t1", actors: [] }, ...extra });
  return hello;
}

// 3d6!! rolling 6+6+3, 2, 5: the Die term's results as the adapter emits them, in
// Foundry's order (adapters/foundry/dice_out.py; its order is checked in Python)
const RESULTS = [6, 2, 5, 6, 3];
function rollEvent(seq) {
  const results = RESULTS.map((result, i) => ({ result, active: true, ...(i === 0 || i === 3 ? { exploded: true } : {}) }));
  return {
    type: "event", table: "t1", epoch: 1, seq, kind: "roll", request: `r${seq}`,
    data: { formula: "3d6!!", total: 22, roll: { groups: [{ formula: "3d6!!", total: 22, dice: [{ faces: 6, rolls: [6, 6, 3], value: 15 }, { faces: 6, rolls: [2], value: 2 }, { faces: 6, rolls: [5], value: 5 }] }] } },
    actors: [],
    foundry: { speaker: null, rolls: [{ class: "Roll", formula: "3d6x", options: {}, dice: [], total: 22, evaluated: true, terms: [{ class: "Die", number: 3, faces: 6, modifiers: ["x"], options: {}, evaluated: true, results }] }] },
  };
}
const messageOf = (seq) => Standin.log.messages.find((m) => m.flags.rollbridge?.seq === seq);

test("a public card carries its rolls; Dice So Nice animates them, once, in their order", async () => {
  await until(() => FakeWebSocket.last(), "the connection");
  welcome(FakeWebSocket.last());
  await until(() => api.status().status === "connected", "connected");
  FakeWebSocket.last().receive(rollEvent(1));
  await until(() => messageOf(1), "the card");
  const message = messageOf(1);
  assert.equal(message.rolls.length, 1);
  assert.equal(message.rolls[0].total, 22);
  assert.equal(message.flags.rollbridge.replayed, false);
  const shown = Standin.log.dice3d.filter((d) => d.message === message.id);
  assert.equal(shown.length, 1);
  assert.equal(shown[0].animated, true);
  assert.deepEqual(shown[0].rolls[0].results, RESULTS);
  assert.deepEqual(Standin.log.showForRoll, [], "no separate showForRoll");
});

test("after a reconnect, a missed event's card is posted but not animated; a live one is", async () => {
  const first = FakeWebSocket.last();
  first.drop(1006);
  await until(() => FakeWebSocket.last() !== first, "the reconnect", 8000);
  const hello = welcome(FakeWebSocket.last(), { seq: 2, resume: { recovered: true, missed: 1 } });
  assert.deepEqual(hello.resume, { epoch: 1, seq: 1 });
  FakeWebSocket.last().receive(rollEvent(2)); // the missed one: the welcome's seq covers it
  FakeWebSocket.last().receive(rollEvent(3)); // new
  await until(() => messageOf(3), "the live card");
  const replayed = messageOf(2);
  assert.equal(replayed.flags.rollbridge.replayed, true);
  assert.equal(messageOf(3).flags.rollbridge.replayed, false);
  const animated = (m) => Standin.log.dice3d.filter((d) => d.message === m.id).map((d) => d.animated);
  assert.deepEqual(animated(replayed), [false]);
  assert.deepEqual(animated(messageOf(3)), [true]);
  assert.deepEqual(Standin.log.compatibility, [], "the v6 decision is made in PreProcess, nothing written later");
});

test("before v6 (the Processed hook only) the same handler turns a replayed card's animation off", async () => {
  const { skipReplayedDice } = await import("../../../adapters/foundry/module/scripts/foundry/chat.mjs");
  const replayed = { willTrigger3DRoll: true };
  skipReplayedDice(messageOf(2).id, replayed);
  assert.equal(replayed.willTrigger3DRoll, false);
  const live = { willTrigger3DRoll: true };
  skipReplayedDice(messageOf(3).id, live);
  assert.equal(live.willTrigger3DRoll, true);
});

// -- a whispered card (issue: its total showed before the dice landed) ------------------------
//
// Dice So Nice hides a public card's message while its dice roll on each client
// (its render hook's `dsn-hide`), so nobody reads the total first. A whispered
// card carries no rolls (foundry/chat.mjs): each client whose user reads it
// shows its dice with Dice So Nice's showForRoll, for this message, and hides
// the message until they land (foundry/dice.mjs). The render hooks are called
// here as Foundry calls them, after createChatMessage, with an element.

const [GM, PLAYER] = ["standinGM000001", "standinPlr00001"];
const ROLLING = "rb-dice-rolling";
globalThis.HTMLElement ??= class HTMLElement {};
/** A rendered message's element (v13's renderChatMessageHTML hands the <li>). */
class Rendered extends globalThis.HTMLElement {
  constructor(id) {
    super();
    this.dataset = { messageId: id };
    const classes = new Set();
    this.classList = { add: (c) => classes.add(c), remove: (c) => classes.delete(c), contains: (c) => classes.has(c) };
  }
  querySelector() {
    return null;
  }
}
function render(message) {
  const element = new Rendered(message.id);
  Hooks.callAll("renderChatMessageHTML", message, element, {});
  return element;
}
/** `fn` run as `userId`'s client (the world's message reaching another page). */
function asClientOf(userId, fn) {
  const me = game.user;
  game.user = game.users.get(userId);
  try {
    return fn();
  } finally {
    game.user = me;
  }
}
/** The message as it reaches `userId`'s client: its createChatMessage hooks run there. */
const arrive = (message, userId) => asClientOf(userId, () => ChatMessage._fromWorld({ data: message.toObject(), user: GM }));
const tick = () => new Promise((r) => setImmediate(r));
const note = (request, mode, user = PLAYER) => CONFIG.queries["rollbridge.relay"]({ type: "rollMode", request, mode, gm: user === GM, user });
const secretRoll = (seq, request) => ({ ...rollEvent(seq), request, gm_only: true, foundry: { ...rollEvent(seq).foundry, speaker: { alias: "Tukan" } } });
/** A player's secret roll of `mode`, its note first (a v13 query): the GM's client's card of it. */
async function playersSecretCard(seq, mode) {
  await note(`p-${seq}`, mode);
  FakeWebSocket.last().receive(secretRoll(seq, `p-${seq}`));
  await until(() => messageOf(seq), "the card");
  return messageOf(seq);
}

test("a whispered card is hidden on its reader's screen until Dice So Nice's dice land, as a public card is", async () => {
  Standin.installDiceSoNice({ version: 6, manual: true });
  Standin.log.showForRoll.length = 0;
  const ws = FakeWebSocket.last();
  ws.receive(secretRoll(4, "r4")); // a secret roll without a roll-mode note: blind, the GMs read it
  ws.receive(rollEvent(5));
  await until(() => messageOf(5), "both cards");
  const [secret, open] = [messageOf(4), messageOf(5)];
  assert.deepEqual([secret.whisper, secret.rolls.length, secret.author], [[GM], 0, GM]);
  const [secretShown, openShown] = [render(secret), render(open)];
  assert.ok(openShown.classList.contains("dsn-hide"), "Dice So Nice hides the public card while its dice roll");
  assert.ok(secretShown.classList.contains(ROLLING), "the whispered card is hidden too");
  // its dice: shown on this screen only, for this message, as its author's, with its speaker
  const [call] = Standin.log.showForRoll;
  assert.deepEqual(
    { user: call.user, synchronize: call.synchronize, users: call.users, blind: call.blind, messageID: call.messageID },
    { user: GM, synchronize: false, users: null, blind: false, messageID: secret.id },
  );
  assert.equal(call.speaker?.alias, "Tukan", "for Dice So Nice's 'hide NPC rolls'");
  assert.equal(call.formula, "3d6x");
  await tick();
  assert.ok(secretShown.classList.contains(ROLLING), "still rolling");
  Standin.landDice();
  await until(() => !secretShown.classList.contains(ROLLING), "the whispered card shown once its dice landed");
  await until(() => !openShown.classList.contains("dsn-hide"), "the public one likewise");
  assert.equal(render(secret).classList.contains(ROLLING), false, "rendered again afterwards: shown");
  // the roller of a blind roll does not read the card: nothing rolls on that screen
  const count = Standin.log.showForRoll.length;
  arrive(secret, PLAYER);
  assert.equal(Standin.log.showForRoll.length, count);
});

test("a player's GM roll: the dice roll on the GM's screen and on the roller's, each card hidden until they land", async () => {
  const message = await playersSecretCard(6, "gmroll");
  assert.deepEqual([message.whisper, message.author], [[GM], PLAYER]);
  const onGM = Standin.log.showForRoll.at(-1);
  assert.deepEqual([onGM.user, onGM.messageID, onGM.synchronize], [PLAYER, message.id, false], "the roller's dice, this message's");
  Standin.landDice();
  await until(() => onGM.landed, "landed on the GM's screen");
  await tick();
  // the same message reaches the roller's client: its dice roll there, the card hidden meanwhile
  arrive(message, PLAYER);
  const onPlayer = Standin.log.showForRoll.at(-1);
  assert.notEqual(onPlayer, onGM);
  assert.deepEqual([onPlayer.user, onPlayer.messageID, onPlayer.synchronize, onPlayer.blind], [PLAYER, message.id, false, false]);
  const shown = asClientOf(PLAYER, () => render(message));
  assert.ok(shown.classList.contains(ROLLING));
  Standin.landDice();
  await until(() => !shown.classList.contains(ROLLING), "the roller's card shown");
});

test("a player's self roll the GM's client posts: not animated on the GM's screen, which does not read it; on the roller's", async () => {
  const message = await playersSecretCard(7, "selfroll");
  assert.deepEqual([message.whisper, message.author], [[PLAYER], PLAYER]);
  const count = Standin.log.showForRoll.length;
  await tick();
  assert.equal(Standin.log.showForRoll.length, count, "no dice on the GM's screen");
  assert.equal(render(message).classList.contains(ROLLING), false);
  arrive(message, PLAYER);
  assert.deepEqual(Standin.log.showForRoll.slice(count).map((c) => [c.user, c.messageID]), [[PLAYER, message.id]]);
  Standin.landDice();
});

test("'Only show my dice' is each reader's own: the GM who ticked it reads the card at once, the roller sees the dice", async () => {
  game.user.flags = { "dice-so-nice": { settings: { onlyShowOwnDice: true } } };
  try {
    const message = await playersSecretCard(8, "gmroll");
    const dropped = Standin.log.showForRoll.at(-1);
    assert.deepEqual([dropped.user, dropped.dropped], [PLAYER, "onlyShowOwnDice"], "Dice So Nice shows the GM no other user's dice");
    await tick();
    assert.equal(render(message).classList.contains(ROLLING), false, "so the GM reads the card at once");
    arrive(message, PLAYER);
    const mine = Standin.log.showForRoll.at(-1);
    assert.deepEqual([mine.user, mine.dropped, mine.messageID], [PLAYER, undefined, message.id], "the roller's own dice on the roller's screen");
    Standin.landDice();
  } finally {
    game.user.flags = {};
  }
});

test("a whispered card replayed after a reconnect is not animated; a public turn hook's card is, by its rolls", async () => {
  const ws = FakeWebSocket.last();
  const count = Standin.log.showForRoll.length;
  // a turn hook's public card (wilddie's recovery roll, WD-9): its Rolls animate as a public card's
  const recovery = {
    type: "event", table: "t1", epoch: 1, seq: 9, kind: "encounter.turn", request: "n9",
    data: { round: 1, turn: 1, actor: "guard", hooks: [{ hook: "on_turn_start", actor: "guard", narration: "Guard tries to recover", steps: [], dice: [{ label: "Recovery", formula: "1d6!!", total: 2, dice: [{ faces: 6, rolls: [2], value: 2 }] }] }] },
    actors: [],
    foundry: { hooks: [{ rolls: [rollEvent(9).foundry.rolls[0]], speaker: null }] },
  };
  ws.receive({ ...recovery, players: { ...recovery } });
  await until(() => messageOf(9), "the hook's card");
  const card = messageOf(9);
  assert.equal(card.flags.rollbridge.hook, 0);
  const shown = Standin.log.dice3d.filter((d) => d.message === card.id);
  assert.deepEqual(shown.map((d) => [d.animated, d.rolls[0].results]), [[true, RESULTS]]);
  Standin.landDice();
  await until(() => shown[0].landed, "landed");
  // a whispered card replayed after a reconnect (flags.rollbridge.replayed)
  const secret = messageOf(4).toObject();
  await ChatMessage.create({ content: secret.content, whisper: secret.whisper, flags: { rollbridge: { ...secret.flags.rollbridge, replayed: true } } });
  await tick();
  assert.equal(Standin.log.showForRoll.length, count, "nothing animated");
});
