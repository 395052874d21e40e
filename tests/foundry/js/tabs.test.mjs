// The same player with the table open in two tabs of one browser (core/held.mjs,
// foundry/client.mjs #askHeld; docs/foundry.md, "Two tabs of one browser"). The tabs
// share one localStorage and one Web Locks manager (BrowserStandin and
// LockManagerStandin in fakes.mjs: stand-ins after the HTML spec's Web Storage and the
// W3C Web Locks spec), and each has its own connection to the table. Before the fix:
//
// - both tabs asked a held GM roll again at the GM's approval and both posted the
//   roller's card (two cards for one roll);
// - each tab wrote its own copy of the held list, so a roll held in one tab was lost
//   from the storage when the other saved its own (a reload then never asked for it).

import assert from "node:assert/strict";
import { after, test } from "node:test";

import { heldKey, HeldRequests } from "../../../adapters/foundry/module/scripts/core/held.mjs";
import { FoundryClient } from "../../../adapters/foundry/module/scripts/foundry/client.mjs";
import { BrowserStandin, FakeWebSocket, LockManagerStandin, MemoryStorage } from "./fakes.mjs";
import { consoleWarnings, heldGmRoll as heldRoll, registerModuleSettings, settle, Standin, until, world } from "./standin.mjs";

const USERS = [
  { _id: "standinGM000001", name: "Gamemaster", isGM: true },
  { _id: "standinPlr00001", name: "Player" },
];
const PLAYER = USERS[1]._id;
const KEY = heldKey({ world: "standin-world", user: PLAYER });

const clients = [];
after(() => {
  for (const client of clients) client.stop();
  for (const name of ["window", "localStorage", "navigator"]) delete globalThis[name];
  Standin.uninstall();
});

/** A fresh stand-in world of the player, with no tab open yet. */
async function playerWorld() {
  for (const client of clients.splice(0)) client.stop();
  await world({ users: USERS, user: PLAYER, generation: 13 });
  await registerModuleSettings();
  Standin.queryClient = async () => ({ noted: true });
}

/** A tab of `browser` (or a page with `navigator.locks` missing: `locks` false) with the
 * module's client started and welcomed at table t1 at `seq`. Returns {client, ws}. */
function openTab(browser, { seq = 0, locks = true } = {}) {
  const tab = browser.openTab();
  globalThis.window = tab.window;
  globalThis.localStorage = tab.localStorage;
  globalThis.navigator = locks ? tab.navigator : {};
  const client = new FoundryClient();
  clients.push(client);
  client.start();
  const ws = FakeWebSocket.last();
  ws.open();
  const hello = ws.messages().find((m) => m.type === "hello");
  ws.receive({ type: "welcome", id: hello.id, protocol: 1, role: "player", epoch: 1, seq, locale: game.i18n.lang, table: { id: "t1", actors: [] } });
  return { client, ws };
}

/** A fresh world and browser with two tabs of the player open (openTab's `options`). */
async function twoTabs(options) {
  await playerWorld();
  const browser = new BrowserStandin();
  return { browser, a: openTab(browser, options), b: openTab(browser, options) };
}

/** The roll's event as the reply to its roller carries it (the players' view). */
const rolled = (seq, request) => ({
  kind: "roll", epoch: 1, seq, request, by: "player:ivan", table: "t1", data: { formula: "2d6", total: 7, text: "2d6 [3, 4] = 7", requester_sees: true },
  actors: [], foundry: { rolls: [], speaker: null },
});

// how many repeats of each socket were answered
const answered = new WeakMap();

/** Answer, as the server would, each repeat of `id` the tabs sent and that is not
 * answered yet, with `reply`, until none comes for a while (a count of turns, not a
 * time). Returns how many were answered. */
async function answerRepeats(tabs, id, reply) {
  for (const { ws } of tabs) if (!answered.has(ws)) answered.set(ws, 0);
  let count = 0;
  for (let quiet = 0; quiet < 3; ) {
    let any = false;
    for (const { client, ws } of tabs) {
      const repeats = ws.messages().filter((m) => m.id === id && m.repeat);
      while (answered.get(ws) < repeats.length) {
        answered.set(ws, answered.get(ws) + 1);
        ws.receive({ type: "result", id, ...reply });
        count += 1;
        any = true;
      }
      await settle(client);
    }
    quiet = any ? 0 : quiet + 1;
  }
  return count;
}

const stored = (storage) => JSON.parse(storage.getItem(KEY) ?? "null");

/** A fresh world and browser: a GM roll held in the first tab, then a second tab opened
 * that reads it back and asks it once (answered pending). Returns {browser, a, b, sent,
 * asked}: `asked` how many repeats were answered. */
