// A wilddie scene walked through the module's own GM page (the stand-in's v13 world,
// a SWADE system: `auto` maps wounds and Shaken) against a real `rollbridge serve`
// over a real SQLite file: the hero's trait test with the wild die (WD-3), a chip
// spent on it (WD-4), a melee attack (WD-6) and its damage (WD-7) on a thug the GM
// mapped by hand to an NPC made on the server (linkActor), another NPC hurt on the
// server before the GM maps it by hand (its state shown at once), an undo of the damage, and
// the player's reconnect. Records what a GM would read: each card's rolls and flags,
// the thug's system data and flags, the notices.
//
// Environment: ROLLBRIDGE_PYTHON, RB_DIR. Prints one line `RESULT {json}`.

import path from "node:path";
import process from "node:process";

import { settle, Standin } from "../js/standin.mjs";
import { endWalk, GmPage, player, runWalk, until } from "./night.mjs";
import { HERO_SHEET, swadeSystem, THUG_SHEET, wildTable } from "./wild.mjs";

const DB = path.join(process.env.RB_DIR, "wildwalk.db");
const PLAYERS = [["standinPlr00001", "alice"]];

const card = (m) => ({ seq: m.flags?.rollbridge?.seq ?? null, kind: m.flags?.rollbridge?.kind ?? null,
  undoneAt: m.flags?.rollbridge?.undoneAt ?? null, rolls: (m.rolls ?? []).map((r) => ({ formula: r.formula, total: r.total })),
  flavor: m.flavor ?? "", content: String(m.content ?? "").replace(/<[^>]+>/g, " ").replace(/\s+/g, " ").trim().slice(0, 300) });

async function main() {
  const result = { steps: {} };
  const page = new GmPage();
  const clients = {};
  let server = null;
  try {
    const made = await wildTable(DB, "Wild walk", PLAYERS);
    server = made.server;
    const { table, tokens, url } = made;
    const hero = Standin.addActor({ _id: "fvttHero00000000", name: "Hero alice", type: "character", system: swadeSystem(),
      ownership: { [PLAYERS[0][0]]: 3 } });
    const thug = Standin.addActor({ _id: "fvttThug00000000", name: "Thug", type: "npc", system: swadeSystem(), ownership: { default: 1 } });
    const gm = await page.open();
    const step = (name, extra = {}) => {
      result.steps[name] = { cards: game.messages.contents.map(card),
        notices: Standin.log.notifications.map((n) => `${n.level}: ${n.text}`),
        thug: JSON.parse(JSON.stringify({ system: thug.system, flags: thug.flags?.rollbridge ?? null, statuses: [...(thug.statuses ?? [])] })),
        hero: JSON.parse(JSON.stringify({ system: hero.system, common: hero.flags?.rollbridge?.common ?? null })), ...extra };
      Standin.log.notifications.length = 0;
    };
    await gm.addActor(hero, HERO_SHEET, { controllers: ["alice"] });
    // the NPC made on the server first (a GM's CLI or another client), mapped by hand
    await gm.request({ type: "actor.create", actor: { id: "thug-1", name: "Thug", sheet: THUG_SHEET, controllers: [] } });
    await gm.linkActor(thug, "thug-1");
    await settle(gm);
    // another NPC made on the server and Shaken there (WD-7: 6 against Toughness 5)
    // before the GM maps it by hand: its state shows at once, not at its next change
    const lookout = Standin.addActor({ _id: "fvttLookout00000", name: "Lookout", type: "npc", system: swadeSystem(), ownership: { default: 1 } });
    await gm.request({ type: "actor.create", actor: { id: "lookout-1", name: "Lookout", sheet: THUG_SHEET, controllers: [] } });
    await gm.resolve("damage", { actor: hero.id, targets: ["lookout-1"], params: { dice: "2d6", melee: true }, dice: [2, 2, 2] });
    await settle(gm);
    const unmapped = JSON.parse(JSON.stringify({ system: lookout.system, statuses: [...(lookout.statuses ?? [])] }));
    await gm.linkActor(lookout, "lookout-1");
    await settle(gm);
    // its players' view: read once by a connection of the module's own (or none)
    await until(() => gm.playersReader === null, "the players' view read");
    await settle(gm);
    step("mapped", { unmapped, lookout: JSON.parse(JSON.stringify({ system: lookout.system, flags: lookout.flags?.rollbridge ?? null,
      statuses: [...(lookout.statuses ?? [])] })) });
    clients.alice = await player(url, tokens.alice, table);
    step("cast");
    const trait = await gm.resolve("trait", { actor: hero.id, params: { trait: "notice" }, dice: [5, 1] });
    await settle(gm);
    step("trait", { event: trait?.data ?? null });
    const chip = await gm.resolve("chip", { actor: hero.id, params: { die: "trait" }, dice: [1] });
    await settle(gm);
    step("chip", { event: chip?.data ?? null });
    const attack = await gm.resolve("attack", { actor: hero.id, targets: [thug], params: { mode: "melee" }, dice: [7, 4] });
    await settle(gm);
    step("attack", { event: attack?.data ?? null });
    const damage = await gm.resolve("damage", { actor: hero.id, targets: [thug], params: { dice: "2d6", melee: true }, dice: [5, 3, 4] });
    await settle(gm);
    step("damage", { event: damage?.data ?? null });
    await gm.request({ type: "undo" });
    await settle(gm);
    step("undo");
    // alice's window drops before the undo reached her page: she resumes from the damage
    await until(() => clients.alice.events.some((e) => e.kind === "undo"), "alice's undo");
    const before = clients.alice.events.find((e) => e.seq === damage.seq);
    clients.alice.close();
    clients.alice = await player(url, tokens.alice, table, { epoch: before.epoch, seq: before.seq });
    await until(() => clients.alice.events.some((e) => e.kind === "undo"), "the undo resent");
    step("reconnect", { resume: clients.alice.welcome().resume ?? null, resent: clients.alice.events.map((e) => e.kind) });
  } finally {
    await endWalk({ page, clients: Object.values(clients), server });
  }
  return result;
}

runWalk(main);
