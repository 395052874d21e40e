// A game night as a GM runs it, against a real `rollbridge serve` over a real SQLite
// file (started, backed up, restored and started again here): the module's
// FoundryClient on the Foundry stand-in (v13) is the active GM's page, three players
// are plain protocol clients of the Foundry dialect (one stand-in page per process),
// their WebSockets the `ws` package's. The world: 30 goblins — 10 world actors with
// linked tokens, 20 unlinked tokens of one base actor — and three player characters,
// on an sr2 table, the world's system Shadowrun 5e (`auto` maps onto it).
//
// The walk: the cast put on the table; a combat with an encounter (Foundry's
// tracker); attacks; sr2's show_npc_details turned on and off mid-fight; a player's
// reload; the GM's reload; a second GM joining (the writer changes hands) and
// leaving; an undo and a redo; the table backed up, changed, restored from the
// backup (a new epoch) and the GM's page following it. After each step it records
// what a GM or a player would meet: the NPCs' flags and system values every client
// holds, the chat cards (each event's once), the notices.
//
// Environment: ROLLBRIDGE_PYTHON (the Python with rollbridge), RB_DIR (a scratch
// directory). Prints one line `RESULT {json}`; exits non-zero on any failure.

import { spawn, spawnSync } from "node:child_process";
import { createServer } from "node:net";
import path from "node:path";
import process from "node:process";

import WebSocket from "ws";

import { FoundryClient } from "../../../adapters/foundry/module/scripts/foundry/client.mjs";
import { registerCombat } from "../../../adapters/foundry/module/scripts/foundry/combat.mjs";
import { panelHtml } from "../js/panels.mjs";
import { registerModuleSettings, settle, Standin, world } from "../js/standin.mjs";

const PYTHON = process.env.ROLLBRIDGE_PYTHON ?? "python3";
const DIR = process.env.RB_DIR;
const DB = path.join(DIR, "night.db");
const GM = "standinGM000001";
const GM2 = "BstandinGM00002"; // sorts before GM by code unit: the active GM while it is on
const PLAYERS = [["standinPlr00001", "alice"], ["standinPlr00002", "bob"], ["standinPlr00003", "cara"]];
const USERS = [
  { _id: GM, name: "Gamemaster", role: 4 }, { _id: GM2, name: "Second GM", role: 4, active: false },
  ...PLAYERS.map(([id, name]) => ({ _id: id, name })),
];
const GOBLIN = { body: 3, combat_pool: 2, armor: { ballistic: 3, impact: 1 } };
const RUNNER = { body: 5, combat_pool: 6, armor: { ballistic: 3, impact: 1 },
  weapons: [{ name: "Hackler", code: "7M", skill: 6, recoil_compensation: 1 }] };
/** Dice that hit hard: many successes for the attacker, few for the goblin. */
const HIT = [6, 6, 6, 6, 6, 6, 5, 5, 5, 1, 1, 1, 1, 1];

const cli = (...args) => {
  const run = spawnSync(PYTHON, ["-m", "rollbridge", ...args, "--db", DB], { encoding: "utf8" });
  if (run.status !== 0) throw new Error(`rollbridge ${args[0]}: ${run.stderr}`);
  return run.stdout;
};

