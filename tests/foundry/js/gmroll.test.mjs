// A player's own GM roll of a resolution, readable by that player (issue 15,
// item 3): the request asks `requester_sees` (with `secret`), the server keeps
// the event GM-only for every connection, and its reply to the roller carries
// the players' view of it. The roller's client posts that card itself,
// whispered to the roller; the GM's client posts the GM's view to the GMs only
// (a self roll: no card of the GM's). A blind roll asks `secret` alone and its
// roller gets no card. A server older than `requester_sees` refuses the field:
// the request goes again without it, as secret as before. Readers are checked
// with the stand-in's ChatMessage#visible / #isContentVisible as each user.

import assert from "node:assert/strict";
import { after, test } from "node:test";

import { renderCard } from "../../../adapters/foundry/module/scripts/core/card.mjs";
import { resolveMessage, rollMessage, secretFields } from "../../../adapters/foundry/module/scripts/core/protocol.mjs";
import {
  cardAudience, refusesRequesterSees, requesterCard, withoutRequesterSees,
} from "../../../adapters/foundry/module/scripts/core/rollmode.mjs";
import { FoundryClient } from "../../../adapters/foundry/module/scripts/foundry/client.mjs";
import { FakeWebSocket, LogSocket } from "./fakes.mjs";
import { consoleWarnings, registerModuleSettings, settle, Standin, until, welcomeClient, world } from "./standin.mjs";

const USERS = [
  { _id: "standinGM000001", name: "Gamemaster", isGM: true },
  { _id: "standinPlr00001", name: "Player" },
  { _id: "standinPlr00002", name: "Other player" },
];
const [GM, PLAYER, OTHER] = USERS.map((u) => u._id);

// the guard's numbers only the GM's view holds (sr2: armour and the target number
// built from it, SR-7, SR-9); the players' view says "(hidden)" instead
const GM_ONLY = "ballistic armour 8";
const group = { label: "Attack test (Tukan)", formula: "6d6", total: 2, dice: [{ faces: 6, rolls: [6], value: 6 }, { faces: 6, rolls: [5], value: 5 }] };
function attack(seq, request, view) {
  const gm = view === "gm";
  return {
    kind: "resolution", epoch: 1, seq, request, by: "player:ivan", table: "t1",
    ...(gm ? { gm_only: true } : {}),
    data: {
      action: "attack", actor: "tukan", targets: ["guard"], requester_sees: true,
      narration: "Tukan hits Guard with Hackler.",
      steps: [gm ? `Resistance TN 4 = power 10 - ${GM_ONLY} (SR-9)` : "Resistance TN (hidden) (SR-9)"],
      dice: [group],
    },
    actors: [],
    foundry: { rolls: [], speaker: { actor: "tukan", alias: "Tukan" } },
  };
}

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

let client = null;
async function playerClient() {
  client?.stop();
  await world({ users: USERS, user: PLAYER, generation: 13 });
  globalThis.WebSocket = LogSocket; // a held request's probe of the log answered as a server does
  LogSocket.oldest = 0;
  await registerModuleSettings();
  Standin.queryClient = async () => ({ noted: true }); // the GM's client takes the note
  client = new FoundryClient();
  client.start();
  return welcomeClient(client, { role: "player" });
}
async function gmClient() {
  client?.stop();
  await world({ users: USERS, user: "gm" });
  await registerModuleSettings();
  client = new FoundryClient();
  client.start();
  return welcomeClient(client, { role: "gm" });
}
after(() => {
  client?.stop();
  Standin.uninstall();
});

