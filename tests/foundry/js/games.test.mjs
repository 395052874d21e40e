// What the audit of the module in real games found (notes: audit-foundry-games):
// behaviour of real Foundry v12/v13 and Dice So Nice the stand-in now models,
// and the module's answers to it.
//
// - F1: v12's ChatMessage#_preCreate applies the creating user's own chat roll
//   mode to a message with rolls and no whisper; a public card must not be
//   whispered because the GM keeps "Private GM Roll" on.
// - F2: Dice So Nice's showForRoll does not resolve while the GM's tab is
//   hidden; the one-at-a-time queue of events must not wait for it (a
//   whispered card's dice roll on each reader's screen, the card hidden until
//   they land: dicesonice.test.mjs).
// - F3: a player's client posts its own card while no GM is active (the GM
//   reloads); the GM's client, resuming, must not post the same card again.
// - F4: the GM's client must not act with its authority on a relayed "apply"
//   whose sender is only what the message says (a v13 query handler is not
//   told who asks; a module socket message is, by Foundry's server).
// - F5: a player's look-alike of an upcoming event's card (the next seq, the
//   module's flags, a forged result) must not keep the GM's client from posting
//   the real card: only a GM's card, or the requester's own posted while no GM
//   was active, counts as the event's card (core/state.mjs cardTrusted).
// - F6: while no GM is active, another player may post a card naming a player's
//   request (every client receives its id with the event): a player's card counts
//   only as the card of a request whose id names its author (userRequestId).

import assert from "node:assert/strict";
import { after, test } from "node:test";

import { cardPosted } from "../../../adapters/foundry/module/scripts/core/state.mjs";
import { registerRelay, socketSender } from "../../../adapters/foundry/module/scripts/foundry/relay.mjs";
import { FoundryClient } from "../../../adapters/foundry/module/scripts/foundry/client.mjs";
import { animateWhisperedDice, hideWhileRolling } from "../../../adapters/foundry/module/scripts/foundry/dice.mjs";
import { FakeWebSocket } from "./fakes.mjs";
import { localization } from "./localization.mjs";
import { registerModuleSettings, rollEvent, settle, Standin, until, welcomeClient, welcomeResumed, world } from "./standin.mjs";

/** The boss's attack on Alice's PC, with a follow-up a player may apply (seq 3). */
function bossAttacksAlice() {
  return {
    type: "event", table: "t1", epoch: 1, seq: 3, kind: "resolution", request: "r3",
    data: { action: "attack", actor: "boss", targets: ["alice-pc"], apply: { action: "damage", params: { code: "6M" } }, dice: [] },
    actors: [], foundry: { rolls: [], speaker: null },
  };
}

const USERS = [
  { _id: "standinGM000001", name: "Gamemaster", isGM: true },
  { _id: "standinPlr00001", name: "Player" },
];
const [GM, PLAYER] = USERS.map((u) => u._id);

let client = null;
after(() => {
  client?.stop();
  Standin.uninstall();
});

/** What `userId` can read of a message: [visible, content visible]. */
function readBy(message, userId) {
  const me = game.user;
  game.user = game.users.get(userId);
  try {
    return [message.visible, message.isContentVisible];
  } finally {
    game.user = me;
  }
}

async function gmClient({ generation = 13, settings = {} } = {}) {
  client?.stop();
  await world({ users: USERS, user: "gm", generation, settings });
  await registerModuleSettings();
  game.ready = true;
  client = new FoundryClient();
  client.start();
  return welcomeClient(client, { role: "gm" });
}

test("F1: the stand-in applies v12's _preCreate roll mode: the creating user's own, unless the message says", async () => {
  await world({ users: USERS, user: "gm", generation: 12 });
  await game.settings.set("core", "rollMode", "gmroll");
  const roll = () => Roll.fromData(rollEvent(1).foundry.rolls[0]);
  const plain = await ChatMessage.create({ content: "x", rolls: [roll()] });
  assert.deepEqual(plain.whisper, [GM], "v12: the GM's own mode whispers it");
  const told = await ChatMessage.create({ content: "x", rolls: [roll()] }, { rollMode: "publicroll" });
  assert.deepEqual(told.whisper, []);
  const noRolls = await ChatMessage.create({ content: "x" });
  assert.deepEqual(noRolls.whisper ?? [], [], "a message without rolls is not a roll");
  await world({ users: USERS, user: "gm", generation: 13 });
  await game.settings.set("core", "rollMode", "gmroll");
  assert.deepEqual((await ChatMessage.create({ content: "x", rolls: [roll()] })).whisper ?? [], [], "v13 applies options.rollMode only");
});

for (const mode of ["gmroll", "blindroll", "selfroll"]) {
  test(`F1: on v12 a public card stays public when the GM's own chat roll mode is ${mode}`, async () => {
    const ws = await gmClient({ generation: 12 });
    await game.settings.set("core", "rollMode", mode);
    ws.receive(rollEvent(1));
    await settle(client);
    const message = Standin.log.messages.find((m) => m.flags.rollbridge?.seq === 1);
    assert.ok(message, "the card");
    assert.deepEqual(message.whisper, []);
    assert.ok(!message.blind);
    assert.deepEqual(readBy(message, PLAYER), [true, true], "the player reads it");
    assert.equal(message.rolls.length, 1);
  });
}

globalThis.HTMLElement ??= class HTMLElement {};
/** A rendered message's element, for the render hooks (v13: the <li> itself). */
class Rendered extends globalThis.HTMLElement {
  constructor() {
    super();
    const classes = new Set();
    this.classList = { add: (c) => classes.add(c), remove: (c) => classes.delete(c), contains: (c) => classes.has(c) };
  }
}

