// A player's GM roll held for the GM's approval, across a reload of the player's
// page and past the server's reply window (core/held.mjs, foundry/client.mjs
// #askHeld):
//
// - kept in the browser's localStorage (a stand-in of the Web Storage API here), keyed
//   by world and user: a page reloaded before the GM answered asks for it again once
//   welcomed and, approved, posts the roller's card; rejected or of another epoch, it
//   is dropped from the storage too. Before the fix the held request lived in page
//   memory alone and a reload lost the roller's card;
// - asked again only to repeat (`"repeat": true`): the server keeps a reply for
//   repeats only for ten times its log, and an id it no longer remembers is a new
//   request (a second approval card, a second roll); only to repeat, it is refused
//   `not_remembered` instead, and the module drops it and tells the player. Before
//   that fix the module probed the log first (a `state` with `at`) and sent the
//   request as it was, which left a gap; it still does so with a server older than
//   the field (LogSocket.knowsRepeat false, answered as a real server answers:
//   LogSocket). Before the probe the module sent it again blindly.

import assert from "node:assert/strict";
import { after, test } from "node:test";

import { heldKey, HeldRequests, logMovedOn, repeatUnknown, tokenMark } from "../../../adapters/foundry/module/scripts/core/held.mjs";
import { FoundryClient } from "../../../adapters/foundry/module/scripts/foundry/client.mjs";
import { FakeWebSocket, LogSocket, MemoryStorage } from "./fakes.mjs";
import { heldGmRoll, registerModuleSettings, settle, Standin, until, world } from "./standin.mjs";

const USERS = [
  { _id: "standinGM000001", name: "Gamemaster", isGM: true },
  { _id: "standinPlr00001", name: "Player" },
];
const PLAYER = USERS[1]._id;
const KEY = heldKey({ world: "standin-world", user: PLAYER });

let client = null;
after(() => {
  client?.stop();
  delete globalThis.localStorage;
  Standin.uninstall();
});

/** The player's page (a first load or a reload) in a browser whose localStorage is
 * `storage`, its client started and its socket not open yet. Returns the socket. */
async function startedPage(storage) {
  client?.stop();
  await world({ users: USERS, user: PLAYER, generation: 13 });
  globalThis.WebSocket = LogSocket;
  globalThis.localStorage = storage;
  await registerModuleSettings();
  Standin.queryClient = async () => ({ noted: true });
  client = new FoundryClient();
  client.start();
  return FakeWebSocket.last();
}

/** Open `ws` and welcome it at table t1 in `epoch` at `seq`. Returns it. */
function welcomed(ws, { epoch = 1, seq = 0 } = {}) {
  ws.open();
  const hello = ws.messages().find((m) => m.type === "hello");
  ws.receive({ type: "welcome", id: hello.id, protocol: 1, role: "player", epoch, seq, locale: game.i18n.lang, table: { id: "t1", actors: [] } });
  return ws;
}

/** The player's page in a browser whose localStorage is `storage`, welcomed at table
 * t1 in `epoch` at `seq`. Returns its socket. */
async function playerPage(storage, welcome = {}) {
  return welcomed(await startedPage(storage), welcome);
}

/** A GM roll of 2d6 sent on `ws` and held for approval: the request. */
const heldRoll = (ws, pending = "p4") => heldGmRoll({ client, ws }, pending);

/** The roll's event as the reply to its roller carries it (the players' view). */
const rolled = (seq, request) => ({
  kind: "roll", epoch: 1, seq, request, by: "player:ivan", table: "t1", data: { formula: "2d6", total: 7, text: "2d6 [3, 4] = 7", requester_sees: true },
  actors: [], foundry: { rolls: [], speaker: null },
});

const stored = (storage) => JSON.parse(storage.getItem(KEY) ?? "null");

