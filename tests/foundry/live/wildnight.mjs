// A wilddie game night (the Savage-Worlds-like ruleset, a SWADE world: `auto` maps its
// wounds and Shaken) against a real `rollbridge serve` over a real SQLite file, with a
// server restart in the middle of a fight — the process stopped and started again on
// the same file, no restore: the same epoch. The module's FoundryClient on the Foundry
// stand-in (v13) is the active GM's page; a second GM is a plain protocol client of the
// GM's token (its page is not the writer: it rolls and adjusts, the active GM's page
// posts the cards); a player, alice, has two browser windows (two connections of one
// token), bob one. A combat runs through Foundry's tracker; the GM moves the tracker
// on while the server is down.
//
// After each step it records what a GM or a player would meet: the chat cards (each
// event's once), the notices, the server's encounter against Foundry's tracker, what
// each of alice's windows was sent.
//
// Environment: ROLLBRIDGE_PYTHON (the Python with rollbridge), RB_DIR (a scratch
// directory). Prints one line `RESULT {json}`; exits non-zero on any failure.

import path from "node:path";
import process from "node:process";

import { settle, Standin } from "../js/standin.mjs";
import { endWalk, freePort, GmPage, HERO, newTable, pageWorld, player, runWalk, serve as serveDb, stopServer, SWADE, THUG, until } from "./night.mjs";

const DIR = process.env.RB_DIR;
const DB = path.join(DIR, "wild.db");
const GM = "standinGM000001";
const PLAYERS = [["standinPlr00001", "alice"], ["standinPlr00002", "bob"]];
const USERS = [{ _id: GM, name: "Gamemaster", role: 4 }, ...PLAYERS.map(([id, name]) => ({ _id: id, name }))];