test("F2: a whispered card's dice in a hidden tab hold up neither its card nor later cards and actor writes", async () => {
  const ws = await gmClient({ generation: 13 });
  Standin.installDiceSoNice({ version: 6, hidden: true });
  // the module's own hook (rollbridge.mjs): a whispered card's dice on each reader's screen
  Hooks.on("createChatMessage", animateWhisperedDice);
  const pc = Standin.addActor({ _id: "fvttPc0000000001", name: "Pc", ownership: { [PLAYER]: 3 }, flags: { rollbridge: { actorId: "pc" } } });
  client.modes.note("p-gm", { user: PLAYER, mode: "gmroll", gm: false }); // a player's GM roll: not blind
  ws.receive(rollEvent(1, { request: "p-gm", gmOnly: true }));
  const hurt = { id: "pc", controllers: ["player"], foundry: { flags: { rollbridge: { common: { tracks: [{ key: "hp", value: 3, max: 10 }] } } } } };
  ws.receive({ ...rollEvent(2, { request: "p-public" }), actors: [hurt] });
  for (let i = 0; i < 50 && Standin.log.messages.length < 2; i++) await new Promise((r) => setTimeout(r, 5));
  const seqs = Standin.log.messages.map((m) => m.flags.rollbridge?.seq);
  assert.deepEqual(seqs, [1, 2], "both cards, in order, while the tab is hidden");
  const [secret] = Standin.log.messages;
  assert.equal(Standin.log.showForRoll.length, 1, "the whispered card's dice were asked for");
  assert.deepEqual([Standin.log.showForRoll[0].user, Standin.log.showForRoll[0].messageID], [PLAYER, secret.id]);
  assert.deepEqual(pc.flags.rollbridge.common.tracks[0].value, 3, "the actor is written");
  const element = new Rendered();
  assert.equal(hideWhileRolling(secret, element), true, "the card waits for its dice, as Dice So Nice holds a public one");
  Standin.setTabHidden(false);
  await settle(client);
  assert.equal(element.classList.contains("rb-dice-rolling"), false, "shown once they landed");
  assert.equal(Standin.log.messages.length, 2, "nothing posted twice once the tab is visible");
  Hooks.off("createChatMessage", animateWhisperedDice);
  delete game.dice3d;
});

/** A player's client (`user`) in a world of `users`, welcomed as a player at seq 4: its socket. */
async function playerClient({ users, user, generation }) {
  client?.stop();
  await world({ users, user, generation });
  await registerModuleSettings();
  game.ready = true;
  client = new FoundryClient();
  client.start();
  return welcomeClient(client, { role: "player", seq: 4 });
}

test("F3: the GM's client resuming after a reload does not post again a card a player's client posted meanwhile", async () => {
  const users = (gmActive) => [{ ...USERS[0], active: gmActive }, USERS[1]];
  // the player's browser while the GM's page reloads: no active GM, so it posts its own card
  let ws = await playerClient({ users: users(false), user: PLAYER, generation: 13 });
  const rolled = client.roll("1d6");
  for (let i = 0; i < 50 && !ws.messages().some((m) => m.type === "foundry.roll"); i++) await new Promise((r) => setImmediate(r));
  const request = ws.messages().find((m) => m.type === "foundry.roll");
  ws.receive(rollEvent(5, { request: request.id }));
  ws.receive({ type: "result", id: request.id, status: "done", seq: 5 });
  await rolled;
  await settle(client);
  const players = Standin.log.messages.filter((m) => m.flags.rollbridge?.seq === 5);
  assert.equal(players.length, 1, "the player's client posted the card");
  const stored = players[0].toObject();
  client.stop();
  // the GM's browser after the reload: the world's chat holds the player's card; the GM
  // resumes from its saved cursor and gets the same event again, replayed
  await world({ users: users(true), user: "gm", generation: 13 });
  await registerModuleSettings();
  await game.settings.set("rollbridge", "cursor", { table: "t1", epoch: 1, seq: 4 });
  await ChatMessage._fromWorld({ data: stored, user: PLAYER });
  game.ready = true;
  client = new FoundryClient();
  client.start();
  let hello;
  ({ ws, hello } = welcomeResumed(client, { seq: 5, missed: 1 }));
  assert.deepEqual(hello.resume, { epoch: 1, seq: 4 });
  ws.receive(rollEvent(5, { request: request.id }));
  ws.receive(rollEvent(6, { request: "another" }));
  await settle(client);
  const cards = (seq) => [...game.messages.values()].filter((m) => m.flags.rollbridge?.seq === seq);
  assert.equal(cards(5).length, 1, "one roll, one card");
  assert.equal(cards(6).length, 1, "a new event still gets its card");
  // another table, epoch or kind with the same seq is another card; a roller's own card
  // of a GM or self roll is not the card of the event
  const messages = game.messages.contents;
  assert.ok(cardPosted(messages, { table: "t1", epoch: 1, seq: 5, kind: "roll" }));
  assert.ok(!cardPosted(messages, { table: "t2", epoch: 1, seq: 5, kind: "roll" }));
  assert.ok(!cardPosted(messages, { table: "t1", epoch: 2, seq: 5, kind: "roll" }));
  assert.ok(!cardPosted(messages, { table: "t1", epoch: 1, seq: 5, kind: "resolution" }));
  const own = { flags: { rollbridge: { table: "t1", epoch: 1, seq: 7, kind: "roll", secret: true, view: "players", requester: true } } };
  assert.ok(!cardPosted([own], { table: "t1", epoch: 1, seq: 7, kind: "roll" }));
});