test("the request fields of each roll mode: GM and self rolls ask requester_sees, a blind roll only secret", () => {
  assert.deepEqual(secretFields("publicroll"), {});
  assert.deepEqual(secretFields("roll"), {});
  assert.deepEqual(secretFields("gmroll"), { secret: true, requester_sees: true });
  assert.deepEqual(secretFields("selfroll"), { secret: true, requester_sees: true });
  assert.deepEqual(secretFields("blindroll"), { secret: true });
  const resolve = resolveMessage({ id: "a", action: "attack", rollMode: "gmroll" });
  assert.equal(resolve.secret, true);
  assert.equal(resolve.requester_sees, true);
  const roll = rollMessage({ id: "r", formula: "2d6", rollMode: "blindroll" });
  assert.equal(roll.secret, true);
  assert.equal("requester_sees" in roll, false);
  assert.equal("secret" in rollMessage({ id: "p", formula: "2d6", rollMode: "publicroll" }), false);
});

test("the GM's card of a player's requester_sees event: GMs only for a GM roll, none for a self roll", () => {
  const event = attack(5, "p1", "gm");
  const note = (mode, gm = false) => ({ user: gm ? GM : PLAYER, mode, gm });
  assert.deepEqual(cardAudience({ event, note: note("gmroll"), writer: GM, gms: [GM] }),
    { mode: "gmroll", author: GM, whisper: [GM], blind: false });
  assert.equal(cardAudience({ event, note: note("selfroll"), writer: GM, gms: [GM] }), null);
  // a blind roll never asks requester_sees; a note without a mode is blind as ever
  assert.equal(cardAudience({ event, note: null, writer: GM, gms: [GM] }).blind, true);
  // the GM's own GM roll: the GM's view to the GMs, the GM its author
  assert.deepEqual(cardAudience({ event, note: note("gmroll", true), writer: GM, gms: [GM] }),
    { mode: "gmroll", author: GM, whisper: [GM], blind: false });
  // without requester_sees (an older server) a player's resolution stays blind
  const older = { ...event, data: { ...event.data, requester_sees: undefined } };
  assert.equal(cardAudience({ event: older, note: note("gmroll"), writer: GM, gms: [GM] }).mode, "blindroll");
});

test("the roller's card: only a secret reply that carries a roll or resolution", () => {
  const players = attack(5, "p1", "players");
  assert.deepEqual(requesterCard({ reply: { status: "secret", seq: 5, event: players }, user: PLAYER, mode: "gmroll" }),
    { event: players, audience: { mode: "gmroll", author: PLAYER, whisper: [PLAYER], blind: false } });
  assert.equal(requesterCard({ reply: { status: "secret", seq: 5, event: players }, user: PLAYER, mode: "selfroll" }).audience.mode, "selfroll");
  assert.equal(requesterCard({ reply: { status: "secret", seq: 5, note: "sent to the GM only" }, user: PLAYER }), null);
  assert.equal(requesterCard({ reply: { status: "done", seq: 5, event: players }, user: PLAYER }), null);
  assert.equal(requesterCard({ reply: { status: "secret", seq: 5, event: { kind: "hidden", seq: 5 } }, user: PLAYER }), null);
});

test("an older server's refusal of requester_sees is told from other refusals", () => {
  const refusal = (code, field) => Object.assign(new Error("no"), { code, details: { field } });
  assert.equal(refusesRequesterSees(refusal("invalid_request", "foundry.resolve.requester_sees")), true);
  assert.equal(refusesRequesterSees(refusal("invalid_request", "requester_sees")), true);
  assert.equal(refusesRequesterSees(refusal("invalid_request", "foundry.resolve.params")), false);
  assert.equal(refusesRequesterSees(refusal("forbidden", "foundry.resolve.requester_sees")), false);
  // a ruleset's own validation naming such a field, marked so by the server
  // (docs/protocol.md, "Error codes"): no sign of an older server — until 7 December
  // 2026, late, read as one, the request sent again and requester_sees dropped for
  // the connection (every GM or self roll after it shown to its roller blind)
  const rulesets = Object.assign(new Error("no"), { code: "invalid_request", details: { field: "requester_sees", origin: "ruleset" } });
  assert.equal(refusesRequesterSees(rulesets), false);
  assert.deepEqual(withoutRequesterSees({ type: "foundry.roll", secret: true, requester_sees: true }), { type: "foundry.roll", secret: true });
});