/** The chat cards of each (epoch, seq, kind, hook, requester) more than once. */
function duplicateCards() {
  const seen = new Map();
  for (const message of game.messages.contents) {
    const f = message.flags?.rollbridge;
    if (!f?.seq || !f.kind) continue;
    const key = `${f.epoch}:${f.seq}:${f.kind}:${f.hook ?? ""}:${f.requester ?? ""}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  return [...seen].filter(([, n]) => n > 1).map(([k]) => k);
}

/** The GM's page's action, its dice supplied: as many sixes-and-ones as the roll takes. */
async function act(gm, action, options) {
  for (let n = 1; n < 40; n++) {
    try {
      return await gm.resolve(action, { ...options, dice: Array.from({ length: n }, (_, i) => (i % 3 === 2 ? 1 : 6)) });
    } catch (error) {
      if (!/dice/.test(String(error?.message))) throw error;
    }
  }
  throw new Error(`no number of dice fitted ${action}`);
}

async function main() {
  const { table, tokens } = newTable(DB, "wilddie", "Wild", PLAYERS);
  const port = await freePort();
  let server = await serveDb(DB, port);
  const url = `ws://127.0.0.1:${port}/tables/${table}`;
  const result = { steps: {} };
  const page = new GmPage();
  const clients = {};
  let gm = null;
  const note = (step, extra = {}) => {
    result.steps[step] = { duplicates: duplicateCards(),
      notices: Standin.log.notifications.map((n) => `${n.level}: ${n.text}`),
      encounter: gm?.encounter ?? null, epoch: gm?.connection?.welcome?.epoch ?? null, cards: game.messages.contents.length, ...extra };
    Standin.log.notifications.length = 0;
  };
  const tracker = (combat) => ({ round: combat.round, turn: combat.turn, actor: combat.combatant?.actor?.flags?.rollbridge?.actorId ?? null });
  const windows = () => [clients.alice1, clients.alice2].map((w) => w.events.map((e) => `${e.epoch}:${e.seq}`));
  try {
    await pageWorld({ users: USERS, user: GM, url, token: tokens.gm, system: "swade" });
    const scene = Standin.addScene({ _id: "sceneSaloon00001", name: "Saloon" });
    const heroes = PLAYERS.map(([id, name], i) => Standin.addActor({ _id: `fvttHero0000000${i}`, name: `Hero ${name}`, type: "character",
      system: SWADE(), ownership: { [id]: 3 } }));
    const thugs = [0, 1, 2].map((i) => {
      const actor = Standin.addActor({ _id: `fvttThug0000000${i}`, name: `Thug ${i}`, type: "npc", system: SWADE(), ownership: { default: 1 } });
      Standin.addToken(scene, { _id: `tokThug00000000${i}`, name: `Thug ${i}`, actorId: actor.id, actorLink: true });
      return actor;
    });
    gm = await page.open();
    for (const [i, [, name]] of PLAYERS.entries()) await gm.addActor(heroes[i], HERO, { controllers: [name] });
    for (const thug of thugs) await gm.addActor(thug, THUG);
    await settle(gm);
    clients.alice1 = await player(url, tokens.alice, table);
    clients.alice2 = await player(url, tokens.alice, table); // her second browser window
    clients.bob = await player(url, tokens.bob, table);
    clients.gm2 = await player(url, tokens.gm, table); // the second GM's connection
    note("cast");

    // the fight: Foundry's tracker starts the encounter; attacks, a turn on
    const fight = await Combat.create();
    await fight.createEmbeddedDocuments("Combatant", [
      ...heroes.map((h, i) => ({ actorId: h.id, initiative: 20 - i })),
      ...thugs.map((t, i) => ({ actorId: t.id, sceneId: scene.id, initiative: 10 - i })),
    ]);
    await fight.startCombat();
    await until(() => gm.encounter, "the encounter");
    await act(gm, "attack", { actor: heroes[0].id, targets: [thugs[0].id], params: { mode: "melee" } });
    await act(gm, "damage", { actor: heroes[0].id, targets: [thugs[0].id], params: { dice: "2d6", melee: true } });
    await fight.nextTurn();
    await settle(gm);
    // the second GM rolls a secret roll and a player's window rolls
    await clients.gm2.request({ type: "roll", formula: "1d6", secret: true });
    await clients.alice1.request({ type: "roll", formula: "1d8" });
    await until(() => clients.alice2.events.length === clients.alice1.events.length, "alice's second window");
    await settle(gm);
    note("fight", { tracker: tracker(fight), windows: windows(),
      thug0: { wounds: thugs[0].system.wounds.value, flags: thugs[0].flags?.rollbridge?.common ?? null },
      kinds: game.messages.contents.map((m) => `${m.flags?.rollbridge?.seq}:${m.flags?.rollbridge?.kind}:${(m.whisper ?? []).length}`) });

    // the server restarts mid-fight (stopped, started again on the same file); the GM
    // moves the tracker on while it is down
    await stopServer(server);
    const downAt = gm.connection.welcome;
    await fight.nextTurn();
    await settle(gm);
    server = await serveDb(DB, port);
    gm.nudge();
    await until(() => gm.connection?.welcome && gm.connection.welcome !== downAt, "the GM back after the restart", 60000);
    await settle(gm);
    await until(() => gm.encounter && gm.encounter.turn === fight.turn && gm.encounter.round === fight.round, "the tracker's turn on the server", 20000)
      .catch(() => null);
    await settle(gm);
    for (const name of ["alice1", "alice2", "bob"]) {
      const last = clients[name].events.at(-1);
      clients[name].close();
      clients[name] = await player(url, tokens[name.replace(/\d$/, "")], table, { epoch: last.epoch, seq: last.seq });
    }
    note("restarted", { tracker: tracker(fight), resumes: ["alice1", "alice2", "bob"].map((n) => clients[n].welcome().resume ?? null),
      server: clients.bob.welcome().table?.encounter ?? null });

    // the fight goes on: a thug's attack, the next turn; alice's windows both see it
    const cards = game.messages.contents.length;
    await act(gm, "attack", { actor: thugs[1].id, targets: [heroes[1].id], params: { mode: "melee" } });
    await fight.nextTurn();
    await settle(gm);
    const rolled = await clients.alice2.request({ type: "roll", formula: "1d4" });
    await until(() => clients.alice1.events.some((e) => e.seq === rolled.seq), "alice's first window", 10000);
    await settle(gm);
    note("after restart", { tracker: tracker(fight), cardsAdded: game.messages.contents.length - cards, rolled,
      lastEvents: ["alice1", "alice2"].map((n) => clients[n].events.slice(-3).map((e) => `${e.seq}:${e.kind}`)),
      thugs: thugs.map((t) => ({ wounds: t.system.wounds.value, shaken: t.statuses?.has?.("shaken") ?? null,
        flags: t.flags?.rollbridge?.common ?? null })) });

    await fight.delete();
    await settle(gm);
    await until(() => gm.encounter === null, "the encounter ended", 10000).catch(() => null);
    note("combat over");
  } finally {
    await endWalk({ page, clients: Object.values(clients), server });
  }
  return result;
}

runWalk(main);
