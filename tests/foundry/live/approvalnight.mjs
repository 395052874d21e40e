// A Foundry GM's game night at an approval table, against a real `rollbridge serve`
// over a real SQLite file (started, stopped and started again on the same file here):
// the module's FoundryClient on the Foundry stand-in (v13) is the active GM's page, a
// second GM is logged in too (not the active GM: its page does not connect), and two
// players are plain protocol clients of the Foundry dialect. The world: a linked
// goblin and two unlinked tokens of one base goblin, and the players' runners, on an
// sr2 table whose GM approves players' requests and lets them supply their own dice.
//
// The walk: the cast put on the table; alice's attack with her own dice on an
// unlinked goblin's token, held for approval; the GM's *Approve with my dice…*
// (approve with `dice`: the server rolls with the GM's); the GM's undo of it; bob's
// roll held, the GM's world reloaded while it waits, then approved; the server
// stopped and started again on the same file, everyone back; alice's attack on the
// other unlinked token approved; the GM's page loaded again in each of cs, de, ru and
// en (Foundry reloads on a language change), a request held and approved in each.
// After each step it records what a GM or a player would meet: the cards (each
// event's once; the approval cards' buttons and settled line), the notices, the
// unlinked tokens' flags.
//
// Environment: ROLLBRIDGE_PYTHON (the Python with rollbridge), RB_DIR (a scratch
// directory). Prints one line `RESULT {json}`; exits non-zero on any failure.

import path from "node:path";
import process from "node:process";

import { approvalState, cardOf } from "../../../adapters/foundry/module/scripts/foundry/buttons.mjs";
import { settle, Standin } from "../js/standin.mjs";
import { approvalUsers, cave, duplicateCards, endWalk, freePort, GmPage, GOBLIN, heldFor, newTable, NIGHT_GM, NIGHT_PLAYERS, player, renderedTitles, RUNNER,
  restartedServer, serve as serveDb, runWalk, until } from "./night.mjs";

const DIR = process.env.RB_DIR;
const DB = path.join(DIR, "approval.db");
const GM = NIGHT_GM;
const PLAYERS = NIGHT_PLAYERS;
const USERS = approvalUsers("Second GM");
/** Alice's own dice for her attack: as many as it uses of a hard-hitting pattern. */
const OWN = [6, 6, 6, 5, 5, 5, 4, 4, 4, 1, 1, 1, 1, 1];
const ATTACK = { weapon: "Hackler", rounds: 3, range: "short" };

const page = new GmPage();
let gm = null;

/** The chat's rollbridge cards: {kind, seq, pending, buttons, settled, undone, lang}. */
function cards() {
  return game.messages.contents.map((message) => {
    const f = message.flags?.rollbridge ?? {};
    const html = String(message.content ?? "");
    const buttons = [...html.matchAll(/data-rollbridge-action="([^"]+)"/g)].map((m) => m[1]);
    return { kind: f.kind ?? null, seq: f.seq ?? null, pending: f.pending ?? null, buttons, undone: Number.isSafeInteger(f.undoneAt),
      outcome: f.outcome ?? null, lang: /data-lang="([^"]+)"/.exec(html)?.[1] ?? null };
  }).filter((c) => c.kind);
}

/** A player's request held for approval: its pending id, once the GM's page has its card. */
const held = (who, message) => heldFor(gm, who, message);

