// Roll modes with Foundry's meaning (issue 15, item 3) on the server's secret
// events: a player sees their own GM roll, a blind roll hides it from the
// roller, a self roll is the roller's alone. The card's readers are checked
// with the stand-in's ChatMessage#visible / #isContentVisible, modelled on
// Foundry's documented getters, as each user.

import assert from "node:assert/strict";
import { after, beforeEach, test } from "node:test";

import { applyRollMode, cardAudience, RollModeNotes } from "../../../adapters/foundry/module/scripts/core/rollmode.mjs";
import { FoundryClient } from "../../../adapters/foundry/module/scripts/foundry/client.mjs";
import { FakeClock } from "./fakes.mjs";
import { registerModuleSettings, settle, Standin, welcomeClient, world } from "./standin.mjs";

const USERS = [
  { _id: "standinGM000001", name: "Gamemaster", isGM: true },
  { _id: "standinAst00001", name: "Assistant", isGM: true, active: false },
  { _id: "standinPlr00001", name: "Player" },
  { _id: "standinPlr00002", name: "Other player" },
];
const [GM, ASSISTANT, PLAYER, OTHER] = USERS.map((u) => u._id);

test("applyRollMode as Foundry sets it, for the roller rather than the current user", () => {
  const gms = [GM, ASSISTANT];
  assert.deepEqual(applyRollMode("publicroll", { roller: PLAYER, gms }), { whisper: [], blind: false });
  assert.deepEqual(applyRollMode("roll", { roller: PLAYER, gms }), { whisper: [], blind: false });
  assert.deepEqual(applyRollMode("gmroll", { roller: PLAYER, gms }), { whisper: gms, blind: false });
  assert.deepEqual(applyRollMode("blindroll", { roller: PLAYER, gms }), { whisper: gms, blind: true });
  assert.deepEqual(applyRollMode("selfroll", { roller: PLAYER, gms }), { whisper: [PLAYER], blind: false });
});

test("a card's audience: the roller's mode on a secret event, blind without a note, public stays public", () => {
  const gms = [GM];
  const secretRoll = { kind: "roll", gm_only: true, request: "r1" };
  const note = (mode, gm = false) => ({ user: gm ? GM : PLAYER, mode, gm });
  assert.deepEqual(cardAudience({ event: secretRoll, note: note("gmroll"), writer: GM, gms }),
    { mode: "gmroll", author: PLAYER, whisper: [GM], blind: false });
  assert.deepEqual(cardAudience({ event: secretRoll, note: note("selfroll"), writer: GM, gms }),
    { mode: "selfroll", author: PLAYER, whisper: [PLAYER], blind: false });
  assert.deepEqual(cardAudience({ event: secretRoll, note: null, writer: GM, gms }),
    { mode: "blindroll", author: GM, whisper: [GM], blind: true });
  // a blind card is never the roller's: a whisper's author reads it
  assert.equal(cardAudience({ event: secretRoll, note: note("blindroll"), writer: GM, gms }).author, GM);
  // a player's secret resolution: the GM's view may hold an NPC's hidden numbers
  const secretResolution = { ...secretRoll, kind: "resolution" };
  assert.equal(cardAudience({ event: secretResolution, note: note("gmroll"), writer: GM, gms }).mode, "blindroll");
  assert.equal(cardAudience({ event: secretResolution, note: note("selfroll"), writer: GM, gms }).mode, "blindroll");
  assert.equal(cardAudience({ event: secretResolution, note: note("selfroll", true), writer: GM, gms }).mode, "selfroll");
  assert.equal(cardAudience({ event: { kind: "roll", gm_only: false }, note: note("gmroll"), writer: GM, gms }).mode, "publicroll");
});

test("notes: kept by request id, a wait ends with the note or with null after its time", async () => {
  const clock = new FakeClock();
  const notes = new RollModeNotes({ timers: clock, limit: 2 });
  const early = notes.wait("r1", 1000);
  assert.equal(notes.note("r1", { user: PLAYER, mode: "gmroll" }), true);
  assert.deepEqual(await early, { user: PLAYER, mode: "gmroll", gm: false });
  const late = notes.wait("r2", 1000);
  clock.advance(1000);
  assert.equal(await late, null);
  assert.equal(notes.note("r3", { user: PLAYER, mode: "nonsense" }), false);
  notes.note("r4", { user: PLAYER, mode: "blindroll" });
  notes.note("r5", { user: PLAYER, mode: "selfroll" });
  assert.equal(notes.get("r1"), null, "only the last `limit` are kept");
});