async function heldAndReadBack() {
  await playerWorld();
  const browser = new BrowserStandin();
  const a = openTab(browser, { seq: 3 });
  const sent = await heldRoll(a, "p4");
  await until(() => browser.store.getItem(KEY), "the held roll kept");
  const b = openTab(browser, { seq: 3 });
  const asked = await answerRepeats([a, b], sent.id, { status: "pending", pending: "p4" });
  return { browser, a, b, sent, asked };
}

test("two tabs of one browser: the GM's approval of a held GM roll posts the roller's card once, from one tab", async () => {
  // the second tab opened while the roll waits: it reads the held roll back and asks it once
  const { browser, a, b, sent, asked: once } = await heldAndReadBack();
  assert.equal(once, 1);
  // the GM approves: both tabs get the placeholder
  const before = Standin.log.messages.length;
  for (const tab of [a, b]) tab.ws.receive({ type: "event", table: "t1", kind: "hidden", epoch: 1, seq: 4 });
  const asked = await answerRepeats([a, b], sent.id, { status: "secret", seq: 4, event: rolled(4, sent.id) });
  const cards = Standin.log.messages.slice(before);
  assert.equal(cards.length, 1, "one roller's card for one roll");
  assert.deepEqual(cards[0].whisper, [PLAYER]);
  assert.equal(asked, 1, "asked again by one tab: the other found it settled");
  assert.equal(browser.store.getItem(KEY), null, "settled: dropped from the storage");
  assert.equal(a.client.held.size + b.client.held.size, 0, "neither tab holds it any more");
});

test("two tabs of one browser: a roll held in each is kept for a reload, neither overwriting the other's", async () => {
  const { browser, a, b } = await twoTabs({ seq: 3 });
  const first = await heldRoll(a, "p2");
  const second = await heldRoll(b, "p3");
  await settle(a.client);
  await settle(b.client);
  assert.deepEqual(stored(browser.store).held.map(([id]) => id).sort(), [first.id, second.id].sort(), "both kept");
  // the GM rejects the first (its event reaches both tabs): dropped, the second stays
  for (const tab of [a, b]) {
    tab.ws.receive({ type: "event", table: "t1", epoch: 1, seq: 4, kind: "approval.rejected",
      data: { pending: "p2", request: first.id, type: "foundry.roll", requested_by: "Player", reason: "" } });
  }
  await settle(a.client);
  await settle(b.client);
  assert.deepEqual(stored(browser.store).held.map(([id]) => id), [second.id]);
  await until(() => a.client.held.has(second.id), "the first tab reads the second tab's roll back (its storage event)");
  // a reload of either tab asks for the one still held
  const c = openTab(browser, { seq: 5 });
  const asked = await until(() => c.ws.messages().find((m) => m.id === second.id && m.repeat), "asked again after the reload");
  assert.equal(asked.type, "foundry.roll");
});

test("a tab whose connection went down while it waited for the other tab's round takes the lock and lets it go: nothing queued on the dead connection", async () => {
  // before, it queued the repeat on its connection and held the lock until it came
  // back, and the other tab, connected, could not act on the held requests meanwhile
  const { browser, a, b, sent } = await heldAndReadBack();
  for (const tab of [a, b]) tab.ws.receive({ type: "event", table: "t1", kind: "hidden", epoch: 1, seq: 4 });
  await until(() => a.ws.messages().filter((m) => m.id === sent.id && m.repeat).length === 1, "the first tab asks");
  b.ws.drop(); // the second tab's connection goes down while it waits for the lock
  a.ws.receive({ type: "result", id: sent.id, status: "pending", pending: "p4" });
  await settle(a.client);
  await settle(b.client);
  assert.deepEqual(browser.locks.held(KEY), [], "no tab holds the lock");
  assert.equal(b.ws.messages().filter((m) => m.id === sent.id).length, 1, "the second tab asked once, at its welcome");
  assert.ok(b.client.held.has(sent.id), "still held: asked again at the second tab's next welcome");
});

test("the held list merged, not overwritten: another tab's entry written meanwhile is kept, one this tab settled is not taken back", async () => {
  const store = new MemoryStorage();
  const message = (id) => ({ type: "foundry.roll", id, roll: { formula: "2d6" } });
  const entry = (id) => ({ message: message(id), epoch: 1, floor: 0, token: "0badcafe" });
  const a = new HeldRequests();
  const b = new HeldRequests();
  a.open({ storage: store, key: "k", table: "t1" });
  b.open({ storage: store, key: "k", table: "t1" });
  a.set("r1", entry("r1"));
  b.set("r2", entry("r2")); // b never read r1 back: merged all the same
  assert.deepEqual(JSON.parse(store.getItem("k")).held.map(([id]) => id), ["r1", "r2"]);
  a.delete("r1");
  b.set("r3", entry("r3"));
  assert.deepEqual(JSON.parse(store.getItem("k")).held.map(([id]) => id), ["r2", "r3"], "r1 stays settled");
  b.refresh();
  assert.deepEqual([...b].map(([id]) => id), ["r2", "r3"]);
});

