// A wilddie game night at an approval table (a SWADE world: `auto` maps its wounds and
// Shaken), against a real `rollbridge serve` over a real SQLite file, stopped and
// started again on the same file mid-night. The module's FoundryClient on the Foundry
// stand-in (v13) is the active GM's page; a second GM is logged in (not the active GM:
// its page does not connect); two players are protocol clients of the Foundry dialect.
//
// The walk: the cast put on the table, approval and players' own dice on; alice's
// trait test with her own dice, held and approved; bob's damage roll for no character
// (WD-10: the GM's), refused by the ruleset — marked its own, so no handler of the
// module keyed on the server's codes acts on it; bob's attack held, the GM's page
// reloaded while it waits (mid-roll), then approved; alice's roll held across the
// server's restart, approved once everyone is back; the GM's page loaded again in
// German (Foundry reloads on a language change), a request held and approved there.
// After each step it records what a GM or a player would meet: the cards (each event's
// once), the notices, each resume.
//
// Environment: ROLLBRIDGE_PYTHON (the Python with rollbridge), RB_DIR (a scratch
// directory). Prints one line `RESULT {json}`; exits non-zero on any failure.

import path from "node:path";
import process from "node:process";

import { approvalState, cardOf } from "../../../adapters/foundry/module/scripts/foundry/buttons.mjs";
import { settle, Standin } from "../js/standin.mjs";
import { approvalCard, approvalUsers, duplicateCards, endWalk, GmPage, heldFor, HERO, NIGHT_GM, NIGHT_PLAYERS, nightServer, pageWorld, player,
  renderedTitles, restartedServer, runWalk, SWADE, THUG, until } from "./night.mjs";

const DIR = process.env.RB_DIR;
const DB = path.join(DIR, "wildapproval.db");
const GM = NIGHT_GM;
const PLAYERS = NIGHT_PLAYERS;
const USERS = approvalUsers("Zweite Spielleiterin");

const page = new GmPage();
let gm = null;
/** `who`'s request held for approval: its pending id, once the GM's page has its card. */
const held = (who, message) => heldFor(gm, who, message);

/** The chat's rollbridge cards: {kind, seq, pending, outcome}. */
function cards() {
  return game.messages.contents.map((message) => {
    const f = message.flags?.rollbridge ?? {};
    return { kind: f.kind ?? null, seq: f.seq ?? null, pending: f.pending ?? null, outcome: f.outcome ?? null };
  }).filter((c) => c.kind);
}