test("the held requests in a Web Storage: kept per table, taken back, garbage and another table's dropped", () => {
  const storage = new MemoryStorage();
  const held = new HeldRequests();
  assert.equal(held.open({ storage, key: "k", table: "t1" }), 0);
  const message = { type: "foundry.roll", id: "r1", roll: { formula: "2d6" } };
  held.set("r1", { message, epoch: 1, floor: 3, token: "0badcafe" });
  assert.deepEqual(JSON.parse(storage.getItem("k")), { table: "t1", held: [["r1", { message, epoch: 1, floor: 3, token: "0badcafe" }]] });
  const again = new HeldRequests();
  assert.equal(again.open({ storage, key: "k", table: "t1" }), 1, "a reload takes it back");
  assert.deepEqual(again.get("r1"), { message, epoch: 1, floor: 3, token: "0badcafe" });
  assert.equal(new HeldRequests().open({ storage, key: "k", table: "t2" }), 0, "another table's: dropped");
  assert.equal(storage.getItem("k"), null);
  storage.setItem("k", "{not json");
  assert.equal(new HeldRequests().open({ storage, key: "k", table: "t1" }), 0);
  storage.setItem("k", JSON.stringify({ table: "t1", held: [["r2", { message: { type: "settings", id: "r2" }, epoch: 1, floor: 0, token: "0badcafe" }], ["r3", { message, epoch: 1, floor: 0, token: "0badcafe" }]] }));
  assert.equal(new HeldRequests().open({ storage, key: "k", table: "t1" }), 0, "not a roll or resolve of its own id: not taken");
  storage.setItem("k", JSON.stringify({ table: "t1", held: [["r1", { message, epoch: 1, floor: 0 }]] }));
  assert.equal(new HeldRequests().open({ storage, key: "k", table: "t1" }), 0, "no token mark: not taken");
  assert.equal(tokenMark("rbt_a"), tokenMark("rbt_a"));
  assert.notEqual(tokenMark("rbt_a"), tokenMark("rbt_b"));
  assert.match(tokenMark("rbt_test_token"), /^[0-9a-f]{8}$/);
  assert.ok(!tokenMark("rbt_test_token").includes("rbt"), "the token is not kept");
  held.delete("r1");
  assert.equal(heldKey({ world: "w", user: "u" }), "rollbridge.held.w.u");
  assert.equal(logMovedOn({ code: "invalid_request", details: { field: "at" } }), true);
  assert.equal(logMovedOn({ code: "invalid_request", details: { field: "formula" } }), false);
  assert.equal(repeatUnknown({ code: "invalid_request", details: { field: "foundry.roll.repeat" } }), true);
  // a ruleset's own refusal, marked so by the server (docs/protocol.md, "Error codes"):
  // what it names says nothing of the server's log or version
  const ruleset = (field) => ({ code: "invalid_request", details: { field, origin: "ruleset" } });
  assert.equal(logMovedOn(ruleset("at")), false);
  assert.equal(repeatUnknown(ruleset("foundry.roll.repeat")), false);
  assert.equal(repeatUnknown(ruleset("params.repeat")), false);
  assert.equal(logMovedOn({ code: "rule_violation", details: { field: "at" } }), false, "another code");
});

test("a ruleset's own refusal of a held request asked again, naming a field `….repeat`: not read as an older server's, so the request is never sent again as a new one (no probe)", async () => {
  const storage = new MemoryStorage();
  const ws = await playerPage(storage, { seq: 3 });
  const sent = await heldRoll(ws);
  LogSocket.repeatRefusal = { code: "invalid_request", message: "foundry.roll.repeat: the ruleset's own check",
    details: { field: "foundry.roll.repeat", origin: "ruleset" } };
  try {
    ws.receive({ type: "event", table: "t1", kind: "hidden", epoch: 1, seq: 4 });
    await until(() => ws.messages().some((m) => m.id === sent.id && m.repeat === true), "asked again, only to repeat");
    await settle(client);
    // until 7 December 2026, night: taken for a server older than `repeat`, probed
    // (`state` at its floor) and sent again as it was first — a new roll where the
    // server no longer remembered it
    assert.equal(ws.messages().filter((m) => m.type === "state").length, 0, "no probe");
    assert.equal(ws.messages().filter((m) => m.id === sent.id && !m.repeat).length, 1, "sent once, never as a new request again");
    ws.receive({ type: "event", table: "t1", kind: "hidden", epoch: 1, seq: 5 });
    await settle(client);
    assert.equal(ws.messages().filter((m) => m.id === sent.id && !m.repeat).length, 1, "nor at the next placeholder");
  } finally {
    LogSocket.repeatRefusal = null;
  }
});