for (const generation of [12, 13]) {
  test(`F3: a macro's request with an id of its own: the GM's client resuming posts no second card beside the player's (v${generation})`, async () => {
    const { requestUser } = await import("../../../adapters/foundry/module/scripts/core/protocol.mjs");
    const users = (gmActive) => [{ ...USERS[0], active: gmActive }, USERS[1]];
    // the player's macro, while the GM's page reloads (no active GM): `api.request` with its own id
    let ws = await playerClient({ users: users(false), user: PLAYER, generation });
    const asked = client.ask({ type: "foundry.roll", id: "macro-roll-7", formula: "1d6" }); // api.request
    for (let i = 0; i < 50 && !ws.messages().some((m) => m.type === "foundry.roll"); i++) await new Promise((r) => setImmediate(r));
    const request = ws.messages().find((m) => m.type === "foundry.roll");
    assert.equal(requestUser(request.id), PLAYER, `${request.id} names the player`);
    assert.ok(request.id.endsWith("macro-roll-7"), "the macro's own id is still in it");
    ws.receive(rollEvent(5, { request: request.id }));
    ws.receive({ type: "result", id: request.id, status: "done", seq: 5 });
    await asked;
    await settle(client);
    const stored = Standin.log.messages.filter((m) => m.flags.rollbridge?.seq === 5).map((m) => m.toObject());
    assert.equal(stored.length, 1, "the player's client posted the card");
    client.stop();
    // the GM's browser after its reload resumes from its cursor and gets the event again
    await world({ users: users(true), user: "gm", generation });
    await registerModuleSettings();
    await game.settings.set("rollbridge", "cursor", { table: "t1", epoch: 1, seq: 4 });
    await ChatMessage._fromWorld({ data: stored[0], user: PLAYER });
    game.ready = true;
    client = new FoundryClient();
    client.start();
    ({ ws } = welcomeResumed(client, { seq: 5, missed: 1 }));
    ws.receive(rollEvent(5, { request: request.id }));
    await settle(client);
    const cards = [...game.messages.values()].filter((m) => m.flags.rollbridge?.seq === 5);
    assert.deepEqual(cards.map((m) => m.author?.id ?? m.author), [PLAYER], "one card, the player's");
  });
}

test("a macro's own id is sent naming its user: the same id each time, within 64 characters; one the protocol refuses as given", async () => {
  const { namingRequestId, requestUser } = await import("../../../adapters/foundry/module/scripts/core/protocol.mjs");
  assert.equal(namingRequestId("macro-1", PLAYER), `fvtt@${PLAYER}-macro-1`);
  assert.equal(namingRequestId("macro-1", PLAYER), namingRequestId("macro-1", PLAYER), "a repeat is the same request");
  const own = `fvtt@${PLAYER}-abc`;
  assert.equal(namingRequestId(own, PLAYER), own, "an id naming the user already is kept");
  // another user's name in it: the sender's is put before it
  assert.equal(requestUser(namingRequestId(`fvtt@${GM}-abc`, PLAYER)), PLAYER);
  const long = "m".repeat(60);
  const hashed = namingRequestId(long, PLAYER);
  assert.ok(hashed.length <= 64 && requestUser(hashed) === PLAYER && hashed !== namingRequestId("n".repeat(60), PLAYER), hashed);
  assert.equal(namingRequestId("", PLAYER), "");
  assert.equal(namingRequestId("x".repeat(65), PLAYER), "x".repeat(65));
  assert.equal(namingRequestId("macro-1", "not a user id!"), "macro-1");
});

test("an id the protocol refuses is sent as the macro gave it, whatever its length; its characters counted as the server counts them", async () => {
  const { namingRequestId, requestUser, takesId } = await import("../../../adapters/foundry/module/scripts/core/protocol.mjs");
  // a control or bidirectional character, or a lone surrogate: the server refuses the id
  // (invalid_request); long enough that the named id would pass 64 characters, it must
  // not be hashed into one the server takes and runs
  for (const bad of [`roll\t${"x".repeat(50)}`, `\u202e${"y".repeat(50)}`, `\ud800${"z".repeat(50)}`, "a\nb"]) {
    assert.equal(namingRequestId(bad, PLAYER), bad, `${JSON.stringify(bad)} sent as given, for the server to refuse`);
    assert.ok(!takesId(bad), JSON.stringify(bad));
  }
  // emoji: one character each for the server (Python's len), two UTF-16 units for JavaScript
  const dice = "\u{1F3B2}".repeat(40); // 40 characters: an id the server takes
  const named = namingRequestId(dice, PLAYER);
  assert.equal(requestUser(named), PLAYER, `${named} names the player`);
  assert.ok(takesId(dice));
  assert.ok([...named].length <= 64, named);
  const short = "\u{1F3B2}".repeat(30); // named whole: 21 + 30 characters
  assert.equal(namingRequestId(short, PLAYER), `fvtt@${PLAYER}-${short}`, "kept whole, not hashed");
  // two users' macros with the same id are two requests
  assert.notEqual(namingRequestId("macro-1", PLAYER), namingRequestId("macro-1", GM));
});

/** A player's look-alike of the card of event `seq` (table t1, epoch 1), a forged 6 in it. */
function forgedCard(seq, request) {
  return {
    _id: `forged${seq}${request ?? ""}`.padEnd(16, "0").slice(0, 16), author: PLAYER, content: "<div class=\"rollbridge-card\">1d6 = 6</div>",
    flags: { rollbridge: { table: "t1", epoch: 1, seq, kind: "roll", request, rolls: [], secret: false, requester: false, view: "players" } },
  };
}

for (const generation of [12, 13]) {
  test(`F5: a player's look-alike of the next event's card does not stop the GM's client posting the real one (v${generation})`, async () => {
    const users = [{ ...USERS[0], active: true }, USERS[1]];
    const gmCards = (seq) => [...game.messages.values()].filter((m) => m.flags.rollbridge?.seq === seq && (m.author?.id ?? m.author) === GM);
    // live: the GM's client is connected, so a GM is active and no player's card is one
    client?.stop();
    await world({ users, user: "gm", generation });
    await registerModuleSettings();
    game.ready = true;
    client = new FoundryClient();
    client.start();
    let ws = welcomeClient(client, { seq: 4 });
    await settle(client);
    // one without a request, and one that names it (the player's own roll's chosen id)
    await ChatMessage._fromWorld({ data: forgedCard(5, null), user: PLAYER });
    await ChatMessage._fromWorld({ data: forgedCard(6, "mine"), user: PLAYER });
    ws.receive(rollEvent(5, { request: "r5", total: 2 }));
    ws.receive(rollEvent(6, { request: "mine", total: 3 }));
    await settle(client);
    assert.equal(gmCards(5).length, 1, "the GM's client posts the real card of seq 5");
    assert.equal(gmCards(6).length, 1, "and of seq 6, though the look-alike names its request");
    assert.equal(gmCards(5)[0].flags.rollbridge.rolls[0].total, 2);
    // replayed after a reload: a player's card counts only as the requester's own (its request)
    client.stop();
    await world({ users, user: "gm", generation });
    await registerModuleSettings();
    await game.settings.set("rollbridge", "cursor", { table: "t1", epoch: 1, seq: 6 });
    // the player's own request's id names the player (core/protocol.mjs userRequestId)
    const own = `fvtt@${PLAYER}-r8`;
    await ChatMessage._fromWorld({ data: forgedCard(7, "guessed"), user: PLAYER });
    await ChatMessage._fromWorld({ data: forgedCard(8, own), user: PLAYER });
    game.ready = true;
    client = new FoundryClient();
    client.start();
    ({ ws } = welcomeResumed(client, { seq: 8, missed: 2 }));
    ws.receive(rollEvent(7, { request: "r7" }));
    ws.receive(rollEvent(8, { request: own }));
    await settle(client);
    assert.equal(gmCards(7).length, 1, "a card naming another request is not the event's: the GM's client posts it");
    assert.equal(gmCards(8).length, 0, "the requester's own card posted while the GM was away still counts");
  });
}

