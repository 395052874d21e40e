// What the live walks (gamenight.mjs, restorenight.mjs) share: the rollbridge command
// on a night's file, a free port, a real `rollbridge serve` started and stopped, a
// player as a plain protocol client of the Foundry dialect (the `ws` package's
// WebSocket), its events kept; the world's cave of goblins and runners on the Foundry
// stand-in, and the active GM's page (the module's FoundryClient) with its attack; a
// wilddie cast and a SWADE page (wildnight.mjs, wildapproval.mjs); the approval walks'
// readings of the chat (approvalnight.mjs, wildapproval.mjs).

import { spawn, spawnSync } from "node:child_process";
import { createServer } from "node:net";
import process from "node:process";

import WebSocket from "ws";

import { localizeApprovalTitle } from "../../../adapters/foundry/module/scripts/foundry/approvaltitle.mjs";
import { FoundryClient } from "../../../adapters/foundry/module/scripts/foundry/client.mjs";
import { registerCombat } from "../../../adapters/foundry/module/scripts/foundry/combat.mjs";
import { registerModuleSettings, settle, Standin, world } from "../js/standin.mjs";

export const PYTHON = process.env.ROLLBRIDGE_PYTHON ?? "python3";

/** `rollbridge <args> --db <db>`, its output; throws with its stderr when it fails. */
export function rollbridge(db, ...args) {
  const run = spawnSync(PYTHON, ["-m", "rollbridge", ...args, "--db", db], { encoding: "utf8" });
  if (run.status !== 0) throw new Error(`rollbridge ${args[0]}: ${run.stderr}`);
  return run.stdout;
}

/** A new table of `ruleset` in `db` and a player's token for each `[userId, name]` of
 * `players`: {table, tokens: {gm, <name>…}}. */
export function newTable(db, ruleset, name, players) {
  const created = JSON.parse(rollbridge(db, "table", "create", "--ruleset", ruleset, "--name", name, "--json"));
  const tokens = { gm: created.tokens.gm };
  for (const [, player] of players) {
    tokens[player] = JSON.parse(rollbridge(db, "table", "tokens", created.table, "--new", "player", "--name", player, "--json")).new.token;
  }
  return { table: created.table, tokens };
}