test("a player's page reloaded before the GM approved: the held GM roll asked again once welcomed, and its card posted", async () => {
  const storage = new MemoryStorage();
  const ws = await playerPage(storage, { seq: 3 });
  const sent = await heldRoll(ws);
  assert.deepEqual(stored(storage).held.map(([id, entry]) => [id, entry.epoch, entry.floor]), [[sent.id, 1, 3]],
    "kept with its epoch and the seq seen before it went out");
  // the reload; meanwhile the GM approved it (seq 5), which the new page never hears of
  const page = await playerPage(storage, { seq: 5 });
  const asked = await until(() => page.messages().find((m) => m.id === sent.id), "the held request asked again");
  assert.deepEqual(asked, { ...sent, repeat: true }, "the same request, the same id, only to repeat");
  assert.equal(page.messages().filter((m) => m.type === "state").length, 0, "no probe: the server answers the repeat");
  const before = Standin.log.messages.length;
  page.receive({ type: "result", id: sent.id, status: "secret", seq: 5, event: rolled(5, sent.id) });
  await until(() => Standin.log.messages.length > before, "the roller's card");
  await settle(client);
  const [card] = Standin.log.messages.slice(before);
  assert.deepEqual(card.whisper, [PLAYER], "whispered to the roller alone");
  assert.equal(card.flags.rollbridge.rollMode, "gmroll", "its mode as it was sent before the reload");
  assert.equal(storage.getItem(KEY), null, "settled: dropped from the storage");
});

test("a reloaded page's held request rejected (its event), or of another epoch: told, and dropped from the storage", async () => {
  const storage = new MemoryStorage();
  let ws = await playerPage(storage);
  const sent = await heldRoll(ws, "p1");
  ws = await playerPage(storage, { seq: 1 });
  await until(() => ws.messages().find((m) => m.id === sent.id), "asked again");
  Standin.log.notifications.length = 0;
  ws.receive({ type: "event", table: "t1", epoch: 1, seq: 2, kind: "approval.rejected",
    data: { pending: "p1", request: sent.id, type: "foundry.roll", requested_by: "Player", reason: "" } });
  await settle(client);
  assert.deepEqual(Standin.log.notifications.map((n) => n.text), ["rollbridge: the GM rejected your request."]);
  assert.equal(storage.getItem(KEY), null);
  // another: the table then went on in a new epoch
  const other = await heldRoll(ws, "p3");
  assert.equal(stored(storage).held.length, 1);
  Standin.log.notifications.length = 0;
  ws = await playerPage(storage, { epoch: 2, seq: 9 });
  await settle(client);
  assert.equal(ws.messages().filter((m) => m.id === other.id).length, 0, "not asked in the new epoch");
  assert.match(Standin.log.notifications.map((n) => n.text).join("\n"), /new epoch/);
  assert.equal(storage.getItem(KEY), null);
});

test("a held request the server no longer remembers: asked only to repeat, refused not_remembered, dropped and the player told, never sent as a new request", async () => {
  // before the fix the module probed the log (`state` with `at`) and then sent the
  // request as it was: had the table taken 9 x retain events between the two, the
  // server had forgotten the id and ran it as a new request (a second approval card,
  // a second roll). Only to repeat, the server runs nothing.
  const storage = new MemoryStorage();
  const ws = await playerPage(storage, { seq: 3 });
  const sent = await heldRoll(ws);
  Standin.log.notifications.length = 0;
  ws.receive({ type: "event", table: "t1", kind: "hidden", epoch: 1, seq: 4 });
  const asked = await until(() => ws.messages().filter((m) => m.id === sent.id)[1], "asked again");
  assert.deepEqual(asked, { ...sent, repeat: true }, "the same request, only to repeat");
  ws.receive({ type: "error", id: sent.id, code: "not_remembered", details: { request: sent.id },
    message: `request '${sent.id}' is not remembered: it was sent only to repeat, so nothing was done` });
  await until(() => Standin.log.notifications.length, "the player told");
  await settle(client);
  assert.deepEqual(Standin.log.notifications.map((n) => n.text), [`rollbridge: ${game.i18n.localize("ROLLBRIDGE.Notice.HeldNotRemembered")}`]);
  assert.equal(storage.getItem(KEY), null, "dropped");
  assert.equal(ws.messages().filter((m) => m.type === "state").length, 0, "no probe");
  // later placeholders ask nothing
  ws.receive({ type: "event", table: "t1", kind: "hidden", epoch: 1, seq: 5 });
  await settle(client);
  assert.deepEqual(ws.messages().filter((m) => m.id === sent.id).map((m) => m.repeat ?? false), [false, true], "sent once, then once only to repeat");
});