const PEOPLE = [
  { _id: "standinGM000001", name: "Gamemaster", isGM: true },
  { _id: "standinAlice001", name: "Alice" },
  { _id: "standinMallory1", name: "Mallory" },
];
const [, ALICE, MALLORY] = PEOPLE.map((u) => u._id);

/** Mallory's card of event `seq` naming `request` (Alice's, read from the event), a forged 6 in it. */
function mallorysCard(seq, request) {
  return { ...forgedCard(seq, request), _id: `mallory${seq}`.padEnd(16, "0").slice(0, 16), author: MALLORY };
}

for (const generation of [12, 13]) {
  test(`F6: while no GM is active, another player's card naming a player's request is not its card (v${generation})`, async () => {
    const users = (gmActive) => [{ ...PEOPLE[0], active: gmActive }, PEOPLE[1], PEOPLE[2]];
    const cardsBy = (seq, author) => [...game.messages.values()].filter((m) => m.flags.rollbridge?.seq === seq && (m.author?.id ?? m.author) === author);
    // Alice's browser while the GM is away: she rolls, and Mallory, who receives the
    // event with its request id too, posts a card naming it first
    let ws = await playerClient({ users: users(false), user: ALICE, generation });
    const rolled = client.roll("1d6");
    const request = await until(() => ws.messages().find((m) => m.type === "foundry.roll"), "Alice's roll");
    assert.match(request.id, new RegExp(`^fvtt@${ALICE}-`), "the request's id names Alice");
    await ChatMessage._fromWorld({ data: mallorysCard(5, request.id), user: MALLORY });
    ws.receive(rollEvent(5, { request: request.id, total: 2 }));
    ws.receive({ type: "result", id: request.id, status: "done", seq: 5 });
    await rolled;
    await settle(client);
    assert.equal(cardsBy(5, ALICE).length, 1, "Alice's client posts her card: Mallory's is not it");
    assert.equal(cardsBy(5, ALICE)[0].flags.rollbridge.rolls[0].total, 2);
    client.stop();
    // the GM's browser, resuming: the chat holds Mallory's card of Alice's next roll (and
    // no card of Alice's), and Alice's own card of the roll before
    await world({ users: users(true), user: "gm", generation });
    await registerModuleSettings();
    await game.settings.set("rollbridge", "cursor", { table: "t1", epoch: 1, seq: 5 });
    const alices = `fvtt@${ALICE}-7`;
    await ChatMessage._fromWorld({ data: mallorysCard(6, `fvtt@${ALICE}-6`), user: MALLORY });
    await ChatMessage._fromWorld({ data: { ...forgedCard(7, alices), _id: "alicecard7000000", author: ALICE }, user: ALICE });
    game.ready = true;
    client = new FoundryClient();
    client.start();
    ({ ws } = welcomeResumed(client, { seq: 7, missed: 2 }));
    ws.receive(rollEvent(6, { request: `fvtt@${ALICE}-6`, total: 3 }));
    ws.receive(rollEvent(7, { request: alices }));
    await settle(client);
    assert.equal(cardsBy(6, GM).length, 1, "Mallory's card of Alice's roll is not its card: the GM's client posts it");
    assert.equal(cardsBy(6, GM)[0].flags.rollbridge.rolls[0].total, 3);
    assert.equal(cardsBy(7, GM).length, 0, "Alice's own card of her roll still counts");
  });
}

/** The GM's browser (`users`, Foundry v`generation`) after a reload, its cursor at
 * table t1, epoch 1, seq `cursor`, the world's chat holding `cards` ([data, the user
 * who posted it]): resumed, `missed` events to come. Its socket. */
async function gmResuming({ users, generation, cursor, cards, missed }) {
  client?.stop();
  await world({ users, user: "gm", generation });
  await registerModuleSettings();
  await game.settings.set("rollbridge", "cursor", { table: "t1", epoch: 1, seq: cursor });
  for (const [data, user] of cards) await ChatMessage._fromWorld({ data, user });
  game.ready = true;
  client = new FoundryClient();
  client.start();
  return welcomeResumed(client, { seq: cursor + missed, missed }).ws;
}

