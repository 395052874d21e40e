// The cards of a restored epoch's events that happened while no GM's client posted
// cards (the GM away): the active GM's client, at its snapshot welcome, reads them
// from the server on a connection of its own and posts each card the chat lacks
// (foundry/restored.mjs missedSinceRestore, client.mjs; docs/foundry.md, "A card a
// restore undid is marked"). Here the server's side is the test's: the reader's
// socket is answered as a real server answers a resume (its welcome recovered, the
// missed events after it).

import assert from "node:assert/strict";
import { after, test } from "node:test";

import { FoundryClient } from "../../../adapters/foundry/module/scripts/foundry/client.mjs";
import { FakeWebSocket } from "./fakes.mjs";
import { registerModuleSettings, settle, Standin, until, world } from "./standin.mjs";

const USERS = [
  { _id: "standinGM000001", name: "Gamemaster", isGM: true },
  { _id: "standinGM000002", name: "Second GM", isGM: true },
  { _id: "standinPlr00001", name: "Player" },
];
const [GM, GM2, PLAYER] = USERS.map((u) => u._id);
const EPOCHS = [{ epoch: 1, from: 0 }, { epoch: 2000, from: 4 }];
let client = null;
after(() => {
  client?.stop();
  Standin.uninstall();
});

/** A roll event of epoch 2000 at `seq`, the player's request `request`. */
const roll = (seq, request) => ({
  type: "event", table: "t1", epoch: 2000, seq, kind: "roll", request,
  data: { formula: "1d6", total: seq, text: `rolled ${seq}` }, actors: [], foundry: { rolls: [] },
});

/** A card in the chat: the player's own card of its roll (posted while no GM was
 * active: flags.request names the request) or a GM's. */
const card = (epoch, seq, author, request = null) => ({
  content: `<div class="rollbridge-card" data-epoch="${epoch}" data-seq="${seq}">#${seq}</div>`,
  author,
  flags: { rollbridge: { table: "t1", epoch, seq, kind: "roll", view: "players", ...(request ? { request } : {}) } },
});

/** Welcome `socket`'s hello (a snapshot of epoch 2000 at #7, with the epochs record;
 * the GM's lists the requests still `pending`). */
function welcome(socket, role, pending = []) {
  socket.open();
  const hello = socket.messages().find((m) => m.type === "hello");
  const table = { id: "t1", actors: [], ...(role === "gm" ? { pending } : {}) };
  socket.receive({ type: "welcome", id: hello.id, protocol: 1, role, epoch: 2000, seq: 7, locale: "en",
    resume: { recovered: false }, table, epochs: EPOCHS });
}

/** The page of `user`, its chat holding `cards`, welcomed as `role` (`pending`: the
 * requests the GM's welcome lists as waiting). */
async function page(user, role, cards, pending = []) {
  client?.stop();
  FakeWebSocket.reset();
  await world({ users: USERS, user, generation: 13 });
  await registerModuleSettings();
  for (const data of cards) await ChatMessage._fromWorld({ data, user: data.author });
  client = new FoundryClient();
  client.start();
  await settle(client);
  // a GM's client that is not the active GM's does not connect at all
  if (FakeWebSocket.instances[0]) welcome(FakeWebSocket.instances[0], role, pending);
}

const before = [card(1, 3, GM), card(1, 5, GM)]; // the world played the table before the restore

test("the GM's client posts the cards the chat lacks, once: not the player's own card again", async () => {
  const mine = "fvtt@standinPlr00001-r5";
  await page(GM, "gm", [...before, card(2000, 5, PLAYER, mine)]);
  assert.ok(FakeWebSocket.instances[0], "the active GM's page connects");
  const reader = await until(() => FakeWebSocket.instances[1], "the reader's socket");
  reader.open();
  const hello = reader.messages().find((m) => m.type === "hello");
  assert.deepEqual(hello.resume, { epoch: 2000, seq: 4 }, "a resume from the epoch's start");
  reader.receive({ type: "welcome", id: hello.id, protocol: 1, role: "gm", epoch: 2000, seq: 7, locale: "en",
    resume: { recovered: true, missed: 3 }, table: { id: "t1", actors: [] } });
  for (const seq of [5, 6, 7]) reader.receive(roll(seq, seq === 5 ? mine : `fvtt@standinPlr00001-r${seq}`));
  await settle(client);
  const ours = game.messages.contents.filter((m) => m.flags.rollbridge.epoch === 2000);
  assert.deepEqual(ours.map((m) => [m.flags.rollbridge.seq, m.author?.id ?? m.author]),
    [[5, PLAYER], [6, GM], [7, GM]], "#6 and #7 posted by the GM's client, #5 left to the player's card");
  assert.equal(reader.closedWith !== null, true, "the reader closed once the events came");
});