test("a held request whose seq the table's log no longer reaches: not asked again (the server may make it anew), the player told (a server older than requests that only repeat)", async () => {
  LogSocket.knowsRepeat = false; // the module asks such a server as it did before: a probe first
  const storage = new MemoryStorage();
  const ws = await playerPage(storage, { seq: 3 });
  const sent = await heldRoll(ws);
  // a long night: the log (and so the reply window, ten times it) moved past seq 3
  LogSocket.oldest = 4;
  Standin.log.notifications.length = 0;
  ws.receive({ type: "event", table: "t1", kind: "hidden", epoch: 1, seq: 4 });
  await until(() => Standin.log.notifications.length, "the player told");
  await settle(client);
  assert.equal(ws.messages().filter((m) => m.id === sent.id && !m.repeat).length, 1, "sent once, never again");
  assert.equal(ws.messages().filter((m) => m.type === "state").length, 1, "one probe");
  assert.deepEqual(Standin.log.notifications.map((n) => n.text), [`rollbridge: ${game.i18n.localize("ROLLBRIDGE.Notice.HeldTooOld")}`]);
  assert.equal(storage.getItem(KEY), null, "dropped");
  // later placeholders ask nothing
  ws.receive({ type: "event", table: "t1", kind: "hidden", epoch: 1, seq: 5 });
  await settle(client);
  assert.equal(ws.messages().filter((m) => m.type === "state").length, 1);
  LogSocket.oldest = 0;
  LogSocket.knowsRepeat = true;
});

test("two held requests: the older one's floor probed first; once the log reaches it, the later one asked without a probe (a server older than requests that only repeat)", async () => {
  LogSocket.knowsRepeat = false; // the module asks such a server as it did before: a probe first
  const storage = new MemoryStorage();
  const ws = await playerPage(storage, { seq: 2 });
  const first = await heldRoll(ws, "p3");
  ws.receive({ type: "event", table: "t1", kind: "hidden", epoch: 1, seq: 3 });
  await until(() => ws.messages().filter((m) => m.id === first.id && !m.repeat).length === 2, "asked again");
  ws.receive({ type: "result", id: first.id, status: "pending", pending: "p3" });
  await settle(client);
  const rolling = client.roll("3d6", { rollMode: "gmroll", speaker: {} });
  const second = await until(() => ws.messages().find((m) => m.type === "foundry.roll" && m.id !== first.id && !m.repeat), "the second");
  ws.receive({ type: "result", id: second.id, status: "pending", pending: "p4" });
  await rolling;
  const probes = () => ws.messages().filter((m) => m.type === "state");
  const before = probes().length;
  ws.receive({ type: "event", table: "t1", kind: "hidden", epoch: 1, seq: 4 });
  await until(() => ws.messages().filter((m) => m.id === first.id && !m.repeat).length === 3, "the first asked");
  ws.receive({ type: "result", id: first.id, status: "pending", pending: "p3" });
  await until(() => ws.messages().filter((m) => m.id === second.id && !m.repeat).length === 2, "the second asked");
  assert.deepEqual(probes().slice(before).map((m) => m.at), [2], "one probe, at the older floor");
  assert.equal(ws.messages().filter((m) => m.repeat).length, 1, "the field tried once on this connection, then asked as before");
  LogSocket.knowsRepeat = true;
});