test("a player's GM roll of an attack: one card, whispered to the roller, from the players' view", async () => {
  const ws = await playerClient();
  const before = Standin.log.messages.length;
  const resolving = client.resolve("attack", { actor: "tukan", targets: ["guard"], params: { weapon: "Hackler" }, rollMode: "gmroll", speaker: {} });
  const sent = await until(() => ws.messages().find((m) => m.type === "foundry.resolve"), "the request");
  assert.equal(sent.secret, true);
  assert.equal(sent.requester_sees, true);
  assert.equal(sent.rollMode, "gmroll");
  // the GM-only event reaches this connection as a placeholder, then the reply
  ws.receive({ type: "event", table: "t1", kind: "hidden", epoch: 1, seq: 1 });
  const players = attack(1, sent.id, "players");
  ws.receive({ type: "result", id: sent.id, status: "secret", seq: 1, event: players });
  const returned = await resolving;
  await settle(client);
  assert.deepEqual(returned, players, "the API returns the players' view the reply carried");
  const posted = Standin.log.messages.slice(before);
  assert.equal(posted.length, 1, "exactly one card: the placeholder posts none");
  const [message] = posted;
  assert.equal(message.author, PLAYER);
  assert.deepEqual(message.whisper, [PLAYER]);
  assert.equal(message.blind, false);
  assert.equal((message.rolls ?? []).length, 0, "a whisper carries no rolls");
  assert.equal(message.flags.rollbridge.view, "players");
  assert.equal(message.flags.rollbridge.secret, true);
  assert.equal(message.flags.rollbridge.rollMode, "gmroll");
  assert.equal(message.flags.rollbridge.seq, 1);
  assert.equal(message.content, renderCard(players, { speakerName: "Tukan", showWho: false, i18n: game.i18n }));
  assert.ok(message.content.includes("(hidden)"));
  assert.ok(!message.content.includes(GM_ONLY), "none of the guard's numbers");
  assert.deepEqual(readBy(message, PLAYER), [true, true]);
  assert.equal(readBy(message, OTHER)[0], false, "another player does not read it");
});

test("a player's self roll is posted the same way, as a self roll", async () => {
  const ws = await playerClient();
  const before = Standin.log.messages.length;
  const rolling = client.resolve("attack", { actor: "tukan", targets: ["guard"], rollMode: "selfroll", speaker: {} });
  const sent = await until(() => ws.messages().find((m) => m.type === "foundry.resolve"), "the request");
  assert.equal(sent.requester_sees, true);
  ws.receive({ type: "event", table: "t1", kind: "hidden", epoch: 1, seq: 1 });
  ws.receive({ type: "result", id: sent.id, status: "secret", seq: 1, event: attack(1, sent.id, "players") });
  await rolling;
  await settle(client);
  const posted = Standin.log.messages.slice(before);
  assert.equal(posted.length, 1);
  assert.equal(posted[0].flags.rollbridge.rollMode, "selfroll");
  assert.deepEqual(posted[0].whisper, [PLAYER]);
});

test("a player's blind roll asks secret alone, and its roller gets no card", async () => {
  const ws = await playerClient();
  const before = Standin.log.messages.length;
  const rolling = client.resolve("attack", { actor: "tukan", targets: ["guard"], rollMode: "blindroll", speaker: {} });
  const sent = await until(() => ws.messages().find((m) => m.type === "foundry.resolve"), "the request");
  assert.equal(sent.secret, true);
  assert.equal("requester_sees" in sent, false);
  ws.receive({ type: "event", table: "t1", kind: "hidden", epoch: 1, seq: 1 });
  ws.receive({ type: "result", id: sent.id, status: "secret", seq: 1, note: "sent to the GM only" });
  const reply = await rolling;
  await settle(client);
  assert.equal(reply.status, "secret");
  assert.equal(Standin.log.messages.length, before, "no card on the roller's client");
});