for (const [user, role, who] of [[PLAYER, "player", "a player's client"], [GM2, "gm", "a GM's client that is not the active GM's"]]) {
  test(`${who} reads nothing and posts nothing`, async () => {
    await page(user, role, before);
    await settle(client);
    assert.ok(FakeWebSocket.instances.length <= 1, "no reader opened");
    assert.deepEqual(game.messages.contents.filter((m) => m.flags.rollbridge.epoch === 2000), []);
  });
}

/** A player's request `id` held for approval at `seq` of epoch 2000 (its event). */
const asked = (seq, id) => {
  const pending = `fvtt@standinPlr00001-${id}`;
  const request = { type: "roll", id, fields: { formula: "1d6" }, who: { role: "player", name: "Player" } };
  return { type: "event", table: "t1", epoch: 2000, seq, kind: "approval.requested", request: pending,
    data: { pending, request }, actors: [] };
};

/** The GM's page welcomed at #7 with `waiting` (a request's `approval.requested` event)
 * listed as pending: its entry in the welcome's list and the backfill's reader socket. */
async function waitingPage(waiting) {
  const entry = { pending: waiting.data.pending, ...waiting.data.request };
  await page(GM, "gm", before, [entry]);
  return { entry, reader: await until(() => FakeWebSocket.instances[1], "the reader's socket") };
}

/** The backfill's `reader` answered as a server answers its resume from #4: `events`
 * (#5 to #7), the welcome listing `entry` as still pending. */
function answerBackfill(reader, entry, events) {
  reader.open();
  const hello = reader.messages().find((m) => m.type === "hello");
  reader.receive({ type: "welcome", id: hello.id, protocol: 1, role: "gm", epoch: 2000, seq: 7, locale: "en",
    resume: { recovered: true, missed: events.length }, table: { id: "t1", actors: [], pending: [entry] } });
  for (const event of events) reader.receive(event);
}

test("a request still waiting gets its approval card at its event, once; one settled since gets none", async () => {
  const waiting = asked(6, "w6");
  const { entry, reader } = await waitingPage(waiting);
  answerBackfill(reader, entry, [asked(5, "s5"), waiting, roll(7, "fvtt@standinPlr00001-r7")]);
  await settle(client);
  const ours = game.messages.contents.filter((m) => m.flags.rollbridge.epoch === 2000);
  assert.deepEqual(ours.map((m) => [m.flags.rollbridge.seq, m.flags.rollbridge.kind, m.flags.rollbridge.pending ?? null]),
    [[6, "approval.requested", waiting.data.pending], [7, "roll", null]],
    "the waiting request's card at #6, before #7's; none for s5 (settled: not in the welcome's list)");
  const card = ours[0];
  assert.equal(card.author?.id ?? card.author, GM);
  assert.deepEqual(card.whisper, [GM, GM2], "whispered to the GMs");
  assert.equal(client.approvals.state(waiting.data.pending), "waiting", "its card gets Approve and Reject");
});

test("a player's client posts no approval card of the backfill", async () => {
  await page(PLAYER, "player", before);
  await settle(client);
  assert.ok(FakeWebSocket.instances.length <= 1, "no reader opened");
  assert.deepEqual(game.messages.contents.filter((m) => m.flags.rollbridge.kind === "approval.requested"), []);
});

test("a request settled while the backfill reads gets its card at its event, drawn settled: no Approve nor Reject", async () => {
  const waiting = asked(6, "w6");
  const { entry, reader } = await waitingPage(waiting);
  // rejected (on another GM's page) before the reader's events came: the outcome comes
  // live on the page's own connection, while the backfill waits for the reader
  FakeWebSocket.instances[0].receive({ type: "event", table: "t1", epoch: 2000, seq: 8, kind: "approval.rejected",
    data: { pending: waiting.data.pending, reason: "no" }, actors: [] });
  await until(() => client.approvals.state(waiting.data.pending) === "rejected", "the rejection seen");
  answerBackfill(reader, entry, [roll(5, "fvtt@standinPlr00001-r5"), waiting, roll(7, "fvtt@standinPlr00001-r7")]);
  await settle(client);
  const cards = game.messages.contents.filter((m) => m.flags.rollbridge.kind === "approval.requested");
  assert.deepEqual(cards.map((m) => m.flags.rollbridge.seq), [6], "its card once, at its event (not again from the welcome's list)");
  assert.equal(client.approvals.state(waiting.data.pending), "rejected", "drawn as rejected (buttons.mjs reads this)");
});