// -- the glue against the stand-in ------------------------------------------------

const ROLL = {
  class: "Roll", formula: "1d6", options: {}, dice: [], total: 4, evaluated: true,
  terms: [{ class: "Die", number: 1, faces: 6, modifiers: [], options: {}, evaluated: true, results: [{ result: 4, active: true }] }],
};
let seq = 0;
function secretEvent(request, kind = "roll") {
  seq += 1;
  const data = kind === "roll"
    ? { formula: "1d6", total: 4, roll: { groups: [{ formula: "1d6", total: 4, dice: [{ faces: 6, rolls: [4], value: 4 }] }] } }
    : { action: "attack", narration: "hit", dice: [{ formula: "1d6", total: 4, dice: [{ faces: 6, rolls: [4], value: 4 }] }] };
  return { type: "event", table: "t1", epoch: 1, seq, kind, gm_only: true, request, by: "player:p", data, actors: [], foundry: { rolls: [ROLL], speaker: null } };
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
beforeEach(async () => {
  client?.stop();
  await world({ users: USERS, user: "gm" });
  await registerModuleSettings();
  client = new FoundryClient();
  client.start();
  welcomeClient(client, { role: "gm", seq }); // the events that follow come without a gap
});
after(() => {
  client?.stop();
  Standin.uninstall();
});

async function post(event, note) {
  if (note) client.onSocket({ type: "rollMode", request: event.request, user: PLAYER, mode: note });
  globalThis.WebSocket.last().receive(event);
  await settle(client);
  return Standin.log.messages.at(-1);
}

test("a player's GM roll: the GMs and the roller read it, nobody else", async () => {
  const message = await post(secretEvent("p-gm"), "gmroll");
  assert.equal(message.author, PLAYER);
  assert.deepEqual(message.whisper, [GM, ASSISTANT]);
  assert.equal(message.blind, false);
  assert.equal(message.flags.rollbridge.rollMode, "gmroll");
  assert.deepEqual(readBy(message, PLAYER), [true, true]);
  assert.deepEqual(readBy(message, GM), [true, true]);
  assert.equal(readBy(message, OTHER)[1], false);
});

test("a player's blind roll: the GMs read it, the roller does not", async () => {
  const message = await post(secretEvent("p-blind"), "blindroll");
  assert.equal(message.blind, true);
  assert.deepEqual(readBy(message, GM), [true, true]);
  assert.equal(readBy(message, PLAYER)[1], false);
  assert.equal(readBy(message, OTHER)[1], false);
});

test("a player's self roll: the roller alone reads it", async () => {
  const message = await post(secretEvent("p-self"), "selfroll");
  assert.deepEqual(message.whisper, [PLAYER]);
  assert.equal(readBy(message, PLAYER)[1], true);
  assert.equal(readBy(message, GM)[1], false);
  assert.equal(readBy(message, OTHER)[1], false);
});

test("a secret event without a note is blind (the server's meaning); a player's GM resolution too", async () => {
  const unknown = await post(secretEvent("nobody-said"), null);
  assert.equal(unknown.blind, true);
  assert.equal(unknown.author, GM);
  assert.equal(readBy(unknown, PLAYER)[1], false);
  const resolution = await post(secretEvent("p-res", "resolution"), "gmroll");
  assert.equal(resolution.blind, true);
  assert.equal(readBy(resolution, PLAYER)[1], false);
  assert.deepEqual(readBy(resolution, GM), [true, true]);
});

test("a note claiming a GM, or an unknown user, is ignored", async () => {
  await client.relayed({ type: "rollMode", request: "claims-gm", user: GM, mode: "selfroll" });
  await client.relayed({ type: "rollMode", request: "ghost", user: "nobody", mode: "selfroll" });
  assert.equal(client.modes.get("claims-gm"), null);
  assert.equal(client.modes.get("ghost"), null);
});

test("the GM's own GM roll and a player's secret request tell the GM's client their mode", async () => {
  const ws = globalThis.WebSocket.last();
  const rolled = client.roll("1d6", { rollMode: "gmroll" });
  await new Promise((r) => setImmediate(r));
  const request = ws.messages().at(-1);
  assert.equal(request.rollMode, "gmroll");
  assert.deepEqual(client.modes.get(request.id), { user: GM, mode: "gmroll", gm: true });
  ws.receive({ type: "result", id: request.id, seq: 1, status: "secret" });
  await rolled;
  // a player's client, v13: the note is a query to the active GM's client, answered
  // before the request goes out
  for (const generation of [13, 12]) {
    client.stop();
    await world({ users: USERS, user: PLAYER, generation });
    await registerModuleSettings();
    const order = [];
    Standin.queryClient = async (user, name, data) => {
      order.push(["query", user.id, name, data]);
      return { noted: true };
    };
    client = new FoundryClient();
    client.start();
    const pws = welcomeClient(client, { role: "player" });
    const send = pws.send.bind(pws);
    pws.send = (frame) => {
      order.push(["sent", JSON.parse(frame).type]);
      send(frame);
    };
    const asked = client.roll("2d6", { rollMode: "selfroll" });
    for (let i = 0; i < 50 && !pws.messages().some((m) => m.type === "foundry.roll"); i++) await new Promise((r) => setImmediate(r));
    const sent = pws.messages().at(-1);
    const note = { type: "rollMode", request: sent.id, mode: "selfroll", gm: false, user: PLAYER };
    if (generation >= 13) {
      assert.deepEqual(order, [["query", GM, "rollbridge.relay", note], ["sent", "foundry.roll"]]);
      assert.deepEqual(Standin.log.socket.filter((s) => s.message.type === "rollMode"), []);
    } else {
      assert.deepEqual(order, [["sent", "foundry.roll"]], "v12 has no queries");
      assert.deepEqual(Standin.log.socket.map((s) => s.message).filter((m) => m.type === "rollMode"), [note]);
    }
    pws.receive({ type: "result", id: sent.id, seq: 2, status: "secret" });
    await asked;
  }
});

test("a gap in the events is no outage: the GM is told neither a drop nor a reconnect; a real drop is told", async () => {
  const ws = globalThis.WebSocket.last();
  const sockets = globalThis.WebSocket.instances.length;
  Standin.log.notifications.length = 0;
  ws.receive(secretEvent("gap-before")); // seq + 1: taken
  seq += 1; // seq + 2 never comes
  ws.receive(secretEvent("gap-after"));
  await settle(client);
  for (let i = 0; i < 100 && globalThis.WebSocket.instances.length === sockets; i++) {
    await new Promise((r) => setTimeout(r, 10)); // the first step of the backoff, at most 0.5 s
  }
  const again = globalThis.WebSocket.last();
  assert.notEqual(again, ws, "the client reconnected");
  again.open();
  const hello = again.messages().find((m) => m.type === "hello");
  assert.equal(hello.resume.seq, seq - 2, "resumes from the last event it got");
  again.receive({ type: "welcome", id: hello.id, protocol: 1, role: "gm", epoch: 1, seq, locale: game.i18n.lang,
    table: { id: "t1", actors: [] }, resume: { recovered: true, missed: 2 } });
  await settle(client);
  assert.deepEqual(Standin.log.notifications, [], "no toast for a gap");
  again.drop(1006);
  assert.deepEqual(Standin.log.notifications.map((n) => n.level), ["warn"], "a drop is told");
  assert.ok(Standin.log.notifications[0].text.includes(game.i18n.localize("ROLLBRIDGE.Notice.Reconnecting")));
});

test("a hello refused for the address's wrong tokens tells the GM the server's words, not only 'reconnecting'", async () => {
  globalThis.WebSocket.last().drop(1006);
  client.connection.nudge(); // waiting to reconnect: now, not at the backoff's step
  const ws = globalThis.WebSocket.last();
  Standin.log.notifications.length = 0;
  ws.open();
  const hello = ws.messages().find((m) => m.type === "hello");
  const message = "too many wrong tokens came from this address; no token is checked from it for 59.5 s";
  ws.receive({ type: "error", id: hello.id, code: "rate_limited", message,
               details: { retry_after: 59.5, scope: "wrong_tokens" } });
  await settle(client);
  assert.equal(client.connection.status, "waiting");
  assert.deepEqual(Standin.log.notifications.map((n) => n.level), ["warn"]);
  assert.ok(Standin.log.notifications[0].text.includes(message), Standin.log.notifications[0].text);
});