test("a server older than requester_sees: the request goes again without it, still secret, and it is not asked again", async () => {
  const ws = await playerClient();
  const rolling = client.resolve("attack", { actor: "tukan", targets: ["guard"], rollMode: "gmroll", speaker: {} });
  const first = await until(() => ws.messages().find((m) => m.type === "foundry.resolve"), "the request");
  ws.receive({
    type: "error", id: first.id, code: "invalid_request",
    message: "foundry.resolve.requester_sees: is not a known field", details: { field: "foundry.resolve.requester_sees" },
  });
  const again = await until(() => ws.messages().filter((m) => m.type === "foundry.resolve")[1], "the request again");
  assert.equal(again.id, first.id, "the same request (the refusal did nothing at the server)");
  assert.equal(again.secret, true);
  assert.equal("requester_sees" in again, false);
  ws.receive({ type: "result", id: again.id, status: "secret", seq: 1, note: "sent to the GM only" });
  assert.equal((await rolling).status, "secret");
  const next = client.roll("2d6", { rollMode: "gmroll", speaker: {} });
  const roll = await until(() => ws.messages().find((m) => m.type === "foundry.roll"), "the next request");
  assert.equal(roll.secret, true);
  assert.equal("requester_sees" in roll, false);
  ws.receive({ type: "result", id: roll.id, status: "secret", seq: 2, note: "sent to the GM only" });
  await next;
  // any other refusal is the caller's
  const refused = client.resolve("attack", { actor: "tukan", rollMode: "publicroll", speaker: {} });
  const third = await until(() => ws.messages().filter((m) => m.type === "foundry.resolve")[2], "a third request");
  ws.receive({ type: "error", id: third.id, code: "invalid_request", message: "no", details: { field: "foundry.resolve.params" } });
  await assert.rejects(refused, (error) => error.code === "invalid_request");
});

test("the GM's client: the GM's view of a player's GM roll to the GMs only, no card of a self roll", async () => {
  const ws = await gmClient();
  const before = Standin.log.messages.length;
  client.onSocket({ type: "rollMode", request: "p-gm", user: PLAYER, mode: "gmroll" });
  ws.receive({ type: "event", ...attack(1, "p-gm", "gm") });
  await settle(client);
  const posted = Standin.log.messages.slice(before);
  assert.equal(posted.length, 1);
  const [message] = posted;
  assert.equal(message.author, GM);
  assert.deepEqual(message.whisper, [GM]);
  assert.equal(message.flags.rollbridge.view, "gm");
  assert.ok(message.content.includes(GM_ONLY), "the GM reads the guard's numbers");
  assert.deepEqual(readBy(message, GM), [true, true]);
  assert.equal(readBy(message, PLAYER)[0], false, "the roller does not read the GM's view");
  assert.equal(readBy(message, OTHER)[0], false);
  client.onSocket({ type: "rollMode", request: "p-self", user: PLAYER, mode: "selfroll" });
  ws.receive({ type: "event", ...attack(2, "p-self", "gm") });
  await settle(client);
  assert.equal(Standin.log.messages.length, before + 1, "a player's self roll: the roller's client posts it");
});

test("the GM's client does not wait for roll-mode notes of secret events it missed while away", async () => {
  // a reload: the saved cursor resumes the log, and the server replays what was missed;
  // no player's note of those rolls will come any more
  client?.stop();
  await world({ users: USERS, user: "gm" });
  await registerModuleSettings();
  await game.settings.set("rollbridge", "cursor", { table: "t1", epoch: 1, seq: 10 });
  client = new FoundryClient();
  client.start();
  client.modes.wait = () => new Promise(() => {}); // a note that never comes
  const ws = FakeWebSocket.last();
  ws.open();
  const hello = ws.messages().find((m) => m.type === "hello");
  assert.deepEqual(hello.resume, { epoch: 1, seq: 10 });
  ws.receive({ type: "welcome", id: hello.id, protocol: 1, role: "gm", epoch: 1, seq: 12,
    locale: game.i18n.lang, table: { id: "t1", actors: [] }, resume: { recovered: true, missed: 2 } });
  const before = Standin.log.messages.length;
  ws.receive({ type: "event", ...attack(11, "p-away-1", "gm") });
  ws.receive({ type: "event", ...attack(12, "p-away-2", "gm") });
  await until(() => Standin.log.messages.length >= before + 2, "the missed secret events' cards");
  const posted = Standin.log.messages.slice(before);
  assert.deepEqual(posted.map((m) => m.whisper), [[GM], [GM]], "to the GMs, as without a note");
});