async function main() {
  const night = await nightServer(DB, "wilddie", "Wild approvals", PLAYERS);
  const { table, tokens, port, url } = night;
  let { server } = night;
  const result = { steps: {} };
  const note = (step, extra = {}) => {
    result.steps[step] = { duplicates: duplicateCards(), cards: cards().length,
      notices: Standin.log.notifications.map((n) => `${n.level}: ${n.text}`), ...extra };
    Standin.log.notifications.length = 0;
  };
  const players = {};
  try {
    await pageWorld({ users: USERS, user: GM, url, token: tokens.gm, system: "swade" });
    const heroes = PLAYERS.map(([id, name], i) => Standin.addActor({ _id: `fvttHero0000000${i}`, name: `Hero ${name}`, type: "character",
      system: SWADE(), ownership: { [id]: 3 } }));
    const thug = Standin.addActor({ _id: "fvttThug00000000", name: "Thug", type: "npc", system: SWADE(), ownership: { default: 1 } });
    gm = await page.open();
    for (const [i, [, name]] of PLAYERS.entries()) await gm.addActor(heroes[i], HERO, { controllers: [name] });
    await gm.addActor(thug, THUG);
    await gm.request({ type: "settings", settings: { approval: true, player_dice: true } });
    await settle(gm);
    for (const [, name] of PLAYERS) players[name] = await player(url, tokens[name], table);
    note("cast", { activeGM: game.users.activeGM?.id ?? null });

    // alice's Notice test with her own dice (trait die and wild die): held, approved
    const trait = { type: "foundry.resolve", action: "trait", actor: heroes[0].id, params: { trait: "notice" }, dice: [4, 5] };
    const noticed = await held(players.alice, trait);
    await gm.request({ type: "approve", request: noticed });
    await settle(gm);
    const aliceSaw = await until(() => players.alice.events.find((e) => e.kind === "resolution"), "alice's approved test");
    note("trait approved", { approvedBy: aliceSaw.data?.approved_by ?? null, outcome: approvalOutcome(noticed) });

    // bob's damage roll for no character: the ruleset's refusal (WD-10), marked its own
    const noActor = await players.bob.request({ type: "foundry.resolve", action: "damage", targets: [thug.id], params: { dice: "2d6" } });
    await settle(gm);
    note("ruleset refusal", { reply: { type: noActor.type, code: noActor.code ?? null, details: noActor.details ?? null } });

    // bob's attack held; the GM's page reloaded while it waits (mid-roll), then approved
    const attack = { type: "foundry.resolve", action: "attack", actor: heroes[1].id, targets: [thug.id], params: { mode: "melee" } };
    const bobs = await held(players.bob, attack);
    gm = await page.open();
    await settle(gm);
    const waitingAfterReload = approvalState(cardOf(approvalCard(bobs)), gm);
    await gm.request({ type: "approve", request: bobs });
    await settle(gm);
    await until(() => players.bob.events.find((e) => e.kind === "resolution" && e.data?.approved === bobs), "bob's attack approved");
    await settle(gm);
    note("gm reload mid-roll", { resume: gm.connection.welcome.resume ?? null, waitingAfterReload, outcome: approvalOutcome(bobs) });

    // alice's roll held across the server's restart; everyone back, then approved
    const across = await held(players.alice, { type: "roll", formula: "1d8", actor: heroes[0].id, dice: [5] });
    const lasts = Object.fromEntries(Object.entries(players).map(([name, who]) => [name, who.events.at(-1)]));
    server = await restartedServer(server, DB, port, gm);
    for (const [name, last] of Object.entries(lasts)) {
      players[name].close();
      players[name] = await player(url, tokens[name], table, { epoch: last.epoch, seq: last.seq });
    }
    const waitingAfterRestart = approvalState(cardOf(approvalCard(across)), gm);
    await gm.request({ type: "approve", request: across });
    await settle(gm);
    const rolled = await until(() => players.alice.events.find((e) => e.kind === "roll" && e.data?.approved === across), "alice's roll after the restart");
    await settle(gm);
    note("server restart", { resume: gm.connection.welcome.resume ?? null, resumes: Object.values(players).map((p) => p.welcome().resume ?? null),
      waitingAfterRestart, outcome: approvalOutcome(across), total: rolled.data?.total ?? null });

    // the GM's page loaded again in German: bob's test held and approved there
    await game.i18n.setLanguage("de");
    gm = await page.open();
    await settle(gm);
    const german = await held(players.bob, { ...trait, actor: heroes[1].id, dice: [4, 3] });
    await gm.request({ type: "approve", request: german });
    await settle(gm);
    await until(() => players.bob.events.find((e) => e.kind === "resolution" && e.data?.approved === german), "bob's test approved in German");
    await settle(gm);
    note("german", { welcomeLocale: gm.connection.welcome.locale, traitLabel: gm.connection.welcome.ruleset?.actions?.trait?.label ?? null,
      outcome: approvalOutcome(german), rendered: renderedTitles() });
  } finally {
    await endWalk({ page, clients: Object.values(players), server });
  }
  return result;
}

/** How the approval card of `pending` says it was settled, as the GM's page draws it. */
function approvalOutcome(pending) {
  const message = approvalCard(pending);
  return message ? approvalState(cardOf(message), gm) : null;
}

runWalk(main);