for (const generation of [12, 13]) {
  test(`F6: a player's card cannot take another player's name afterwards either: Foundry keeps its author (v${generation})`, async () => {
    // Mallory's browser while no GM is active: her card of Alice's roll, posted as
    // herself (Foundry refuses another author), then its author changed to Alice
    // (v12: BaseChatMessage refuses, the author immutable; v13: DocumentAuthorField is gmOnly)
    const users = (gmActive) => [{ ...PEOPLE[0], active: gmActive }, PEOPLE[1], PEOPLE[2]];
    await world({ users: users(false), user: MALLORY, generation });
    await registerModuleSettings();
    const request = `fvtt@${ALICE}-6`;
    const card = await ChatMessage.create(mallorysCard(6, request));
    await assert.rejects(card.update({ author: ALICE }), /lacks permission/);
    await assert.rejects(card.update({ user: ALICE }), /lacks permission/, "v12's name of the field too");
    assert.equal(card.author, MALLORY);
    await assert.rejects(ChatMessage._fromWorld({ data: { ...mallorysCard(7, request), author: ALICE }, user: MALLORY }), /refuses/);
    // the GM's browser, resuming: the chat holds Mallory's card as Foundry kept it
    const ws = await gmResuming({ users: users(true), generation, cursor: 5, cards: [[card.toObject(), MALLORY]], missed: 1 });
    ws.receive(rollEvent(6, { request, total: 3 }));
    await settle(client);
    const gmCards = [...game.messages.values()].filter((m) => m.flags.rollbridge?.seq === 6 && m.author === GM);
    assert.equal(gmCards.length, 1, "Mallory's card is not Alice's: the GM's client posts the real one");
  });
}

for (const generation of [12, 13]) {
  test(`F6: Alice's own card of her apply, posted while no GM was active, still counts: an apply's id names her too (v${generation})`, async () => {
    const { applyRequestId } = await import("../../../adapters/foundry/module/scripts/core/buttons.mjs");
    const { requestUser } = await import("../../../adapters/foundry/module/scripts/core/protocol.mjs");
    // her press of Apply on her attack's card (seq 5), on her own connection: its id is
    // made from the card, the user and the targets (a repeated press is the same request)
    const request = applyRequestId({ table: "t1", epoch: 1, seq: 5, user: ALICE, targets: ["guard"] });
    assert.equal(requestUser(request), ALICE, `${request} names Alice`);
    assert.ok(request.length <= 64);
    // the longest a table's epoch and seq make it: still within the protocol's 64, still hers
    const longest = applyRequestId({ table: "t1", epoch: 10 ** 20, seq: 10 ** 20, user: ALICE, targets: ["x".repeat(300)] });
    assert.ok(longest.length <= 64 && requestUser(longest) === ALICE, longest);
    // the GM's browser, resuming after its reload: the chat holds Alice's card of it
    const users = [{ ...PEOPLE[0], active: true }, PEOPLE[1], PEOPLE[2]];
    const card = { ...forgedCard(6, request), _id: "aliceapply600000", author: ALICE };
    const ws = await gmResuming({ users, generation, cursor: 5, cards: [[card, ALICE]], missed: 1 });
    ws.receive(rollEvent(6, { request }));
    await settle(client);
    const cards = [...game.messages.values()].filter((m) => m.flags.rollbridge?.seq === 6);
    assert.deepEqual(cards.map((m) => m.author), [ALICE], "one card of her apply, not a second one by the GM's client");
  });
}

test("F4: a relayed apply with a forged user is refused, on a v13 query and on the socket", async () => {
  const people = [
    { _id: "standinGM000001", name: "Gamemaster", isGM: true },
    { _id: "standinAlice001", name: "Alice" }, // owns alice-pc
    { _id: "standinMallory1", name: "Mallory" }, // the sender; owns nothing involved
  ];
  const [, ALICE, MALLORY] = people.map((u) => u._id);
  client?.stop();
  await world({ users: people, user: "gm", generation: 13 });
  await registerModuleSettings();
  game.ready = true;
  Standin.addActor({ _id: "alicepc", name: "Alice's PC", ownership: { [ALICE]: 3 }, flags: { rollbridge: { actorId: "alice-pc" } } });
  Standin.addActor({ _id: "bosspc", name: "Boss NPC", flags: { rollbridge: { actorId: "boss" } } });
  client = new FoundryClient();
  client.start();
  const ws = welcomeClient(client, { role: "gm", seq: 2 });
  ws.receive(bossAttacksAlice());
  await settle(client);
  registerRelay((m, o) => client.relayed(m, o));
  const sent = () => ws.messages().filter((m) => m.type === "resolve" || m.type === "foundry.resolve");
  // what Mallory's client could send, naming Alice (the audit's request: any action, any actor)
  const forged = {
    type: "apply", user: ALICE,
    request: { type: "resolve", action: "attack", actor: "boss", targets: ["alice-pc"], params: { weapon: "anything", rounds: 10 } },
    card: { table: "t1", epoch: 1, seq: 3 }, targets: ["alice-pc"],
  };
  // refused at once (a request sent would wait for the server's answer)
  const answer = (promise) => Promise.race([promise, new Promise((r) => setTimeout(() => r("sent, waiting for the server"), 100))]);
  assert.equal(await answer(CONFIG.queries["rollbridge.relay"](forged, { timeout: 5000 })), null, "a query: no sender, no GM authority");
  client.onSocket(forged, MALLORY); // the socket: Foundry's server says Mallory sent it
  assert.equal(await answer(client.relayed(forged, { sender: MALLORY })), null);
  assert.equal(await answer(client.relayed({ ...forged, user: MALLORY }, { sender: MALLORY })), null, "Mallory owns no target");
  await settle(client);
  assert.deepEqual(sent(), [], "nothing sent on the GM's connection");
  // the socket's sender: the one argument Foundry's server adds to the module's one
  assert.equal(socketSender([MALLORY]), MALLORY);
  assert.equal(socketSender([]), null);
  assert.equal(socketSender(["nobody"]), null);
  // Alice herself, on the socket: the card's own follow-up, not what the message asks for
  const done = client.relayed(forged, { sender: ALICE });
  for (let i = 0; i < 50 && !sent().length; i++) await new Promise((r) => setImmediate(r));
  const [request] = sent();
  assert.deepEqual({ ...request, id: undefined }, { type: "resolve", action: "damage", targets: ["alice-pc"], params: { code: "6M" }, actor: "boss", id: undefined });
  ws.receive({ type: "result", id: request.id, status: "done", seq: 4 });
  assert.deepEqual(await done, { seq: 4 });
});