async function freePort() {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function until(check, what, ms = 20000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const value = await check();
    if (value) return value;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** `rollbridge serve` on `port`, up when its port answers. */
async function serve(port) {
  const server = spawn(PYTHON, ["-m", "rollbridge", "serve", "--db", DB, "--port", String(port), "--host", "127.0.0.1",
    "--no-demo", "--log-level", "WARNING"], { stdio: ["ignore", "ignore", "pipe"] });
  let log = "";
  server.stderr.on("data", (d) => { log += d; });
  server.log = () => log;
  await until(() => new Promise((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/`);
    ws.on("error", () => resolve(false));
    ws.on("open", () => { ws.close(); resolve(true); });
    ws.on("unexpected-response", () => resolve(true));
  }), "the server's port");
  return server;
}

async function stopServer(server) {
  server.kill("SIGTERM");
  await new Promise((resolve) => server.once("exit", resolve));
}

/** A player: a protocol client of the Foundry dialect, its events kept. */
async function player(url, token, table, resume = null) {
  const ws = new WebSocket(url);
  const events = [];
  const waiting = new Map();
  let welcome = null;
  ws.on("message", (data) => {
    const frame = JSON.parse(String(data));
    if (frame.type === "event") events.push(frame);
    else if (frame.type === "welcome") welcome = frame;
    waiting.get(frame.id)?.(frame);
    waiting.delete(frame.id);
  });
  await new Promise((resolve, reject) => { ws.once("open", resolve); ws.once("error", reject); });
  ws.send(JSON.stringify({ type: "hello", id: "hello", table, token, dialect: "foundry", ...(resume ? { resume } : {}) }));
  await until(() => welcome, "a player's welcome");
  let n = 0;
  const request = (message) => new Promise((resolve) => {
    const id = `p-${++n}`;
    waiting.set(id, resolve);
    ws.send(JSON.stringify({ ...message, id }));
  });
  return { ws, events, welcome: () => welcome, request, close: () => ws.close() };
}

/** The GM's page: a FoundryClient as the active GM, its combat tracker hooked. */
let gm = null;
let sync = null;
async function gmPage() {
  sync?.unregister();
  gm?.stop();
  gm = new FoundryClient();
  gm.start();
  sync = registerCombat(gm, { roundQuiet: 0 });
  await until(() => gm.connection?.welcome, "the GM's welcome");
  await settle(gm);
  return gm;
}

/** Every goblin's Foundry actor (world actors and unlinked tokens' synthetic ones). */
const goblins = [];

/** What every client holds of the NPCs: any GM's number in flags, system values, withheld marks. */
function npcData() {
  const out = { withheld: 0, tracksInFlags: 0, systemPhysical: [] };
  for (const actor of goblins) {
    const flags = actor.flags?.rollbridge ?? {};
    if (flags.withheld) out.withheld += 1;
    if ((flags.common?.tracks ?? []).length) out.tracksInFlags += 1;
    out.systemPhysical.push(actor.system?.track?.physical?.value ?? 0);
  }
  return out;
}

/** The chat cards of each (epoch, seq, kind, hook) more than once. */
function duplicateCards() {
  const seen = new Map();
  for (const message of game.messages.contents) {
    const f = message.flags?.rollbridge;
    if (!f?.seq || !f.kind || f.kind === "approval") continue;
    const key = `${f.epoch}:${f.seq}:${f.kind}:${f.hook ?? ""}:${f.requester ?? ""}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  return [...seen].filter(([, n]) => n > 1).map(([k]) => k);
}

async function main() {
  const created = JSON.parse(cli("table", "create", "--ruleset", "sr2", "--name", "Night", "--json"));
  const table = created.table;
  const tokens = { gm: created.tokens.gm };
  for (const [, name] of PLAYERS) {
    tokens[name] = JSON.parse(cli("table", "tokens", table, "--new", "player", "--name", name, "--json")).new.token;
  }
  let port = await freePort();
  let server = await serve(port);
  let url = `ws://127.0.0.1:${port}/tables/${table}`;
  const result = { steps: {} };
  const note = (step, extra = {}) => {
    result.steps[step] = { ...npcData(), duplicates: duplicateCards(),
      notices: Standin.log.notifications.map((n) => `${n.level}: ${n.text}`), ...extra };
    Standin.log.notifications.length = 0;
  };
  const players = {};
  try {
    await world({ generation: 13, users: USERS, user: GM, system: "shadowrun5e",
      settings: { "rollbridge.serverUrl": url, "rollbridge.token": tokens.gm } });
    globalThis.WebSocket = WebSocket;
    globalThis.CSS ??= { escape: (s) => s }; // the browser's, which Node lacks
    await registerModuleSettings();
    game.ready = true;
    const scene = Standin.addScene({ _id: "sceneCave0000001", name: "Cave" });
    const runners = PLAYERS.map(([id, name], i) => Standin.addActor({
      _id: `fvttRunner00000${i}`, name: `Runner ${name}`, type: "character", system: { track: { physical: { value: 0 }, stun: { value: 0 } } },
      ownership: { [id]: 3 } }));
    for (let i = 0; i < 10; i++) {
      const actor = Standin.addActor({ _id: `fvttGoblinL${String(i).padStart(5, "0")}`, name: `Goblin ${i}`, type: "npc",
        system: { track: { physical: { value: 0 }, stun: { value: 0 } } }, ownership: { default: 1 } });
      Standin.addToken(scene, { _id: `tokGoblinL${String(i).padStart(6, "0")}`, name: `Goblin ${i}`, actorId: actor.id, actorLink: true });
      goblins.push(actor);
    }
    const base = Standin.addActor({ _id: "fvttGoblinBase01", name: "Goblin", type: "npc",
      system: { track: { physical: { value: 0 }, stun: { value: 0 } } }, ownership: { default: 1 } });
    for (let i = 0; i < 20; i++) {
      const token = Standin.addToken(scene, { _id: `tokGoblinU${String(i).padStart(6, "0")}`, name: `Goblin U${i}`, actorId: base.id, actorLink: false });
      goblins.push(token.actor);
    }
    await gmPage();
    for (const [i, [, name]] of PLAYERS.entries()) await gm.addActor(runners[i], RUNNER, { controllers: [name] });
    for (const goblin of goblins) await gm.addActor(goblin, GOBLIN);
    await settle(gm);
    for (const [, name] of PLAYERS) players[name] = await player(url, tokens[name], table);
    note("cast");

    // combat: the tracker starts the table's encounter; the runners attack
    const fight = await Combat.create();
    await fight.createEmbeddedDocuments("Combatant", [
      ...runners.map((r, i) => ({ actorId: r.id, initiative: 20 - i })),
      ...goblins.slice(8, 14).map((g, i) => ({ actorId: g.isToken ? g.token.actor?.id ?? base.id : g.id,
        tokenId: g.isToken ? g.token.id : null, sceneId: scene.id, initiative: 10 - i })),
    ]);
    await fight.startCombat();
    await until(() => gm.encounter, "the encounter");
    // the attack's dice supplied: as many of HIT's pattern as the roll uses (a request
    // refused for their number changes nothing)
    const attack = async (runner, goblin) => {
      for (let n = 6; n < 60; n++) {
        try {
          return await gm.resolve("attack", {
            actor: runner.id, targets: [goblin.isToken ? goblin.token.uuid : goblin.id],
            params: { weapon: "Hackler", rounds: 3, range: "short" }, dice: Array.from({ length: n }, (_, i) => HIT[i % HIT.length]),
          });
        } catch (error) {
          if (!/dice/.test(String(error?.message))) throw error;
        }
      }
      throw new Error("no number of dice fitted");
    };
    await attack(runners[0], goblins[9]);
    await attack(runners[1], goblins[12]);
    await fight.nextTurn();
    await settle(gm);
    note("combat", { encounter: gm.encounter?.round ?? null });

    // settings toggled mid-fight
    await gm.request({ type: "settings", settings: { ruleset: { show_npc_details: true } } });
    await settle(gm);
    note("details on");
    await gm.request({ type: "settings", settings: { ruleset: { show_npc_details: false } } });
    await settle(gm);
    note("details off");

    // a player's reload: resumes from its last event
    const bob = players.bob;
    const last = bob.events.at(-1);
    bob.close();
    players.bob = await player(url, tokens.bob, table, { epoch: last.epoch, seq: last.seq });
    note("player reload", { resume: players.bob.welcome().resume ?? null });

    // the GM's reload: the page again, the world as it was
    await attack(runners[2], goblins[13]);
    const cards = game.messages.contents.length;
    await gmPage();
    await settle(gm);
    note("gm reload", { cardsAdded: game.messages.contents.length - cards, resume: gm.connection.welcome.resume ?? null });

    // a second GM joins (the writer's role moves to it: this page stops) and leaves
    Standin.setUserActive(GM2, true);
    gm.reconsider();
    await settle(gm);
    const secondNote = panelHtml(goblins[9], gm.views);
    Standin.setUserActive(GM2, false);
    gm.reconsider();
    await until(() => gm.connection?.welcome, "the GM's welcome after the second GM left");
    await settle(gm);
    note("second gm", { panel: secondNote });

    // undo and redo of the last attack
    await gm.request({ type: "undo" });
    await settle(gm);
    note("undo");
    await gm.request({ type: "redo" });
    await settle(gm);
    note("redo");

    // the table backed up, changed, then restored from the backup (a new epoch)
    const backup = path.join(DIR, "night-backup.db");
    cli("backup", backup);
    await attack(runners[0], goblins[10]);
    await settle(gm);
    await stopServer(server);
    spawnSync("cp", [backup, DB]);
    spawnSync("rm", ["-f", `${DB}-wal`, `${DB}-shm`]);
    server = await serve(port);
    const before = gm.connection.welcome;
    gm.nudge();
    await until(() => gm.connection?.welcome && gm.connection.welcome !== before, "the GM back after the restore", 60000);
    await settle(gm);
    note("restored", { goblin10: goblins[10].flags?.rollbridge?.common?.status ?? null });
    // the fight goes on in the new epoch: the same attack again gets its own card
    const posted = game.messages.contents.length;
    await attack(runners[0], goblins[10]);
    await settle(gm);
    note("after restore", { cardsAdded: game.messages.contents.length - posted,
      goblin10: goblins[10].flags?.rollbridge?.common?.status ?? null });
  } finally {
    sync?.unregister();
    gm?.stop();
    for (const p of Object.values(players)) p.close();
    await stopServer(server);
    Standin.uninstall();
  }
  console.log(`RESULT ${JSON.stringify(result)}`);
}

main().then(() => process.exit(0), (error) => {
  console.error(error?.stack ?? error);
  process.exit(1);
});
