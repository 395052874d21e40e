// The server going away and coming back in a game (foundry10 audit), at the GM's
// Foundry client: a roll pending when the line drops is answered once the server is
// back (sent again with its id), its card posted once however often the line drops
// around it; a request made while the server is away goes out once it is back; a
// server that comes back refusing the token tells every pending request it failed;
// the network or the tab back, the client tries at once (foundry/network.mjs).

import assert from "node:assert/strict";
import { after, test } from "node:test";

import { FoundryClient } from "../../../adapters/foundry/module/scripts/foundry/client.mjs";
import { watchNetwork } from "../../../adapters/foundry/module/scripts/foundry/network.mjs";
import { FakeWebSocket } from "./fakes.mjs";
import { bootModule, registerModuleSettings, rollEvent, settle, Standin, welcomeClient, world } from "./standin.mjs";

globalThis.CSS ??= { escape: (s) => s }; // the browser's, which Node lacks

let client = null;
after(() => {
  client?.stop();
  Standin.uninstall();
});

const turns = async (n = 30) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

/** The server back: the client reconnects now (not at the backoff's step); its hello. */
function back({ seq, missed }) {
  client.connection.nudge();
  const ws = FakeWebSocket.last();
  ws.open();
  const hello = ws.messages().find((m) => m.type === "hello");
  ws.receive({ type: "welcome", id: hello.id, protocol: 1, role: "gm", epoch: 1, seq, locale: "en",
    resume: { recovered: true, missed }, table: { id: "t1", actors: [] } });
  return { ws, hello };
}

/** The GM's client in a fresh world, welcomed at seq 0; its socket. */
async function gmJoined() {
  client?.stop();
  await world({ generation: 13 });
  await registerModuleSettings();
  game.ready = true;
  client = new FoundryClient();
  client.start();
  const first = welcomeClient(client, { role: "gm", seq: 0 });
  return first;
}

const cards = (seq) => Standin.log.messages.filter((m) => m.flags?.rollbridge?.seq === seq);

test("a roll pending across two drops is answered once the server is back, and its card is posted once", async () => {
  const first = await gmJoined();
  const rolled = client.roll("1d6", { flavor: "Dodge" });
  await turns();
  const sent = first.messages().at(-1);
  assert.equal(sent.type, "foundry.roll");
  Standin.log.notifications.length = 0;
  // the server rolled it, then went away before the answer reached the client
  first.drop(1006);
  assert.deepEqual(Standin.log.notifications.map((n) => n.level), ["warn"], "the GM is told once");
  // back: the missed event comes first, then the request goes again with its id
  const second = back({ seq: 1, missed: 1 });
  assert.deepEqual(second.hello.resume, { epoch: 1, seq: 0 });
  second.ws.receive(rollEvent(1, { request: sent.id, total: 4 }));
  await turns();
  const again = second.ws.messages().filter((m) => m.id === sent.id);
  assert.equal(again.length, 1, "sent again once, with the same id");
  // gone again before the answer; back with nothing missed
  second.ws.drop(1006);
  const third = back({ seq: 1, missed: 0 });
  assert.deepEqual(third.hello.resume, { epoch: 1, seq: 1 });
  assert.equal(third.ws.messages().filter((m) => m.id === sent.id).length, 1);
  third.ws.receive({ type: "result", id: sent.id, status: "done", seq: 1 });
  const event = await rolled;
  assert.equal(event.seq, 1);
  assert.equal(event.data.total, 4);
  await settle(client);
  assert.equal(cards(1).length, 1, "one card for the roll");

  // a request made while the server is away waits, and goes out once it is back
  third.ws.drop(1006);
  const later = client.roll("1d6");
  await turns();
  assert.equal(client.connection.connected, false);
  const fourth = back({ seq: 1, missed: 0 });
  await turns();
  const queued = fourth.ws.messages().filter((m) => m.type === "foundry.roll");
  assert.equal(queued.length, 1, "sent once, on the new connection");
  fourth.ws.receive(rollEvent(2, { request: queued[0].id, total: 6 }));
  fourth.ws.receive({ type: "result", id: queued[0].id, status: "done", seq: 2 });
  assert.equal((await later).seq, 2);
  await settle(client);
  assert.equal(cards(2).length, 1);
  assert.equal(cards(1).length, 1, "still one for the first");

  // a server that comes back refusing the token: what is pending is told it failed
  fourth.ws.drop(1006);
  const refused = client.roll("1d6").then(() => null, (error) => error);
  client.connection.nudge();
  const fifth = FakeWebSocket.last();
  fifth.open();
  const hello = fifth.messages().find((m) => m.type === "hello");
  fifth.receive({ type: "error", id: hello.id, code: "auth_failed", message: "unknown token" });
  fifth.drop(1008);
  const error = await refused;
  assert.ok(error, "the pending roll is rejected, not left waiting");
  assert.ok(error.code, `a typed error: ${error.message}`);
  assert.ok(Standin.log.notifications.some((n) => n.level === "error"), "the GM is told the token was refused");
});

