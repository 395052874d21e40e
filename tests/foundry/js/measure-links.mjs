// A measurement, not a test (docs/foundry.md, "Actor ids"): the connections and frames
// the active GM's client spends mapping N NPCs by hand one after another (linkActor),
// each after the previous one's players' view was written — a GM dragging NPCs onto
// the table in play. Every reading connection is answered as a real server's Foundry
// dialect answers a GM's hello: a snapshot welcome with the GM's view and the players'
// copy of the whole table. Prints one line of JSON.
//
//   node --import ./tests/foundry/js/release-layout.mjs tests/foundry/js/measure-links.mjs [N]

import process from "node:process";

import { FoundryClient } from "../../../adapters/foundry/module/scripts/foundry/client.mjs";
import { FakeWebSocket } from "./fakes.mjs";
import { registerModuleSettings, settle, Standin, world } from "./standin.mjs";

const N = Number(process.argv[2] ?? 30);
const GM = "standinGM000001";
const common = (limited) => ({ status: "impaired", tracks: limited ? [] : [{ key: "physical", label: "Physical", value: 7, max: 10 }],
  conditions: [limited ? "Physical: Serious" : "Physical: Serious (7 boxes)"], modifier: 3, modifier_note: "+3 TN" });
const view = (id, limited) => ({ id, name: id, controllers: [], common: common(limited), ...(limited ? { limited: true } : {}),
  foundry: { flags: { rollbridge: { actorId: id, table: "t1", seq: 4, name: id, limited, common: common(limited) } }, systems: {} } });
const ids = Array.from({ length: N }, (_, i) => `npc${i + 1}`);

await world({ generation: 13, users: [{ _id: GM, name: "Gamemaster", isGM: true }], user: GM });
await registerModuleSettings();
const npcs = ids.map((id, i) => Standin.addActor({ _id: `fvttNpc${String(i).padStart(9, "0")}`, name: id, type: "npc", flags: { rollbridge: {} } }));
const client = new FoundryClient();
client.start();
const main = FakeWebSocket.last();
main.open();
const hello = main.messages().find((m) => m.type === "hello");
main.receive({ type: "welcome", id: hello.id, protocol: 1, role: "gm", epoch: 1, seq: 4, locale: "en",
  table: { id: "t1", actors: ids.map((id) => view(id, false)) }, resume: { recovered: true, missed: 0 } });
await settle(client);
const before = FakeWebSocket.instances.length;
let received = 0;
let bytes = 0;
for (const [i, id] of ids.entries()) {
  await client.linkActor(npcs[i], id);
  await settle(client);
  const reader = FakeWebSocket.last();
  if (reader !== main && !reader.opened) {
    reader.opened = true;
    reader.open();
    const asked = reader.messages().find((m) => m.type === "hello");
    const welcome = { type: "welcome", id: asked.id, protocol: 1, role: "gm", epoch: 1, seq: 4, locale: "en", resume: { recovered: false },
      table: { id: "t1", actors: ids.map((other) => view(other, false)) }, players: { actors: ids.map((other) => view(other, true)) } };
    received += 1;
    bytes += JSON.stringify(welcome).length;
    reader.receive(welcome);
    await settle(client);
  }
}
const readers = FakeWebSocket.instances.slice(before);
const sent = readers.reduce((n, ws) => n + ws.messages().length, 0);
const withheld = npcs.filter((npc) => npc.flags.rollbridge.withheld === true).length;
console.log(JSON.stringify({ npcs: N, readingConnections: readers.length, framesSent: sent, framesReceived: received, welcomeBytes: bytes, withheld }));
client.stop();
Standin.uninstall();