export async function freePort() {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** `check()`'s first truthy value, asked every 10 ms for at most `ms`. */
export async function until(check, what, ms = 20000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const value = await check();
    if (value) return value;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** `rollbridge serve` of `db` on `port`, up when its port answers. */
export async function serve(db, port) {
  const server = spawn(PYTHON, ["-m", "rollbridge", "serve", "--db", db, "--port", String(port), "--host", "127.0.0.1",
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

export async function stopServer(server) {
  if (server.exitCode !== null) return;
  server.kill("SIGTERM");
  await new Promise((resolve) => server.once("exit", resolve));
}

/** Request ids given so far in this process: a player's two windows (two connections
 * of one token) must not send the same id, which the server scopes by token. */
let requestIds = 0;

/** A player: a protocol client of the Foundry dialect, its events kept. */
export async function player(url, token, table, resume = null) {
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
  const request = (message) => new Promise((resolve) => {
    const id = `p-${++requestIds}`;
    waiting.set(id, resolve);
    ws.send(JSON.stringify({ ...message, id }));
  });
  return { ws, events, welcome: () => welcome, request, close: () => ws.close() };
}

/** An sr2 goblin's sheet, and a runner's with a Hackler. */
export const GOBLIN = { body: 3, combat_pool: 2, armor: { ballistic: 3, impact: 1 } };
export const RUNNER = { body: 5, combat_pool: 6, armor: { ballistic: 3, impact: 1 },
  weapons: [{ name: "Hackler", code: "7M", skill: 6, recoil_compensation: 1 }] };
/** Dice that hit hard: many successes for the attacker, few for the goblin. */
const HIT = [6, 6, 6, 6, 6, 6, 5, 5, 5, 1, 1, 1, 1, 1];
const MONITORS = () => ({ track: { physical: { value: 0 }, stun: { value: 0 } } });

/** A night's table of `ruleset` made in the file `db`, and a real server on it at a
 * free port: {table, tokens, port, server, url} (url: the table's WebSocket address). */
export async function nightServer(db, ruleset, name, players) {
  const { table, tokens } = newTable(db, ruleset, name, players);
  const port = await freePort();
  const server = await serve(db, port);
  return { table, tokens, port, server, url: `ws://127.0.0.1:${port}/tables/${table}` };
}

/** `server` stopped and started again on the same file `db` and `port` (no restore:
 * the same epoch), and the GM's page `gm` welcomed again: the new server. */
export async function restartedServer(server, db, port, gm) {
  await stopServer(server);
  const started = await serve(db, port);
  const before = gm.connection.welcome;
  gm.nudge();
  await until(() => gm.connection?.welcome && gm.connection.welcome !== before, "the GM back after the restart", 60000);
  await settle(gm);
  return started;
}

/** The approval walks' users: the active GM, and two players as `[userId, name]`. */
export const NIGHT_GM = "standinGM000001";
export const NIGHT_PLAYERS = [["standinPlr00001", "alice"], ["standinPlr00002", "bob"]];

/** The approval walks' world users: the active GM, a second GM named `second` logged
 * in (its id sorts after: not the active GM, its page does not connect), the players. */
export function approvalUsers(second) {
  return [
    { _id: NIGHT_GM, name: "Gamemaster", role: 4 }, { _id: "zstandinGM00002", name: second, role: 4, active: true },
    ...NIGHT_PLAYERS.map(([id, name]) => ({ _id: id, name })),
  ];
}

/** A wilddie hero's sheet (a player's character) and a thug's (an NPC). */
export const HERO = { kind: "pc", attributes: { strength: "d6", vigor: "d8", coordination: "d8", reaction: "d8", intuition: "d6", character: "d6" },
  skills: { fighting: "d8", shooting: "d8", notice: "d6", stealth: "d6" }, armor: 1 };
export const THUG = { kind: "npc", attributes: { strength: "d8", vigor: "d6", coordination: "d6", reaction: "d6", intuition: "d4", character: "d6" },
  skills: { fighting: "d6", shooting: "d6", notice: "d4", intimidation: "d6" } };
/** A SWADE actor's system data, unhurt. */
export const SWADE = () => ({ wounds: { value: 0, max: 3 }, fatigue: { value: 0 }, status: { isShaken: false } });

/**
 * A walk's world on the stand-in (v13, `system`), its page `user`'s, the module's
 * settings naming the server at `url` with `token`, real WebSockets, ready.
 * @param {{users: any[], user: string, url: string, token: string, system: string}} page
 */
export async function pageWorld({ users, user, url, token, system }) {
  await world({ generation: 13, users, user, system, settings: { "rollbridge.serverUrl": url, "rollbridge.token": token } });
  globalThis.WebSocket = WebSocket;
  globalThis.CSS ??= { escape: (s) => s }; // the browser's, which Node lacks
  await registerModuleSettings();
  game.ready = true;
}

/** The cards of each (epoch, seq, kind, hook, requester, pending) more than once. */
export function duplicateCards() {
  const seen = new Map();
  for (const message of game.messages.contents) {
    const f = message.flags?.rollbridge;
    if (!f?.kind) continue;
    const key = `${f.epoch}:${f.seq}:${f.kind}:${f.hook ?? ""}:${f.requester ?? ""}:${f.pending ?? ""}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  return [...seen].filter(([, n]) => n > 1).map(([k]) => k);
}

/** Every approval card of the chat titled as this page's render hook words it
 * (foundry/approvaltitle.mjs): those posted in an earlier language too. */
export function renderedTitles() {
  return game.messages.contents.filter((m) => m.flags?.rollbridge?.kind === "approval.requested").map((message) => {
    const title = { textContent: "(as stored)", closest: () => ({ dataset: {} }) };
    const element = { querySelector: (s) => (s === ".rollbridge-card.rb-approval .rb-title" ? title : null) };
    localizeApprovalTitle(message, [element]); // as v12's render hook hands it
    return title.textContent;
  });
}

/** The chat message of the approval card of `pending`, or undefined. */
export function approvalCard(pending) {
  return game.messages.contents.find((m) => m.flags?.rollbridge?.kind === "approval.requested" && m.flags.rollbridge.pending === pending);
}

/** `who`'s request `message` held for approval: its pending id, once the GM's page
 * `gm` has its card. */
export async function heldFor(gm, who, message) {
  const reply = await who.request(message);
  if (reply.status !== "pending") throw new Error(`not held: ${JSON.stringify(reply)}`);
  await until(() => approvalCard(reply.pending), `the approval card of ${reply.pending}`);
  await settle(gm);
  return reply.pending;
}

/**
 * The world's page set up for a walk (v13, Shadowrun 5e: `auto` maps onto its
 * monitors) and its cave: `linked` goblins as world actors with linked tokens, then
 * `unlinked` tokens of one base goblin, and a runner per `[userId, name]` of
 * `players`, owned by that user. Returns {scene, base, goblins, runners}.
 * @param {{users: any[], user: string, url: string, token: string, linked: number, unlinked: number, players: [string, string][]}} night
 */
export async function cave({ users, user, url, token, linked, unlinked, players }) {
  await pageWorld({ users, user, url, token, system: "shadowrun5e" });
  const scene = Standin.addScene({ _id: "sceneCave0000001", name: "Cave" });
  const runners = players.map(([id, name], i) => Standin.addActor({
    _id: `fvttRunner00000${i}`, name: `Runner ${name}`, type: "character", system: MONITORS(), ownership: { [id]: 3 } }));
  const goblins = [];
  for (let i = 0; i < linked; i++) {
    const actor = Standin.addActor({ _id: `fvttGoblinL${String(i).padStart(5, "0")}`, name: `Goblin ${i}`, type: "npc",
      system: MONITORS(), ownership: { default: 1 } });
    Standin.addToken(scene, { _id: `tokGoblinL${String(i).padStart(6, "0")}`, name: `Goblin ${i}`, actorId: actor.id, actorLink: true });
    goblins.push(actor);
  }
  const base = Standin.addActor({ _id: "fvttGoblinBase01", name: "Goblin", type: "npc", system: MONITORS(), ownership: { default: 1 } });
  for (let i = 0; i < unlinked; i++) {
    const token = Standin.addToken(scene, { _id: `tokGoblinU${String(i).padStart(6, "0")}`, name: `Goblin U${i}`, actorId: base.id, actorLink: false });
    goblins.push(token.actor);
  }
  return { scene, base, goblins, runners };
}

/** The active GM's page: a FoundryClient, its combat tracker hooked; `open()` (again:
 * a reload) waits for its welcome. */
export class GmPage {
  client = null;
  #sync = null;

  async open() {
    this.close();
    this.client = new FoundryClient();
    this.client.start();
    this.#sync = registerCombat(this.client, { roundQuiet: 0 });
    await until(() => this.client.connection?.welcome, "the GM's welcome");
    await settle(this.client);
    return this.client;
  }

  close() {
    this.#sync?.unregister();
    this.#sync = null;
    this.client?.stop();
  }

  /** `runner` attacks `goblin` with its Hackler, the dice supplied: as many of a
   * hard-hitting pattern as the roll uses (a request refused for their number
   * changes nothing). */
  async attack(runner, goblin) {
    for (let n = 6; n < 60; n++) {
      try {
        return await this.client.resolve("attack", {
          actor: runner.id, targets: [goblin.isToken ? goblin.token.uuid : goblin.id],
          params: { weapon: "Hackler", rounds: 3, range: "short" }, dice: Array.from({ length: n }, (_, i) => HIT[i % HIT.length]),
        });
      } catch (error) {
        if (!/dice/.test(String(error?.message))) throw error;
      }
    }
    throw new Error("no number of dice fitted");
  }
}

/** A walk's end, whether it went through or not: the GM's page closed, the players'
 * `clients` closed, the server stopped, the stand-in taken down. */
export async function endWalk({ page, clients, server }) {
  page.close();
  for (const client of clients) client?.close();
  if (server) await stopServer(server);
  Standin.uninstall();
}

/** Run a walk's `main`: print its result as one line `RESULT {json}` and exit 0, or
 * print its error and exit 1. */
export function runWalk(main) {
  main().then((result) => {
    console.log(`RESULT ${JSON.stringify(result)}`);
    process.exit(0);
  }, (error) => {
    console.error(error?.stack ?? error);
    process.exit(1);
  });
}
