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

import { spawnSync } from "node:child_process";
import path from "node:path";
import process from "node:process";

import { panelHtml } from "../js/panels.mjs";
import { settle, Standin } from "../js/standin.mjs";
import { cave, endWalk, freePort, GmPage, GOBLIN, newTable, player, rollbridge, RUNNER, serve as serveDb, runWalk, stopServer, until } from "./night.mjs";

const DIR = process.env.RB_DIR;
const DB = path.join(DIR, "night.db");
const GM = "standinGM000001";
const GM2 = "BstandinGM00002"; // sorts before GM by code unit: the active GM while it is on
const PLAYERS = [["standinPlr00001", "alice"], ["standinPlr00002", "bob"], ["standinPlr00003", "cara"]];
const USERS = [
  { _id: GM, name: "Gamemaster", role: 4 }, { _id: GM2, name: "Second GM", role: 4, active: false },
  ...PLAYERS.map(([id, name]) => ({ _id: id, name })),
];

const cli = (...args) => rollbridge(DB, ...args);
const serve = (port) => serveDb(DB, port);

/** The GM's page: a FoundryClient as the active GM, its combat tracker hooked. */
const page = new GmPage();
let gm = null;
async function gmPage() {
  gm = await page.open();
  return gm;
}

/** Every goblin's Foundry actor (world actors and unlinked tokens' synthetic ones). */
let goblins = [];

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
  const { table, tokens } = newTable(DB, "sr2", "Night", PLAYERS);
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
    const made = await cave({ users: USERS, user: GM, url, token: tokens.gm, linked: 10, unlinked: 20, players: PLAYERS });
    const { scene, base, runners } = made;
    goblins = made.goblins;
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
    const attack = (runner, goblin) => page.attack(runner, goblin);
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
    await endWalk({ page, clients: Object.values(players), server });
  }
  return result;
}

runWalk(main);