test("R4: a socket message is taken as a user's only when the handler gets exactly (message, senderId)", async () => {
  const people = [
    { _id: "standinGM000001", name: "Gamemaster", isGM: true },
    { _id: "standinAlice001", name: "Alice" },
    { _id: "standinMallory1", name: "Mallory" },
  ];
  await world({ users: people, user: "gm", generation: 13 });
  const [, ALICE, MALLORY] = people.map((u) => u._id);
  assert.equal(socketSender([ALICE]), ALICE);
  // Mallory emits (data, ALICE): whether the server appends her id after all arguments
  // or puts it second and forwards the rest, the handler gets two: no sender vouched for
  assert.equal(socketSender([ALICE, MALLORY]), null, "appended after a forged extra argument");
  assert.equal(socketSender([MALLORY, ALICE]), null, "inserted second, the forged one forwarded");
  assert.equal(socketSender(["nobody"]), null);
  assert.equal(socketSender([{ id: ALICE }]), null);
});

test("R1: after the GM's page reloaded, a player's relayed apply reads the card's event from the server", async () => {
  const people = [
    { _id: "standinGM000001", name: "Gamemaster", isGM: true },
    { _id: "standinAlice001", name: "Alice" }, // owns alice-pc
  ];
  const [, ALICE] = people.map((u) => u._id);
  client?.stop();
  await world({ users: people, user: "gm", generation: 13 });
  await registerModuleSettings();
  game.ready = true;
  Standin.addActor({ _id: "alicepc", name: "Alice's PC", ownership: { [ALICE]: 3 }, flags: { rollbridge: { actorId: "alice-pc" } } });
  Standin.addActor({ _id: "bosspc", name: "Boss NPC", flags: { rollbridge: { actorId: "boss" } } });
  const attack = {
    type: "event", table: "t1", epoch: 1, seq: 3, kind: "resolution", request: "r3",
    data: { action: "attack", actor: "boss", targets: ["alice-pc"], apply: { action: "damage", params: { code: "6M" } }, dice: [] },
    actors: [], foundry: { rolls: [], speaker: null },
  };
  client = new FoundryClient();
  client.start();
  let ws = welcomeClient(client, { role: "gm", seq: 2 });
  ws.receive(attack);
  await settle(client);
  // the GM presses F5: a new page, its connection resumes after the card
  client.stop();
  client = new FoundryClient();
  client.start();
  ws = welcomeClient(client, { role: "gm", seq: 3 });
  await settle(client);
  assert.equal(client.cachedEvent("t1", 1, 3), null, "the new page holds no event of the card");
  const sent = () => ws.messages().filter((m) => m.type === "resolve" || m.type === "foundry.resolve");
  const done = client.relayed({ type: "apply", user: ALICE, card: { table: "t1", epoch: 1, seq: 3 }, targets: ["alice-pc"] }, { sender: ALICE });
  for (let i = 0; i < 50 && FakeWebSocket.last() === ws; i++) await new Promise((r) => setImmediate(r));
  const reader = FakeWebSocket.last();
  assert.notEqual(reader, ws, "the GM's client asks the server for the card's event");
  reader.open();
  const hello = reader.messages().find((m) => m.type === "hello");
  assert.deepEqual(hello.resume, { epoch: 1, seq: 2 }, "a resume from the seq before the card");
  reader.receive({ type: "welcome", id: hello.id, protocol: 1, role: "gm", epoch: 1, seq: 3, locale: "en", table: { id: "t1", actors: [] }, resume: { recovered: true, missed: 1 } });
  reader.receive(attack);
  for (let i = 0; i < 50 && !sent().length; i++) await new Promise((r) => setImmediate(r));
  const [request] = sent();
  assert.ok(request, "the follow-up went out on the GM's connection");
  assert.deepEqual({ ...request, id: undefined }, { type: "resolve", action: "damage", targets: ["alice-pc"], params: { code: "6M" }, actor: "boss", id: undefined });
  assert.ok(reader.closedWith, "the reading connection is closed");
  ws.receive({ type: "result", id: request.id, status: "done", seq: 4 });
  assert.deepEqual(await done, { seq: 4 });
  // a seq the table never reached: refused without asking the server
  const none = client.relayed({ type: "apply", user: ALICE, card: { table: "t1", epoch: 1, seq: 99 }, targets: ["alice-pc"] }, { sender: ALICE });
  assert.equal(await none, null);
  assert.equal(FakeWebSocket.last(), reader, "no connection opened");
  // a card the server answers with a snapshot instead (it cannot show the missed events): refused
  const old = client.relayed({ type: "apply", user: ALICE, card: { table: "t1", epoch: 1, seq: 2 }, targets: ["alice-pc"] }, { sender: ALICE });
  for (let i = 0; i < 50 && FakeWebSocket.last() === reader; i++) await new Promise((r) => setImmediate(r));
  const second = FakeWebSocket.last();
  assert.notEqual(second, reader);
  second.open();
  const hello2 = second.messages().find((m) => m.type === "hello");
  assert.deepEqual(hello2.resume, { epoch: 1, seq: 1 });
  second.receive({ type: "welcome", id: hello2.id, protocol: 1, role: "gm", epoch: 1, seq: 4, locale: "en", table: { id: "t1", actors: [] }, resume: { recovered: false, missed: 0, reason: "too_far_behind" } });
  assert.equal(await old, null);
  await new Promise((r) => setImmediate(r));
  assert.ok(second.closedWith, "closed");
  assert.equal(sent().length, 1, "nothing more sent");
});

/** The GM's client of a world of a GM and Alice, who owns `owned` (Foundry id, name,
 * rollbridge id each), joined at seq 2 with the boss's attack on Alice's PC as card 3:
 * {ws, sent, GMID, ALICE}, `sent()` the resolve requests it sent. */
