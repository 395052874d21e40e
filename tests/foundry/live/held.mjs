// A player's GM roll held for the GM's approval, against a real `rollbridge serve
// --retain 4` (started by tests/foundry/test_foundry_held_live.py: a reply window of
// 40 seqs): the module's FoundryClient on the Foundry stand-in in Node, its
// WebSocket the `ws` package's (Node 20 has none), and the GM a plain WebSocket
// client of the protocol. A "reload" is a new stand-in world and client in the same
// "browser" (one localStorage stand-in).
//
// 1. Held, the player's page closed, approved, and the page loaded again at once: the
//    client asks again and posts the roller's card from the server's reply.
// 2. Held, the connection gone (an outage), approved, then 200 more events (past the
//    reply window, the server's 32 replies in memory and SQLite's slack), the
//    connection back and a GM's secret roll (its placeholder made the module ask
//    again before the fix): the client does not ask again and tells the player; the
//    GM's table has no second pending request. Asked again by hand (the control), the
//    server holds the roll a second time, under a new pending id.
// 4. Held and approved with the page up; the table takes 200 events just before the
//    client's request asking again goes out (a hook on its send): the server refuses
//    it (`not_remembered`: it was sent only to repeat), the player is told, and the
//    GM's table has no second pending request. Before the fix the module's `state`
//    probe passed just before, and the request, sent as it was, was held again.
// 3. Held, the page closed, and loaded again with another token of the same player
//    (a revoked one replaced: `table tokens --new player --name player`): the client
//    does not ask again with it and tells the player; the GM's table still lists it
//    once. Asked again by hand with the new token (the control), the server holds it
//    a second time: it scopes request ids by token.
//
// Environment: RB_WS_URL, RB_TOKENS (JSON {gm, player, replaced}; never printed). Prints one line
// `RESULT {json}`; exits non-zero on any failure.

import process from "node:process";

import WebSocket from "ws";

import { rollMessage } from "../../../adapters/foundry/module/scripts/core/protocol.mjs";
import { FoundryClient } from "../../../adapters/foundry/module/scripts/foundry/client.mjs";
import { MemoryStorage } from "../js/fakes.mjs";
import { registerModuleSettings, settle, Standin, world } from "../js/standin.mjs";

const URL = process.env.RB_WS_URL;
const TOKENS = JSON.parse(process.env.RB_TOKENS);
const TABLE = URL.split("/").at(-1);
const USERS = [{ _id: "standinGM000001", name: "Gamemaster", isGM: true }, { _id: "standinPlr00001", name: "Player" }];

/** The GM: a plain protocol client (request → its reply). */
async function gmSocket() {
  const ws = new WebSocket(URL);
  const waiting = new Map();
  ws.on("message", (data) => {
    const frame = JSON.parse(String(data));
    waiting.get(frame.id)?.(frame);
    waiting.delete(frame.id);
  });
  await new Promise((resolve, reject) => {
    ws.once("open", resolve);
    ws.once("error", reject);
  });
  let n = 0;
  const send = (message) => new Promise((resolve) => {
    const id = `gm-${++n}`;
    waiting.set(id, resolve);
    ws.send(JSON.stringify({ ...message, id }));
  });
  // a request refused for the connection's rate (20 a second) is sent again after the
  // server's retry_after; any other refusal fails the run
  const request = async (message) => {
    for (;;) {
      const reply = await send(message);
      if (reply.type !== "error") return reply;
      if (reply.code !== "rate_limited") throw new Error(`the GM's ${message.type} was refused: ${reply.code}`);
      await new Promise((r) => setTimeout(r, Math.ceil(1000 * Number(reply.details?.retry_after ?? 0.1))));
    }
  };
  const welcome = await new Promise((resolve) => {
    waiting.set("hello", resolve);
    ws.send(JSON.stringify({ type: "hello", id: "hello", table: TABLE, token: TOKENS.gm, results: "brief" }));
  });
  if (welcome.type !== "welcome") throw new Error(`the GM was not welcomed: ${welcome.code}`);
  return { request, close: () => ws.close() };
}