test("a GM roll sent before the page's first welcome: its floor is that welcome's seq, not 0, so a long table's log still reaches it (a server older than requests that only repeat)", async () => {
  LogSocket.knowsRepeat = false; // the module asks such a server as it did before: a probe first
  // the player rolls while the page's connection is still coming up (a reload, the
  // server restarting): the request waits for the welcome, and the connection has no
  // seq yet. Before the fix its floor was 0, and at a table past its retained log (here
  // 5,000 events, the log keeping the last 1,000) the first placeholder dropped it as
  // held too long ago, seconds after it was sent: the player never got its card.
  const storage = new MemoryStorage();
  const ws = await startedPage(storage);
  const rolling = client.roll("2d6", { rollMode: "gmroll", speaker: {} });
  await settle(client);
  assert.equal(ws.messages().length, 0, "nothing sent before the connection opens");
  welcomed(ws, { seq: 5000 });
  const sent = await until(() => ws.messages().find((m) => m.type === "foundry.roll"), "the request, sent once welcomed");
  ws.receive({ type: "result", id: sent.id, status: "pending", pending: "p9" });
  await rolling;
  assert.deepEqual(stored(storage).held.map(([id, entry]) => [id, entry.floor]), [[sent.id, 5000]],
    "the floor is the seq of the welcome the request waited for");
  LogSocket.oldest = 4000;
  Standin.log.notifications.length = 0;
  ws.receive({ type: "event", table: "t1", kind: "hidden", epoch: 1, seq: 5001 });
  await until(() => ws.messages().filter((m) => m.id === sent.id && !m.repeat).length === 2, "asked again");
  assert.deepEqual(ws.messages().filter((m) => m.type === "state").map((m) => m.at), [5000]);
  assert.deepEqual(Standin.log.notifications, [], "not told it was held too long ago");
  assert.equal(stored(storage).held.length, 1, "still held");
  LogSocket.oldest = 0;
  LogSocket.knowsRepeat = true;
});

test("a probe or a repeat refused for now (the store could not read, the server failed): still held, asked again at the next placeholder, and its card posted (a server older than requests that only repeat)", async () => {
  LogSocket.knowsRepeat = false; // the module asks such a server as it did before: a probe first
  // not the server's answer about the request: before the fix the held request was
  // dropped (a line on the console only), and the player never got its card
  const storage = new MemoryStorage();
  const ws = await playerPage(storage, { seq: 3 });
  const sent = await heldRoll(ws);
  const asked = () => ws.messages().filter((m) => m.id === sent.id && !m.repeat).length;
  const probes = () => ws.messages().filter((m) => m.type === "state").length;
  Standin.log.notifications.length = 0;
  LogSocket.refusal = { code: "store_error", message: "the store could not read the table's log" };
  ws.receive({ type: "event", table: "t1", kind: "hidden", epoch: 1, seq: 4 });
  await until(() => probes() === 1, "the probe");
  await settle(client);
  LogSocket.refusal = null;
  assert.equal(asked(), 1, "not asked again past a probe that did not answer");
  assert.equal(stored(storage).held.length, 1, "still held, for a reload too");
  // the next placeholder: the probe answers, the repeat is refused for now
  ws.receive({ type: "event", table: "t1", kind: "hidden", epoch: 1, seq: 5 });
  await until(() => asked() === 2, "asked again");
  ws.receive({ type: "error", id: sent.id, code: "internal", message: "the server failed" });
  await settle(client);
  assert.equal(stored(storage).held.length, 1, "still held after the server's failure");
  // and the next: approved meanwhile, its card posted
  ws.receive({ type: "event", table: "t1", kind: "hidden", epoch: 1, seq: 6 });
  await until(() => asked() === 3, "asked once more");
  const before = Standin.log.messages.length;
  ws.receive({ type: "result", id: sent.id, status: "secret", seq: 6, event: rolled(6, sent.id) });
  await until(() => Standin.log.messages.length > before, "the roller's card");
  await settle(client);
  assert.deepEqual(Standin.log.messages.at(-1).whisper, [PLAYER]);
  assert.equal(storage.getItem(KEY), null, "settled: dropped");
  assert.deepEqual(Standin.log.notifications, [], "nothing told: nothing went wrong for the player");
  LogSocket.knowsRepeat = true;
});