async function gmClientWithAlice(owned = [["alicepc", "Alice's PC", "alice-pc"]]) {
  const people = [
    { _id: "standinGM000001", name: "Gamemaster", isGM: true },
    { _id: "standinAlice001", name: "Alice" },
  ];
  const [GMID, ALICE] = people.map((u) => u._id);
  client?.stop();
  await world({ users: people, user: "gm", generation: 13 });
  await registerModuleSettings();
  game.ready = true;
  for (const [_id, name, actorId] of owned) {
    Standin.addActor({ _id, name, ownership: { [ALICE]: 3 }, flags: { rollbridge: { actorId } } });
  }
  client = new FoundryClient();
  client.start();
  const ws = welcomeClient(client, { role: "gm", seq: 2 });
  ws.receive(bossAttacksAlice());
  await settle(client);
  const sent = () => ws.messages().filter((m) => m.type === "resolve" || m.type === "foundry.resolve");
  return { ws, sent, GMID, ALICE };
}

/** gmClientWithAlice, and Alice's apply of card 3 to her PC relayed to the GM's client
 * and sent on to the server: {ws, sent, answers, GMID, ALICE}, `answers()` the
 * `applied` messages the GM's client put on the module's socket. */
async function relayedApplyOfAlice() {
  const { ws, sent, GMID, ALICE } = await gmClientWithAlice();
  const answers = () => Standin.log.socket.filter((s) => s.message.type === "applied").map((s) => s.message);
  Standin.log.socket.length = 0;
  // as it arrives on the socket: (message, sender)
  client.onSocket({ type: "apply", user: ALICE, card: { table: "t1", epoch: 1, seq: 3 }, targets: ["alice-pc"] }, ALICE);
  for (let i = 0; i < 50 && !sent().length; i++) await new Promise((r) => setImmediate(r));
  return { ws, sent, answers, GMID, ALICE };
}

test("R5: a relayed apply the server refuses is told its sender over the socket; no unhandled rejection on the GM's page", async () => {
  const unhandled = [];
  const onUnhandled = (reason) => unhandled.push(String(reason?.message ?? reason));
  process.on("unhandledRejection", onUnhandled);
  try {
    const { ws, sent, answers, GMID, ALICE } = await relayedApplyOfAlice();
    ws.receive({ type: "error", id: sent()[0].id, code: "unknown_actor", message: "no actor 'boss' at this table" });
    for (let i = 0; i < 50 && !answers().length; i++) await new Promise((r) => setTimeout(r, 2));
    await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(unhandled, [], "nothing unhandled on the GM's page");
    assert.deepEqual(answers(), [{
      type: "applied", to: ALICE, ok: false, card: { table: "t1", epoch: 1, seq: 3 },
      error: { code: "unknown_actor", message: "no actor 'boss' at this table" },
    }]);
    // the GM's client's own refusal (a card it cannot find, targets not all hers) is told too
    client.onSocket({ type: "apply", user: ALICE, card: { table: "t1", epoch: 2, seq: 3 }, targets: ["alice-pc"] }, ALICE);
    client.onSocket({ type: "apply", user: ALICE, card: { table: "t1", epoch: 1, seq: 3 }, targets: ["boss"] }, ALICE);
    for (let i = 0; i < 100 && answers().length < 3; i++) await new Promise((r) => setTimeout(r, 2));
    assert.deepEqual(answers().slice(1).map((a) => [a.to, a.key]).sort(),
      [[ALICE, "ROLLBRIDGE.Button.ApplyNoCard"], [ALICE, "ROLLBRIDGE.Button.ApplyNotOwner"]]);
    // Alice's client shows the answer; another user's, or one not from a GM, shows nothing
    game.user = game.users.get(ALICE);
    Standin.log.notifications.length = 0;
    const [refused, noCard] = answers();
    client.onSocket(refused, ALICE); // not from a GM: ignored
    client.onSocket(refused, GMID);
    client.onSocket({ ...noCard, to: GMID }, GMID);
    client.onSocket(noCard, GMID);
    assert.deepEqual(Standin.log.notifications.map((n) => [n.level, n.text]), [
      ["error", "rollbridge: the server did not apply it: no actor 'boss' at this table"],
      ["error", `rollbridge: ${game.i18n.localize(noCard.key)}`],
    ]);
    assert.ok(!Standin.log.notifications[1].text.includes("ROLLBRIDGE"), "a translated text");
    game.user = game.users.get(GMID);
  } finally {
    process.off("unhandledRejection", onUnhandled);
  }
});

test("R5: a relayed apply refused by a reply without a message: its player reads the module's own words naming the code, in the player's language", async () => {
  const { ws, sent, answers, GMID, ALICE } = await relayedApplyOfAlice();
  ws.receive({ type: "error", id: sent()[0].id, code: "unknown_actor" }); // an older or a foreign server's: no message
  for (let i = 0; i < 50 && !answers().length; i++) await new Promise((r) => setImmediate(r));
  const [refused] = answers();
  assert.ok(refused, "the GM's client answered");
  // the player's client, in Czech: the module's words, which name the code (no English)
  game.user = game.users.get(ALICE);
  const english = game.i18n;
  game.i18n = await localization("cs");
  Standin.log.notifications.length = 0;
  const lines = [];
  const warn = console.warn;
  console.warn = (...args) => lines.push(args.join(" "));
  try {
    client.onSocket(refused, GMID);
  } finally {
    console.warn = warn;
    game.i18n = english;
    game.user = game.users.get(GMID);
  }
  assert.deepEqual(Standin.log.notifications.map((n) => [n.level, n.text]), [
    ["error", "rollbridge: server to nepoužil: server požadavek odmítl (unknown_actor)."],
  ]);
  assert.equal(lines.filter((l) => l.includes("could not apply it: unknown_actor")).length, 1, lines.join("\n"));
});

/** What Alice's client, in `locale`, notifies on the GM's client's `applied` answer:
 * [level, text] pairs. */
async function aliceReads(refused, { GMID, ALICE }, locale) {
  game.user = game.users.get(ALICE);
  const english = game.i18n;
  game.i18n = await localization(locale);
  Standin.log.notifications.length = 0;
  try {
    client.onSocket(refused, GMID);
  } finally {
    game.i18n = english;
    game.user = game.users.get(GMID);
  }
  return Standin.log.notifications.map((n) => [n.level, n.text]);
}

/** The GM's client, its page in German and its connection stopped (none left), answers
 * Alice's relayed apply: its `applied` answer, and the two users' ids. */