test("without Web Locks (navigator.locks missing) the tabs still merge what they keep, and the module runs as before", async () => {
  const { browser, a, b } = await twoTabs({ seq: 1, locks: false });
  const first = await heldRoll(a, "p2");
  const second = await heldRoll(b, "p3");
  assert.deepEqual(stored(browser.store).held.map(([id]) => id).sort(), [first.id, second.id].sort());
});

test("without Web Locks, a roll held in one of two open tabs: the GM's approval posts its card once, the other tab only knowing of it", async () => {
  // before, the other tab read the roll back at the first tab's write (its storage
  // event) and asked it again at the approval too: two cards, where the tabs without
  // the shared list had one (a tab opened before the roll did not know it)
  const { browser, a, b } = await twoTabs({ seq: 3, locks: false });
  const sent = await heldRoll(a, "p4");
  await until(() => b.client.held.has(sent.id), "the second tab reads the held roll back");
  const before = Standin.log.messages.length;
  for (const tab of [a, b]) tab.ws.receive({ type: "event", table: "t1", kind: "hidden", epoch: 1, seq: 4 });
  const asked = await answerRepeats([a, b], sent.id, { status: "secret", seq: 4, event: rolled(4, sent.id) });
  assert.equal(Standin.log.messages.length - before, 1, "one roller's card for one roll");
  assert.equal(asked, 1, "asked again by the tab it was held in alone");
  assert.equal(b.ws.messages().filter((m) => m.id === sent.id).length, 0, "the other tab asked nothing");
  assert.equal(browser.store.getItem(KEY), null, "settled: dropped from the storage");
});

test("a browser that refuses Web Locks (an opaque origin): one console line, and the tab acts as without them", async () => {
  // before, each round of asking (each welcome, each placeholder) asked for the lock
  // again and logged the refusal again, where the docs say one line
  await playerWorld();
  const browser = new BrowserStandin({ locks: new LockManagerStandin({ opaque: true }) });
  let a;
  let sent;
  const lines = await consoleWarnings(async () => {
    a = openTab(browser, { seq: 3 });
    sent = await heldRoll(a, "p4");
    for (const seq of [4, 5]) {
      const mark = a.ws.messages().length;
      a.ws.receive({ type: "event", table: "t1", kind: "hidden", epoch: 1, seq });
      const repeat = await until(() => a.ws.messages().slice(mark).find((m) => m.id === sent.id && m.repeat), "asked again");
      a.ws.receive({ type: "result", id: repeat.id, status: "pending", pending: "p4" });
      await settle(a.client);
    }
  });
  assert.equal(lines.filter((line) => line.includes("no Web Lock")).length, 1, lines.join("\n"));
  assert.ok(a.client.held.has(sent.id), "still held");
});

test("the Web Locks stand-in follows the spec: exclusive per name, granted in order, ifAvailable gets null, released when the callback's promise settles", async () => {
  const locks = new LockManagerStandin();
  const order = [];
  let release;
  const first = locks.request("n", async (lock) => {
    order.push(`first ${lock.name} ${lock.mode}`);
    await new Promise((resolve) => {
      release = resolve;
    });
    return 1;
  });
  const second = locks.request("n", { mode: "exclusive" }, async (lock) => {
    order.push(`second ${lock.mode}`);
    return 2;
  });
  const other = locks.request("m", async () => order.push("other name"));
  await until(() => release, "the first granted");
  assert.equal(await locks.request("n", { ifAvailable: true }, async (lock) => lock), null, "held: null, not queued");
  await other;
  assert.deepEqual(order, ["first n exclusive", "other name"], "the second waits for the first");
  release();
  assert.equal(await first, 1);
  assert.equal(await second, 2);
  assert.deepEqual(order, ["first n exclusive", "other name", "second exclusive"]);
  await assert.rejects(locks.request("n", async () => {
    throw new Error("boom");
  }), /boom/);
  assert.deepEqual(locks.held("n"), [], "released when the callback's promise rejected");
  let both;
  const together = new Promise((resolve) => {
    both = resolve;
  });
  const seen = [];
  const shared = [1, 2].map(() => locks.request("s", { mode: "shared" }, async () => {
    seen.push(locks.held("s").length);
    if (seen.length === 2) both();
    await together;
  }));
  await Promise.all(shared);
  assert.deepEqual(seen, [2, 2], "shared locks held together");
  await assert.rejects(locks.request("-x", async () => {}), { name: "NotSupportedError" });
  await assert.rejects(locks.request("n", { ifAvailable: true, steal: true }, async () => {}), { name: "NotSupportedError" });
  await assert.rejects(new LockManagerStandin({ opaque: true }).request("n", async () => {}), { name: "SecurityError" });
});