async function main() {
  const { table, tokens } = newTable(DB, "sr2", "Approval night", PLAYERS);
  const port = await freePort();
  let server = await serveDb(DB, port);
  const url = `ws://127.0.0.1:${port}/tables/${table}`;
  const result = { steps: {} };
  const note = (step, extra = {}) => {
    result.steps[step] = { duplicates: duplicateCards(), cards: cards(),
      notices: Standin.log.notifications.map((n) => `${n.level}: ${n.text}`), ...extra };
    Standin.log.notifications.length = 0;
  };
  const players = {};
  try {
    const made = await cave({ users: USERS, user: GM, url, token: tokens.gm, linked: 1, unlinked: 2, players: PLAYERS });
    const { runners, goblins } = made;
    gm = await page.open();
    for (const [i, [, name]] of PLAYERS.entries()) await gm.addActor(runners[i], RUNNER, { controllers: [name] });
    for (const goblin of goblins) await gm.addActor(goblin, GOBLIN);
    await gm.request({ type: "settings", settings: { approval: true, player_dice: true } });
    await settle(gm);
    for (const [, name] of PLAYERS) players[name] = await player(url, tokens[name], table);
    note("cast", { activeGM: game.users.activeGM?.id ?? null, writer: gm.writer });

    // 195 more NPCs made on the server (200 actors at the table); the GM links a new
    // Foundry actor to one of them: nothing read for it (linkActor writes the view the
    // GM's connection holds), its players' view read by the module's one-off reader
    const thugs = Array.from({ length: 195 }, (_, i) => ({ type: "actor.create", actor: { id: `npc-${i}`, name: `Thug ${i}`, sheet: GOBLIN } }));
    for (let i = 0; i < thugs.length; i += 15) await Promise.all(thugs.slice(i, i + 15).map((m) => gm.request(m)));
    await settle(gm);
    const thug = Standin.addActor({ _id: "fvttThug00000001", name: "Thug", type: "npc", ownership: { default: 1 },
      system: { track: { physical: { value: 0 }, stun: { value: 0 } } } });
    const socket = gm.connection.socket;
    const framesSent = [];
    const send = socket.send.bind(socket);
    socket.send = (data, ...rest) => {
      framesSent.push(JSON.parse(String(data)).type);
      return send(data, ...rest);
    };
    await gm.linkActor(thug, "npc-150");
    const linked = await until(() => thug.flags?.rollbridge?.common && thug.flags.rollbridge.withheld !== true && thug.flags.rollbridge, "the thug's players' view");
    await settle(gm);
    socket.send = send;
    note("link one of 200", { actors: gm.views.views.size, framesSent,
      thug: { actorId: linked.actorId, status: linked.common?.status ?? null, withheld: linked.withheld ?? null } });

    // alice attacks the first unlinked goblin's token with her own dice: held
    const alice = players.alice;
    const tokenGoblin = goblins[1];
    const attack = (target, dice) => ({ type: "resolve", action: "attack", actor: runners[0].id,
      targets: [target.token.uuid], params: ATTACK, dice });
    /** `who`'s attack on `target` with `n` of their own dice, held: its pending id. */
    const heldAttack = async (who, target, n = 6) => {
      const reply = await who.request(attack(target, Array.from({ length: n }, (_, i) => OWN[i % OWN.length])));
      if (reply.status !== "pending") throw new Error(JSON.stringify(reply));
      await until(() => cards().some((c) => c.kind === "approval.requested" && c.pending === reply.pending), "the approval card");
      await settle(gm);
      return reply.pending;
    };
    const pending = await heldAttack(alice, tokenGoblin);
    note("held own dice", { pending });

    // the GM's Approve with my dice…: the approve request carries the GM's dice
    let approved = null;
    for (let n = 6; n < 40 && !approved; n++) {
      try {
        approved = await gm.request({ type: "approve", request: pending, dice: Array.from({ length: n }, (_, i) => [5, 5, 2, 2, 1, 6][i % 6]) });
      } catch (error) {
        if (!/dice/.test(String(error?.message))) throw error;
      }
    }
    await settle(gm);
    const aliceSaw = await until(() => alice.events.find((e) => e.kind === "resolution"), "alice's approved attack");
    note("approved with my dice", { approvedBy: aliceSaw?.data?.approved_by ?? null,
      diceBy: [...new Set(JSON.stringify(aliceSaw?.data ?? {}).match(/"by":"[^"]*"/g) ?? [])],
      goblin: tokenGoblin.token.delta?._source?.flags?.rollbridge?.common?.status ?? null });

    // the GM's undo of it
    await gm.request({ type: "undo" });
    await settle(gm);
    note("undo", { goblin: tokenGoblin.token.delta?._source?.flags?.rollbridge?.common?.status ?? null });

    // bob's roll held; the GM's world reloaded while it waits, then approved
    const bobs = await held(players.bob, { type: "roll", formula: "2d6", actor: runners[1].id, dice: [3, 4] });
    gm = await page.open();
    await settle(gm);
    note("gm reload", { resume: gm.connection.welcome.resume ?? null, pendingCard: cards().filter((c) => c.pending === bobs) });
    await gm.request({ type: "approve", request: bobs });
    await settle(gm);
    note("approved after reload");

    // the server stopped and started again on the same file, bob's roll waiting: everyone back
    const across = await held(players.bob, { type: "roll", formula: "1d8", actor: runners[1].id, dice: [5] });
    const aliceLast = alice.events.at(-1);
    server = await restartedServer(server, DB, port, gm);
    for (const who of Object.values(players)) who.close();
    players.alice = await player(url, tokens.alice, table, { epoch: aliceLast.epoch, seq: aliceLast.seq });
    players.bob = await player(url, tokens.bob, table);
    const acrossCard = () => game.messages.contents.find((m) => m.flags?.rollbridge?.pending === across);
    const waitingAfter = approvalState(cardOf(acrossCard()), gm);
    await gm.request({ type: "approve", request: across });
    await settle(gm);
    const bobRolled = await until(() => players.bob.events.find((e) => e.kind === "roll" && e.data?.approved === across), "bob's roll approved after the restart");
    note("server restart", { resume: gm.connection.welcome.resume ?? null, aliceResume: players.alice.welcome().resume ?? null,
      waitingAfter, settledAfter: approvalState(cardOf(acrossCard()), gm), bobTotal: bobRolled.data?.total ?? null });

    // alice's attack on the other unlinked token (her own dice again), approved
    const other = goblins[2];
    // her dice are counted only when the GM approves (the request is checked for all
    // that needs no dice): approved with too few, refused, the GM rejects and she asks again
    const refusals = [];
    for (let n = 6; n < 40; n++) {
      const second = await heldAttack(players.alice, other, n);
      try {
        await gm.request({ type: "approve", request: second });
        break;
      } catch (error) {
        if (!/dice/.test(String(error?.message))) throw error;
        refusals.push(error.code);
        await gm.request({ type: "reject", request: second });
      }
    }
    await settle(gm);
    await settle(gm);
    note("unlinked token", { refusals: [...new Set(refusals)], other: other.token.delta?._source?.flags?.rollbridge?.common?.status ?? null,
      base: made.base.flags?.rollbridge?.common?.status ?? null });

    // the GM's page in each language: a request held and approved in each
    for (const lang of ["cs", "de", "ru", "en"]) {
      await game.i18n.setLanguage(lang);
      gm = await page.open();
      await settle(gm);
      const waiting = await held(players.bob, { type: "roll", formula: "1d6", actor: runners[1].id });
      const card = cards().find((c) => c.kind === "approval.requested" && c.pending === waiting);
      await gm.request({ type: "approve", request: waiting });
      await settle(gm);
      // alice's attack held: its card titled by the action's label in this language; rejected
      const attackHeld = await heldAttack(players.alice, other);
      await gm.request({ type: "reject", request: attackHeld });
      await settle(gm);
      const text = (pending) => game.messages.contents.filter((m) => m.flags?.rollbridge?.pending === pending).map((m) => String(m.content));
      note(`language ${lang}`, { card, welcomeLocale: gm.connection.welcome.locale, approvalText: text(waiting),
        attackLabel: gm.connection.welcome.ruleset?.actions?.attack?.label ?? null, attackText: text(attackHeld),
        rendered: renderedTitles() });
    }
  } finally {
    await endWalk({ page, clients: Object.values(players), server });
  }
  return result;
}

runWalk(main);