async function notSentByAGermanGM() {
  const { GMID, ALICE } = await gmClientWithAlice();
  client.stop();
  const english = game.i18n;
  game.i18n = await localization("de");
  const answers = () => Standin.log.socket.filter((s) => s.message.type === "applied").map((s) => s.message);
  Standin.log.socket.length = 0;
  const warn = console.warn;
  console.warn = () => {};
  try {
    client.onSocket({ type: "apply", user: ALICE, card: { table: "t1", epoch: 1, seq: 3 }, targets: ["alice-pc"] }, ALICE);
    for (let i = 0; i < 50 && !answers().length; i++) await new Promise((r) => setImmediate(r));
  } finally {
    console.warn = warn;
    game.i18n = english;
  }
  const [refused] = answers();
  assert.ok(refused, "the GM's client answered");
  assert.ok(!JSON.stringify(refused).includes("nicht verbunden"), "no words in the GM's language go to the player");
  return { refused, GMID, ALICE };
}

test("R5: a relayed apply the GM's client cannot send (not connected): its player reads why in the player's language, not the GM's", async () => {
  const { refused, GMID, ALICE } = await notSentByAGermanGM();
  // the player's client, in Czech
  assert.deepEqual(await aliceReads(refused, { GMID, ALICE }, "cs"), [
    ["error", "rollbridge: klient PJ to nemohl odeslat: nepřipojeno ke stolu rollbridge."],
  ]);
});

test("R5: a relayed apply the GM's client cannot send, read by a player's client older than its key: English words, not 'the server refused (error)'", async () => {
  const { refused } = await notSentByAGermanGM();
  // what an older player's client shows: the code and the message alone (errorFromReply)
  const { errorFromReply, errorMessage } = await import("../../../adapters/foundry/module/scripts/core/protocol.mjs");
  const older = errorFromReply({ code: String(refused.error.code ?? "error"), message: String(refused.error.message ?? "") });
  assert.equal(errorMessage(older, game.i18n), "not connected to a rollbridge table");
});

test("R5: a relayed apply whose GM's connection was stopped before the answer: its player reads why in the player's language", async () => {
  const { sent, answers, GMID, ALICE } = await relayedApplyOfAlice();
  assert.equal(sent().length, 1);
  const warn = console.warn;
  console.warn = () => {};
  try {
    client.connection.stop(); // the request was sent, not answered
    for (let i = 0; i < 50 && !answers().length; i++) await new Promise((r) => setImmediate(r));
  } finally {
    console.warn = warn;
  }
  const [refused] = answers();
  assert.ok(refused, "the GM's client answered");
  const id = sent()[0].id;
  assert.deepEqual(await aliceReads(refused, { GMID, ALICE }, "ru"), [
    ["error", `rollbridge: клиент мастера не смог это отправить: соединение остановлено до того, как пришёл ответ на запрос ${id}.`],
  ]);
});

test("R6: a repeated apply press is the same request (one id), so the server applies it once", async () => {
  const { applyRequestId } = await import("../../../adapters/foundry/module/scripts/core/buttons.mjs");
  // Alice owns alice-pc and alice-pet
  const { ws, sent, ALICE } = await gmClientWithAlice([["alicepc", "Alice's PC", "alice-pc"], ["alicepet", "Alice's pet", "alice-pet"]]);
  const press = (targets) => client.onSocket({ type: "apply", user: ALICE, card: { table: "t1", epoch: 1, seq: 3 }, targets }, ALICE);
  press(["alice-pc", "alice-pet"]);
  for (let i = 0; i < 50 && !sent().length; i++) await new Promise((r) => setImmediate(r));
  ws.receive({ type: "result", id: sent()[0].id, status: "done", seq: 4 });
  await new Promise((r) => setTimeout(r, 5));
  press(["alice-pet", "alice-pc"]); // pressed again, after the first was done: the same id
  for (let i = 0; i < 50 && sent().length < 2; i++) await new Promise((r) => setImmediate(r));
  const ids = sent().map((m) => m.id);
  assert.equal(ids.length, 2);
  assert.equal(new Set(ids).size, 1, `one request id for both presses: ${ids}`);
  assert.ok(ids[0].length <= 64);
  // another card, another user or other targets: another request
  const base = { table: "t1", epoch: 1, seq: 3, user: ALICE, targets: ["alice-pc", "alice-pet"] };
  const one = applyRequestId(base);
  assert.equal(one, ids[0]);
  assert.equal(applyRequestId({ ...base, targets: ["alice-pet", "alice-pc", "alice-pc"] }), one);
  for (const other of [{ seq: 5 }, { epoch: 2 }, { user: "standinBob00001" }, { targets: ["alice-pc"] }, { table: "t2" }]) {
    assert.notEqual(applyRequestId({ ...base, ...other }), one, JSON.stringify(other));
  }
  assert.ok(applyRequestId({ ...base, epoch: 10 ** 20, seq: 10 ** 20, targets: ["x".repeat(300)] }).length <= 64);
});

test("R8: the first roll-mode note of a request wins; another player's later note for it is ignored", async () => {
  const people = [
    { _id: "standinGM000001", name: "Gamemaster", isGM: true },
    { _id: "standinAlice001", name: "Alice" },
    { _id: "standinMallory1", name: "Mallory" },
  ];
  const [, ALICE, MALLORY] = people.map((u) => u._id);
  client?.stop();
  await world({ users: people, user: "gm", generation: 12 });
  await registerModuleSettings();
  game.ready = true;
  client = new FoundryClient();
  client.start();
  welcomeClient(client, { role: "gm", seq: 0 });
  // v12: Alice's note goes on the socket, which Mallory's client receives too
  client.onSocket({ type: "rollMode", request: "a-1", user: ALICE, mode: "gmroll" }, ALICE);
  client.onSocket({ type: "rollMode", request: "a-1", user: MALLORY, mode: "selfroll" }, MALLORY);
  await settle(client);
  assert.deepEqual(client.modes.get("a-1"), { user: ALICE, mode: "gmroll", gm: false });
});