async function until(check, what, ms = 10000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const value = check();
    if (value) return value;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what} (notices: ${JSON.stringify(Standin.log.notifications.map((n) => n.text))})`);
}

let client = null;
/** The player's page, loaded (again) in the browser whose localStorage is `storage`
 * with join token `token`: welcomed. */
async function playerPage(storage, token = TOKENS.player) {
  client?.stop();
  await world({ users: USERS, user: USERS[1]._id, generation: 13, settings: { "rollbridge.serverUrl": URL, "rollbridge.token": token } });
  globalThis.WebSocket = WebSocket;
  globalThis.localStorage = storage;
  await registerModuleSettings();
  Standin.queryClient = async () => ({ noted: true });
  client = new FoundryClient();
  client.start();
  await until(() => client.connection?.welcome, "the player's welcome");
  return client;
}

/** The requests waiting for approval, as the GM's state lists them. */
async function waiting(gm) {
  const reply = await gm.request({ type: "state" });
  return reply.table.pending.map((entry) => ({ pending: entry.pending, id: entry.id }));
}

async function main() {
  const gm = await gmSocket();
  const result = {};
  try {
    await gm.request({ type: "settings", settings: { approval: true } });
    const storage = new MemoryStorage();

    // 1. approved, then the page reloaded at once
    await playerPage(storage);
    const first = await client.roll("2d6", { rollMode: "gmroll", speaker: {} });
    result.firstHeld = first.status;
    client.stop(); // the page closed before the GM answers (a reload)
    const before = Standin.log.messages.length;
    await gm.request({ type: "approve", request: first.pending });
    await playerPage(storage);
    await until(() => Standin.log.messages.length > before, "the roller's card after the reload");
    await settle(client);
    const card = Standin.log.messages.at(-1);
    result.reloaded = {
      cards: Standin.log.messages.length, whisper: card.whisper, rollMode: card.flags.rollbridge.rollMode, stored: storage.length,
    };

    // 2. the connection gone (an outage: the same page), approved, 200 events, the
    // connection back, then a GM's secret roll (a placeholder here): past the window
    const second = await client.roll("3d6", { rollMode: "gmroll", speaker: {} });
    result.secondHeld = second.status;
    client.stop();
    await gm.request({ type: "approve", request: second.pending });
    for (let i = 0; i < 200; i++) await gm.request({ type: "roll", formula: "1d6" });
    Standin.log.notifications.length = 0;
    const posted = Standin.log.messages.length;
    client.start();
    await until(() => client.connection?.welcome, "the player's welcome again");
    await gm.request({ type: "roll", formula: "1d6", secret: true });
    await until(() => Standin.log.notifications.some((n) => n.level === "warn"), "the player told");
    await settle(client);
    result.pastWindow = {
      notices: Standin.log.notifications.filter((n) => n.level === "warn").map((n) => n.text),
      posted: Standin.log.messages.length - posted,
      stored: storage.length,
      waiting: await waiting(gm),
    };
    // what the module no longer does (the control): the same request, the same id, asked
    // again past the window — the server no longer remembers it and holds it anew
    const again = await client.connection.request(rollMessage({ id: second.id, formula: "3d6", rollMode: "gmroll" }));
    result.control = { status: again.status, samePending: again.pending === second.pending, waiting: (await waiting(gm)).length };

    // 4. the gap a client alone could not close: held, and approved while the page is
    // up; its placeholder makes the client ask again, and the table takes 200 events
    // just before the request goes out (the GM's rolls, run by a hook on the client's
    // send). Before the fix the module's `state` probe was answered (the log still
    // reached back) and the request then sent as it was: the server, no longer
    // remembering the id, held it a second time. Only to repeat, it is refused.
    const fourth = await client.roll("5d6", { rollMode: "gmroll", speaker: {} });
    result.fourthHeld = fourth.status;
    await settle(client);
    await until(() => client.asking === null, "the client's round of asking done");
    const connection = client.connection;
    const send = connection.request.bind(connection);
    let moved = false;
    connection.request = async (message, ...rest) => {
      if (message?.id === fourth.id && !moved) {
        moved = true; // the table moves on past the reply window meanwhile
        for (let i = 0; i < 200; i++) await gm.request({ type: "roll", formula: "1d6" });
      }
      return send(message, ...rest);
    };
    Standin.log.notifications.length = 0;
    const posted4 = Standin.log.messages.length;
    await gm.request({ type: "approve", request: fourth.pending });
    await until(() => moved, "the client asking again");
    await until(() => client.asking === null, "the client's round of asking done", 60000);
    await settle(client);
    connection.request = send;
    result.gap = {
      notices: Standin.log.notifications.filter((n) => n.level === "warn").map((n) => n.text),
      posted: Standin.log.messages.length - posted4,
      stored: storage.length,
      waiting: (await waiting(gm)).filter((entry) => entry.id === fourth.id),
    };

    // 3. held, the page closed, loaded again with the player's new token
    const third = await client.roll("4d6", { rollMode: "gmroll", speaker: {} });
    result.thirdHeld = third.status;
    const before3 = (await waiting(gm)).length;
    Standin.log.notifications.length = 0;
    await playerPage(storage, TOKENS.replaced);
    await until(() => Standin.log.notifications.some((n) => n.level === "warn"), "the player told");
    await settle(client);
    const after3 = await waiting(gm);
    result.otherToken = {
      notices: Standin.log.notifications.filter((n) => n.level === "warn").map((n) => n.text),
      stored: storage.length,
      added: after3.length - before3,
      listed: after3.filter((entry) => entry.id === third.id).length,
    };
    // the control: the same id with the new token is a new request at the server
    const anew = await client.connection.request(rollMessage({ id: third.id, formula: "4d6", rollMode: "gmroll" }));
    result.otherTokenControl = { status: anew.status, samePending: anew.pending === third.pending, added: (await waiting(gm)).length - before3 };
  } finally {
    client?.stop();
    gm.close();
    Standin.uninstall();
  }
  console.log(`RESULT ${JSON.stringify(result)}`);
}

main().then(() => process.exit(0), (error) => {
  console.error(error?.stack ?? error);
  process.exit(1);
});
