// A GM's sr2 night through a restore, against a real `rollbridge serve` over a real
// SQLite file: the module's FoundryClient on the Foundry stand-in (v13) is the active
// GM's page; a player is a plain protocol client of the Foundry dialect. The world:
// four goblins (two world actors with linked tokens, two unlinked tokens of one base
// actor) and a runner.
//
// The walk: a new combat turn (SR-14) and a combat from Foundry's tracker, whose round
// start refills the pools; attacks; the table backed up; an attack after it; the GM's
// page closed (the GM away); the backup restored (the server stopped, the file put
// back, started again: a new epoch); the player reconnecting and rolling while no
// GM's client posts cards; the GM's page back. It records the chat cards (each one's
// epoch, seq, view, words and mark), what each client holds of the goblins, and the
// notices.
//
// Environment: ROLLBRIDGE_PYTHON (the Python with rollbridge), RB_DIR (a scratch
// directory). Prints one line `RESULT {json}`; exits non-zero on any failure.

import { spawnSync } from "node:child_process";
import path from "node:path";
import process from "node:process";

import { settle, Standin } from "../js/standin.mjs";
import { cave, endWalk, freePort, GmPage, GOBLIN, player, rollbridge, RUNNER, serve, runWalk, stopServer, until } from "./night.mjs";

const DB = path.join(process.env.RB_DIR, "restore.db");
const GM = "standinGM000001";
const ALICE = "standinPlr00001";
const USERS = [{ _id: GM, name: "Gamemaster", role: 4 }, { _id: ALICE, name: "alice" }];

/** Every card in the chat: its event's place, view, mark and words. */
function cards() {
  return game.messages.contents.filter((m) => m.flags?.rollbridge?.seq).map((m) => {
    const f = m.flags.rollbridge;
    const text = String(m.content ?? "").replace(/<[^>]*>/g, " ").replace(/\s+/g, " ").trim();
    const title = String(m.content ?? "").match(/<span class="rb-title">([^<]*)<\/span>/)?.[1] ?? null;
    return { epoch: f.epoch, seq: f.seq, kind: f.kind, view: f.view ?? null, hook: f.hook ?? null,
      undoneBy: f.undoneBy ?? null, title, text };
  });
}

async function main() {
  const created = JSON.parse(rollbridge(DB, "table", "create", "--ruleset", "sr2", "--name", "Restore night", "--json"));
  const table = created.table;
  const alice = JSON.parse(rollbridge(DB, "table", "tokens", table, "--new", "player", "--name", "alice", "--json")).new.token;
  const port = await freePort();
  let server = await serve(DB, port);
  const url = `ws://127.0.0.1:${port}/tables/${table}`;
  const result = { steps: {} };
  let goblins = [];
  const note = (step, extra = {}) => {
    result.steps[step] = { cards: cards(), notices: Standin.log.notifications.map((n) => `${n.level}: ${n.text}`),
      withheld: goblins.filter((g) => g.flags?.rollbridge?.withheld).length, ...extra };
    Standin.log.notifications.length = 0;
  };
  let player1 = null;
  const page = new GmPage();
  let gm = null;
  try {
    const made = await cave({ users: USERS, user: GM, url, token: created.tokens.gm, linked: 2, unlinked: 2,
      players: [[ALICE, "Alice"]] });
    const { scene, base, runners: [runner] } = made;
    goblins = made.goblins;
    gm = await page.open();
    await gm.addActor(runner, RUNNER, { controllers: ["alice"] });
    for (const goblin of goblins) await gm.addActor(goblin, GOBLIN);
    await settle(gm);
    player1 = await player(url, alice, table);
    note("cast");

    await gm.resolve("new_turn", { params: {} });
    await settle(gm);
    note("new turn");

    const fight = await Combat.create();
    await fight.createEmbeddedDocuments("Combatant", [
      { actorId: runner.id, initiative: 20 },
      ...goblins.map((g, i) => ({ actorId: g.isToken ? base.id : g.id, tokenId: g.isToken ? g.token.id : null,
        sceneId: scene.id, initiative: 10 - i })),
    ]);
    await fight.startCombat();
    await until(() => gm.encounter, "the encounter");
    await settle(gm);
    note("combat");

    const attack = (goblin) => page.attack(runner, goblin);
    await attack(goblins[0]);
    await settle(gm);
    const backup = path.join(process.env.RB_DIR, "restore-backup.db");
    rollbridge(DB, "backup", backup);
    const backedUp = Math.max(...cards().map((c) => c.seq)); // the backup's seq
    await attack(goblins[2]);
    await settle(gm);
    note("before restore", { backedUp, goblinU0: goblins[2].flags?.rollbridge?.common?.status ?? null });

    // the GM away: the page closed; the backup restored; the player goes on alone
    page.close();
    await stopServer(server);
    player1.close();
    spawnSync("cp", [backup, DB]);
    spawnSync("rm", ["-f", `${DB}-wal`, `${DB}-shm`]);
    server = await serve(DB, port);
    const last = player1.events.at(-1);
    player1 = await player(url, alice, table, { epoch: last.epoch, seq: last.seq });
    const back = player1.welcome();
    const rolled = await player1.request({ type: "roll", formula: "2d6" });
    note("player alone", { resume: back.resume ?? null, epochs: back.epochs ?? null, rolled: rolled.status ?? rolled.type,
      playerWithheld: (back.table?.actors ?? []).filter((a) => a.limited && a.common == null).length });

    // the GM's page back: a snapshot of the new epoch
    gm = await page.open();
    await settle(gm);
    note("gm back", { welcomeSeq: gm.connection.welcome.seq, epochs: gm.connection.welcome.epochs ?? null,
      goblinU0: goblins[2].flags?.rollbridge?.common?.status ?? null });
  } finally {
    await endWalk({ page, clients: [player1], server });
  }
  return result;
}

runWalk(main);