test("a player's GM roll held for the GM's approval: once approved, the roller's card all the same (the request asked again by its id)", async () => {
  const ws = await playerClient();
  const before = Standin.log.messages.length;
  const resolving = client.resolve("attack", { actor: "tukan", targets: ["guard"], params: { weapon: "Hackler" }, rollMode: "gmroll", speaker: {} });
  const sent = await until(() => ws.messages().find((m) => m.type === "foundry.resolve"), "the request");
  ws.receive({ type: "result", id: sent.id, status: "pending", pending: "p1" });
  assert.deepEqual(await resolving, { type: "result", id: sent.id, status: "pending", pending: "p1" });
  const asked = () => ws.messages().filter((m) => m.id === sent.id);
  // the GM-only approval.requested reaches this player as a placeholder: asked again, still waiting
  ws.receive({ type: "event", table: "t1", kind: "hidden", epoch: 1, seq: 1 });
  await until(() => asked().length === 2, "the request asked again");
  assert.deepEqual(asked()[1], { ...sent, repeat: true }, "the same request, the same id, only to repeat");
  ws.receive({ type: "result", id: sent.id, status: "pending", pending: "p1" });
  await settle(client);
  assert.equal(Standin.log.messages.length, before, "nothing posted while it waits");
  // approved: its event a placeholder here; the reply to the request carries the roller's view
  ws.receive({ type: "event", table: "t1", kind: "hidden", epoch: 1, seq: 2 });
  await until(() => asked().length === 3, "asked again");
  const players = attack(2, sent.id, "players");
  ws.receive({ type: "result", id: sent.id, status: "secret", seq: 2, event: players });
  await until(() => Standin.log.messages.length > before, "the roller's card");
  await settle(client);
  const posted = Standin.log.messages.slice(before);
  assert.equal(posted.length, 1);
  assert.deepEqual(posted[0].whisper, [PLAYER]);
  assert.equal(posted[0].flags.rollbridge.rollMode, "gmroll");
  assert.equal(posted[0].flags.rollbridge.seq, 2);
  assert.ok(!posted[0].content.includes(GM_ONLY), "none of the guard's numbers");
  // done: a later placeholder asks nothing
  ws.receive({ type: "event", table: "t1", kind: "hidden", epoch: 1, seq: 3 });
  await settle(client);
  assert.equal(asked().length, 3);
});

/** A player's GM roll of an attack sent on `ws`, answered as held (`pending`): the request. */
async function heldRoll(ws, pending) {
  const resolving = client.resolve("attack", { actor: "tukan", targets: ["guard"], params: { weapon: "Hackler" }, rollMode: "gmroll", speaker: {} });
  const sent = await until(() => ws.messages().find((m) => m.type === "foundry.resolve"), "the request");
  ws.receive({ type: "result", id: sent.id, status: "pending", pending });
  await resolving;
  return sent;
}

