// The writing GM's connection status (client.status().gm, what a macro reads of
// whether the GM's client is connected) is told to every client on the module's
// socket. Any user can emit on that socket, and the module took every "status"
// message as the GM's: a player could make every other client read "connected"
// while the GM's client was down, or any text of theirs (a red-team pass). Only a
// status a GM's client sent (Foundry's server names the sender: relay.mjs
// socketSender), and one of the connection's statuses, is taken now.

import assert from "node:assert/strict";
import { after, test } from "node:test";

import { FoundryClient } from "../../../adapters/foundry/module/scripts/foundry/client.mjs";
import { registerModuleSettings, Standin, world } from "./standin.mjs";

const USERS = [
  { _id: "standinGM000001", name: "Gamemaster", isGM: true },
  { _id: "standinAlice001", name: "Alice" },
  { _id: "standinMallory1", name: "Mallory" },
];
const [GM, , MALLORY] = USERS.map((u) => u._id);

after(() => Standin.uninstall());

test("only a GM's client sets the GM's status, and only to a connection status", async () => {
  await world({ users: USERS, user: "player", generation: 12 });
  await registerModuleSettings();
  const client = new FoundryClient();
  assert.equal(client.status().gm, null);
  client.onSocket({ type: "status", status: "waiting", table: "t1" }, GM);
  assert.equal(client.status().gm, "waiting", "the GM's own word");
  client.onSocket({ type: "status", status: "connected", table: "t1" }, MALLORY);
  assert.equal(client.status().gm, "waiting", "a player's forged status is ignored");
  client.onSocket({ type: "status", status: "connected", table: "t1" }, null);
  assert.equal(client.status().gm, "waiting", "a message Foundry names no sender of is ignored");
  client.onSocket({ type: "status", status: "<img src=x onerror=alert(1)>", table: "t1" }, GM);
  client.onSocket({ type: "status", status: { toString: () => "connected" }, table: "t1" }, GM);
  assert.equal(client.status().gm, "waiting", "no status but the connection's");
  client.onSocket({ type: "status", status: "connected", table: "t1" }, GM);
  assert.equal(client.status().gm, "connected");
});