test("back after a long outage: the 40 missed events' cards are posted, and the cursor is written once they are, not 40 times", async () => {
  const first = await gmJoined();
  first.receive(rollEvent(1));
  await settle(client);
  const writes = () => Standin.log.settingsSet.filter((id) => id === "rollbridge.cursor").length;
  assert.equal(writes(), 1);
  first.drop(1006);
  const { ws } = back({ seq: 41, missed: 40 });
  for (let seq = 2; seq <= 41; seq++) ws.receive(rollEvent(seq));
  await settle(client);
  assert.equal(Standin.log.messages.filter((m) => m.flags?.rollbridge?.replayed).length, 40);
  assert.deepEqual(game.settings.get("rollbridge", "cursor"), { table: "t1", epoch: 1, seq: 41 });
  assert.equal(writes(), 2, "one write for the whole resume");
});

test("the network or the tab back: the GM's client reconnects now, not at the backoff's next step", async () => {
  const first = await gmJoined();
  const page = new EventTarget();
  const document = Object.assign(new EventTarget(), { visibilityState: "hidden" });
  const stop = watchNetwork(() => client.nudge(), { window: page, document });
  try {
    first.drop(1006);
    assert.equal(client.connection.status, "waiting");
    assert.equal(FakeWebSocket.instances.length, 1, "waiting for the backoff's step");
    page.dispatchEvent(new Event("online"));
    assert.equal(FakeWebSocket.instances.length, 2, "tried at once");
    FakeWebSocket.last().drop(1006);
    document.dispatchEvent(new Event("visibilitychange"));
    assert.equal(FakeWebSocket.instances.length, 2, "a tab hidden: nothing");
    document.visibilityState = "visible";
    document.dispatchEvent(new Event("visibilitychange"));
    assert.equal(FakeWebSocket.instances.length, 3, "the tab shown again: tried at once");
    FakeWebSocket.last().drop(1006);
    page.dispatchEvent(Object.assign(new Event("pageshow"), { persisted: true }));
    assert.equal(FakeWebSocket.instances.length, 4, "back from the back-forward cache");
    // connected, an `offline` pings at once: a dead line is noticed within a ping's timeout
    const { ws } = back({ seq: 0, missed: 0 });
    page.dispatchEvent(new Event("offline"));
    assert.equal(ws.messages().at(-1)?.type, "ping");
    ws.drop(1006);
  } finally {
    stop();
  }
  const count = FakeWebSocket.instances.length;
  page.dispatchEvent(new Event("online"));
  assert.equal(FakeWebSocket.instances.length, count, "stopped listening");
});

test("the module booted listens to the page: `online` reconnects its connection at once", async () => {
  client?.stop();
  client = null;
  // the page (globalThis is the window in a browser): an event target for this test
  const page = new EventTarget();
  globalThis.addEventListener = page.addEventListener.bind(page);
  globalThis.removeEventListener = page.removeEventListener.bind(page);
  try {
    await world({ generation: 13 });
    await bootModule();
    const ws = FakeWebSocket.last();
    ws.open();
    const hello = ws.messages().find((m) => m.type === "hello");
    ws.receive({ type: "welcome", id: hello.id, protocol: 1, role: "gm", epoch: 1, seq: 0, locale: "en", table: { id: "t1", actors: [] } });
    ws.drop(1006);
    assert.equal(FakeWebSocket.instances.length, 1);
    page.dispatchEvent(new Event("online"));
    assert.equal(FakeWebSocket.instances.length, 2);
  } finally {
    delete globalThis.addEventListener;
    delete globalThis.removeEventListener;
  }
});