test("a held GM roll is not asked again once the table went on in a new epoch: its id may be new there (held again, or rolled unapproved)", async () => {
  const ws = await playerClient();
  const sent = await heldRoll(ws, "p1");
  // the network drops; the server's Redis went back in time: the welcome is another epoch's snapshot
  ws.drop();
  client.nudge();
  const again = FakeWebSocket.last();
  assert.notEqual(again, ws, "reconnected at once");
  again.open();
  const hello = again.messages().find((m) => m.type === "hello");
  Standin.log.notifications.length = 0;
  again.receive({ type: "welcome", id: hello.id, protocol: 1, role: "player", epoch: 2, seq: 40, locale: game.i18n.lang,
    table: { id: "t1", actors: [] }, resume: { recovered: false } });
  await settle(client);
  // a GM-only event of the new epoch: the old request is not sent again
  again.receive({ type: "event", table: "t1", kind: "hidden", epoch: 2, seq: 41 });
  await settle(client);
  assert.equal(again.messages().filter((m) => m.id === sent.id).length, 0, "not asked again in the new epoch");
  assert.deepEqual(Standin.log.notifications.map((n) => n.text).filter((t) => !t.includes("connected to table")), [
    "rollbridge: the table went on in a new epoch (its server restored or recovered): your request that waited for the GM's approval no longer waits. Send it again if you still want it.",
  ], "the roller told, once");
  // a reconnect within the same epoch keeps what is held: asked again there
  const sent2 = await heldRoll(again, "p2");
  again.drop();
  client.nudge();
  const third = FakeWebSocket.last();
  third.open();
  const hello3 = third.messages().find((m) => m.type === "hello");
  third.receive({ type: "welcome", id: hello3.id, protocol: 1, role: "player", epoch: 2, seq: 41, locale: game.i18n.lang,
    table: { id: "t1", actors: [] }, resume: { recovered: true, missed: 0 } });
  third.receive({ type: "event", table: "t1", kind: "hidden", epoch: 2, seq: 42 });
  await until(() => third.messages().filter((m) => m.id === sent2.id).length === 1, "the same epoch's held request asked again");
});

test("a held GM roll asked again while the client reconnects (its connection stopped under it) stays held: asked again on the next connection", async () => {
  const ws = await playerClient();
  const sent = await heldRoll(ws, "p1");
  ws.receive({ type: "event", table: "t1", kind: "hidden", epoch: 1, seq: 1 });
  await until(() => ws.messages().filter((m) => m.id === sent.id).length === 2, "asked again");
  // a reconnect (the settings saved, the API's reconnect): the request in flight is refused as stopped
  await consoleWarnings(async () => {
    client.start();
    await settle(client);
  });
  const next = welcomeClient(client, { role: "player", seq: 1 });
  await settle(client);
  const before = Standin.log.messages.length;
  next.receive({ type: "event", table: "t1", kind: "hidden", epoch: 1, seq: 2 });
  await until(() => next.messages().some((m) => m.id === sent.id), "asked again on the next connection");
  next.receive({ type: "result", id: sent.id, status: "secret", seq: 2, event: attack(2, sent.id, "players") });
  await until(() => Standin.log.messages.length > before, "the roller's card");
  await settle(client);
  assert.equal(Standin.log.messages.length, before + 1, "one card");
});

test("a held GM roll whose rejection's event did not come here (a snapshot): the reply to asking again tells the player, once", async () => {
  const ws = await playerClient();
  const sent = await heldRoll(ws, "p1");
  Standin.log.notifications.length = 0;
  ws.receive({ type: "event", table: "t1", kind: "hidden", epoch: 1, seq: 1 });
  await until(() => ws.messages().filter((m) => m.id === sent.id).length === 2, "asked again");
  ws.receive({ type: "result", id: sent.id, status: "rejected", seq: 1, reason: "<b>not now</b>" });
  await settle(client);
  const told = ["rollbridge: the GM rejected your request: &lt;b&gt;not now&lt;/b&gt;"];
  assert.deepEqual(Standin.log.notifications.map((n) => n.text), told, "told by the reply");
  // its event after all (a later resume): not told twice
  ws.receive({ type: "event", table: "t1", epoch: 1, seq: 2, kind: "approval.rejected",
    data: { pending: "p1", request: sent.id, type: "foundry.resolve", requested_by: "Player", reason: "<b>not now</b>" } });
  await settle(client);
  assert.deepEqual(Standin.log.notifications.map((n) => n.text), told, "not told again by the event");
});