test("a held request after the player's join token changed (pasted anew, a revoked one replaced): not asked with the new token, the player told", async () => {
  // the server scopes a request id by the token that sent it: asked with another
  // token, the id is a new request, held a second time (a second approval card, a
  // second roll once approved). Before the fix the module asked it again, reloaded
  // or not.
  const storage = new MemoryStorage();
  let ws = await playerPage(storage, { seq: 3 });
  const sent = await heldRoll(ws, "p5");
  const other = await heldRoll(ws, "p6");
  assert.deepEqual(stored(storage).held.map(([, entry]) => entry.token), [tokenMark("rbt_test_token"), tokenMark("rbt_test_token")]);
  assert.ok(!JSON.stringify(stored(storage)).includes("rbt_test_token"), "the token itself is not stored");
  // the page reloaded with the same token: asked again
  ws = await playerPage(storage, { seq: 4 });
  await until(() => ws.messages().find((m) => m.id === sent.id), "asked again with its own token");
  ws.receive({ type: "result", id: sent.id, status: "pending", pending: "p5" });
  await until(() => ws.messages().find((m) => m.id === other.id), "the other asked again too");
  ws.receive({ type: "result", id: other.id, status: "pending", pending: "p6" });
  await settle(client);
  // the player pastes a new token (a setting's change starts the client again)
  Standin.log.notifications.length = 0;
  await game.settings.set("rollbridge", "token", "rbt_new_token");
  client.start();
  ws = welcomed(FakeWebSocket.last(), { seq: 5 });
  ws.receive({ type: "event", table: "t1", kind: "hidden", epoch: 1, seq: 6 });
  await settle(client);
  assert.deepEqual(ws.messages().filter((m) => m.id === sent.id || m.id === other.id || m.type === "state"), [], "neither asked, nothing probed");
  assert.deepEqual(Standin.log.notifications.filter((n) => n.level === "warn").map((n) => n.text),
    [`rollbridge: ${game.i18n.localize("ROLLBRIDGE.Notice.HeldOtherToken")}`], "told once");
  assert.equal(storage.getItem(KEY), null, "dropped from the storage");
});

test("a GM roll made while the connection is down: its floor is the seq of the welcome it waits for, not the seq seen before the outage (a server older than requests that only repeat)", async () => {
  LogSocket.knowsRepeat = false; // the module asks such a server as it did before: a probe first
  // the player's connection went away at seq 10; the table went on past its retained
  // log meanwhile; the roll waits for the reconnect, whose welcome (a snapshot) is at
  // seq 5000, and goes out after it. Before the fix its floor was 10, which the log
  // no longer reaches: the first placeholder dropped it as held too long ago.
  const storage = new MemoryStorage();
  const ws = await playerPage(storage, { seq: 10 });
  await settle(client);
  ws.drop();
  const rolling = client.roll("2d6", { rollMode: "gmroll", speaker: {} });
  await settle(client);
  assert.equal(ws.messages().filter((m) => m.type === "foundry.roll").length, 0, "not sent while the connection is down");
  client.nudge(); // the network is back: reconnect now
  const again = await until(() => (FakeWebSocket.last() !== ws ? FakeWebSocket.last() : null), "the reconnect");
  welcomed(again, { seq: 5000 });
  const sent = await until(() => again.messages().find((m) => m.type === "foundry.roll"), "the request, sent once welcomed");
  again.receive({ type: "result", id: sent.id, status: "pending", pending: "p9" });
  await rolling;
  assert.deepEqual(stored(storage).held.map(([id, entry]) => [id, entry.floor]), [[sent.id, 5000]]);
  LogSocket.oldest = 4000;
  Standin.log.notifications.length = 0;
  again.receive({ type: "event", table: "t1", kind: "hidden", epoch: 1, seq: 5001 });
  await until(() => again.messages().filter((m) => m.id === sent.id && !m.repeat).length === 2, "asked again");
  assert.deepEqual(again.messages().filter((m) => m.type === "state").map((m) => m.at), [5000]);
  assert.deepEqual(Standin.log.notifications.filter((n) => n.level === "warn"), [], "not told it was held too long ago");
  LogSocket.oldest = 0;
  LogSocket.knowsRepeat = true;
});
