// The browser test: the module's real client code in headless Chromium, on the
// Foundry stand-in page, against a real `rollbridge serve` (started by
// tests/foundry/test_foundry_browser.py, which passes everything in the
// environment). It rolls, resolves an attack, checks the returned state, the
// chat card and the dice Foundry would rebuild (and Dice So Nice would show),
// saves a screenshot of the card, then drops the connection and checks the
// resume. Prints one line `RESULT {json}`; exits non-zero on any failure.
//
// Environment: RB_PAGE_URL, RB_WS_URL, RB_TABLE, RB_TOKEN (the GM's; never
// printed), RB_SHEETS (JSON), RB_SCREENSHOT (empty: none), RB_CHROMIUM,
// RB_USER_DATA, RB_GENERATION (12 or 13: the Foundry generation the stand-in plays),
// RB_LANG (the user's Foundry language, also in the page URL; RB_SERVER_LOCALE is
// the locale the server is expected to answer in: RB_LANG, or its default when it
// has none — then the welcome's fallback note must reach the user).

import assert from "node:assert/strict";
import process from "node:process";

import { chromium } from "playwright-core";

import { ARGS } from "./launch.mjs";

const env = process.env;
const TOKEN = env.RB_TOKEN;
const sheets = JSON.parse(env.RB_SHEETS);
const GENERATION = Number(env.RB_GENERATION ?? 13);
const LANG = env.RB_LANG ?? "en";
const SERVER_LOCALE = env.RB_SERVER_LOCALE ?? LANG;

const summary = {};

/** The test's own statement of Foundry's order for an exploding term: per-die
 * chains round by round (every first roll, then every die's first explosion, …). */
function foundryOrder(chains) {
  const out = [];
  const depth = Math.max(0, ...chains.map((c) => c.length));
  for (let round = 0; round < depth; round++) for (const chain of chains) if (round < chain.length) out.push(chain[round]);
  return out;
}
const consoleLines = [];
const pageErrors = [];

function step(name) {
  process.stderr.write(`e2e: ${name}\n`);
}

const context = await chromium.launchPersistentContext(env.RB_USER_DATA, {
  executablePath: env.RB_CHROMIUM,
  headless: true,
  args: ARGS,
  viewport: { width: 900, height: 1400 },
  deviceScaleFactor: 1,
});
context.setDefaultTimeout(30_000);

try {
  const page = context.pages()[0] ?? (await context.newPage());
  page.on("console", (m) => consoleLines.push(m.text()));
  page.on("pageerror", (e) => pageErrors.push(String(e)));
  await page.addInitScript((token) => {
    window.__RB_E2E__ = { token };
  }, TOKEN);

  step("load the module on the stand-in page");
  await page.goto(env.RB_PAGE_URL);
  await page.waitForFunction(() => window.rbE2E?.ready === true);
  await page.evaluate(() => rbE2E.waitFor(() => rbE2E.api().status().status === "connected", 20000, "connected"));
  const first = await page.evaluate(() => ({
    status: rbE2E.api().status(),
    settings: Object.fromEntries([...game.settings.settings].map(([k, v]) => [k, v.scope])),
    notices: FoundryStandin.log.notifications.map((n) => ({ ...n })),
    lang: game.i18n.lang,
    loaded: [...game.i18n.loaded],
    welcomeLocale: rbE2E.api().connection.welcome.locale,
    welcomeNotes: rbE2E.api().connection.welcome.notes ?? [],
    connected: game.i18n.format("ROLLBRIDGE.Notice.Connected", {
      table: rbE2E.api().status().table, role: game.i18n.localize("ROLLBRIDGE.Role.gm"),
    }),
    fallbackNotice: game.i18n.format("ROLLBRIDGE.Notice.LocaleUnavailable", {
      asked: game.i18n.lang, used: rbE2E.api().connection.welcome.locale,
    }),
  }));
  assert.equal(first.status.role, "gm");
  assert.equal(first.status.writer, true);
  assert.equal(first.settings["rollbridge.token"], GENERATION >= 13 ? "user" : "client", "the token is kept per user (v13) or per client (v12)");
  assert.equal(first.settings["rollbridge.serverUrl"], "world");
  const noticeTexts = first.notices.map((n) => n.text);
  assert.ok(noticeTexts.includes(`rollbridge: ${first.connected}`), JSON.stringify(noticeTexts));
  // the module's texts in the user's language, loaded from module.json's languages
  assert.equal(first.lang, LANG);
  assert.ok(first.loaded.includes(`rollbridge/lang/${LANG === "pl" ? "en" : LANG}.json`), first.loaded);
  // the hello asked for the Foundry language: the server answers in it, or says it cannot
  assert.equal(first.welcomeLocale, SERVER_LOCALE);
  if (SERVER_LOCALE === LANG) {
    assert.deepEqual(first.welcomeNotes, []);
    assert.ok(!noticeTexts.includes(`rollbridge: ${first.fallbackNotice}`));
  } else {
    assert.deepEqual(first.welcomeNotes.map((n) => n.code), ["locale_unavailable"]);
    assert.ok(first.notices.some((n) => n.level === "warn" && n.text === `rollbridge: ${first.fallbackNotice}`),
      JSON.stringify(first.notices));
    assert.ok(consoleLines.some((l) => l.includes(first.welcomeNotes[0].message)), "the server's note is logged");
  }
  summary.connected = { ...first.status, lang: first.lang, locale: first.welcomeLocale };

  step("put two Foundry actors on the table");
  await page.evaluate(async (s) => {
    const api = rbE2E.api();
    await api.addActor(rbE2E.tukan, s.Tukan, { controllers: ["player"] });
    await api.addActor(rbE2E.guard, s["Guard A"]);
  }, sheets);

  step("attack: the GM supplies the dice");
  const attack = await page.evaluate(async () => {
    const api = rbE2E.api();
    const event = await api.resolve("attack", {
      actor: rbE2E.tukan,
      targets: [rbE2E.guard],
      params: { weapon: "Hackler", rounds: 3, range: "short" },
      dice: [6, 3, 6, 4, 5, 6, 1, 2, 4, 6, 2, 4, 1, 3],
    });
    const selector = `.rollbridge-card[data-seq="${event.seq}"]`;
    await rbE2E.waitFor(() => document.querySelector(selector), 10000, "the attack's chat card");
    await rbE2E.waitFor(
      () => FoundryStandin.log.updates.some((u) => u.actor === rbE2E.guard.id && (u.data["flags.rollbridge"]?.seq ?? u.data["flags.rollbridge.seq"]) === event.seq),
      10000, "the guard's update",
    );
    const card = document.querySelector(selector);
    const message = FoundryStandin.log.messages.find((m) => m.flags?.rollbridge?.seq === event.seq);
    return {
      seq: event.seq,
      narration: event.data.narration,
      groups: event.data.dice.map((g) => ({ rolls: g.dice.flatMap((d) => d.rolls), chains: g.dice.map((d) => d.rolls), successes: g.successes })),
      rebuilt: event.foundry.rolls.map((json) => {
        const roll = Roll.fromData(structuredClone(json));
        return { total: roll.total, formula: roll.formula, results: roll.dice.flatMap((d) => d.results.map((r) => r.result)) };
      }),
      dice3d: FoundryStandin.log.dice3d.filter((c) => c.message === message.id).map((c) => structuredClone(c)),
      showForRoll: FoundryStandin.log.showForRoll.length,
      guardFlags: structuredClone(rbE2E.guard.flags.rollbridge),
      guardView: structuredClone((event.actors ?? []).find((a) => a.id === rbE2E.guard.id)?.common ?? null),
      guardSystem: structuredClone(rbE2E.guard.system),
      cardText: card.textContent,
      cardHow: card.querySelector(".rb-steps summary")?.textContent ?? null,
      cardOutcome: [...card.querySelectorAll(".rb-outcome li span")].map((s) => s.textContent),
      cardStatus: [...card.querySelectorAll(".rb-status")].map((s) => s.textContent),
      steps: event.data.steps ?? [],
      words: {
        how: game.i18n.localize("ROLLBRIDGE.Card.How"),
        outcome: Object.keys(event.data.outcome ?? {}).map((k) => [k, game.i18n.has(`ROLLBRIDGE.Card.Outcome.${k}`) ? game.i18n.localize(`ROLLBRIDGE.Card.Outcome.${k}`) : null]),
        statuses: (event.actors ?? []).filter((a) => a.common).map((a) => game.i18n.localize(`ROLLBRIDGE.ActorStatus.${a.common.status}`)),
      },
      cardDice: [...card.querySelectorAll(".rb-die")].map((li) => li.dataset.rolls),
      cardTracks: [...card.querySelectorAll(".rb-track")].map((t) => ({ ...t.dataset })),
      speaker: message.speaker,
      messageHasRolls: (message.rolls ?? []).length,
    };
  });
  assert.equal(attack.groups.length, 2);
  assert.deepEqual(attack.groups.map((g) => g.rolls), [[6, 3, 6, 4, 5, 6, 1, 2, 4], [6, 2, 4, 1, 3]]);
  // Foundry's Rolls rebuilt from the reply hold exactly the server's dice and results,
  // each term's in Foundry's order (every first roll, then each round of explosions)
  const inFoundryOrder = attack.groups.map((g) => foundryOrder(g.chains));
  assert.deepEqual(attack.rebuilt.map((r) => r.results), inFoundryOrder);
  assert.deepEqual(attack.rebuilt.map((r) => r.total), attack.groups.map((g) => g.successes));
  // Dice So Nice (its stand-in) animated the message's own rolls, once: those very dice
  assert.equal(attack.messageHasRolls, 2, "the message carries its rolls");
  assert.equal(attack.showForRoll, 0, "no separate showForRoll");
  assert.equal(attack.dice3d.length, 1);
  assert.equal(attack.dice3d[0].animated, true);
  assert.deepEqual(attack.dice3d[0].rolls.map((r) => r.results), inFoundryOrder);
  // the chat card: who, the narration, every die (compounding ones as chains), the new state
  assert.equal(attack.speaker.actor, "fvttTukan0000001");
  assert.ok(attack.cardText.includes(attack.narration), attack.cardText);
  // the server's steps as they came (in its locale), under the module's word for "How"
  for (const s of attack.steps) assert.ok(attack.cardText.includes(s), s);
  if (attack.steps.length) assert.equal(attack.cardHow, attack.words.how);
  // the outcome labels and the statuses in the user's language
  for (const [, label] of attack.words.outcome) if (label) assert.ok(attack.cardOutcome.includes(label), JSON.stringify(attack.cardOutcome));
  assert.deepEqual(attack.cardStatus, attack.words.statuses);
  assert.deepEqual(attack.cardDice, ["6,3", "6,4", "5", "6,1", "2", "4", "6,2", "4", "1", "3"]);
  // the state: the GM's view in the GM's event; the flags, which Foundry hands to every
  // client, the players' view of the guard (an NPC: no boxes)
  const physical = attack.guardView.tracks.find((t) => t.key === "physical");
  assert.ok(physical.value > 0, JSON.stringify(attack.guardView));
  assert.equal(attack.guardFlags.actorId, "fvttGuard0000002");
  assert.deepEqual([attack.guardFlags.view, attack.guardFlags.limited, attack.guardFlags.common.tracks], ["players", true, []]);
  // `auto` (sr5: the stand-in world's system is shadowrun5e) writes no NPC value the
  // players' view hides into the system data either
  assert.equal(attack.guardSystem.track.physical.value, 0);
  assert.ok(attack.cardTracks.some((t) => t.track === "physical" && Number(t.value) === physical.value));
  summary.attack = { seq: attack.seq, narration: attack.narration, physical: physical.value, status: attack.guardFlags.common.status };

  step("a roll the server makes");
  const roll = await page.evaluate(async () => {
    const event = await rbE2E.api().roll("3d6!! + 2", { actor: rbE2E.tukan, flavor: "Quickness" });
    const selector = `.rollbridge-card[data-seq="${event.seq}"]`;
    await rbE2E.waitFor(() => document.querySelector(selector), 10000, "the roll's chat card");
    const rebuilt = Roll.fromData(structuredClone(event.foundry.rolls[0]));
    return {
      seq: event.seq,
      total: event.data.total,
      rebuiltTotal: rebuilt.total,
      rebuiltFormula: rebuilt.formula,
      results: rebuilt.dice.flatMap((d) => d.results.map((r) => r.result)),
      server: event.data.roll.groups.map((g) => g.dice.map((d) => d.rolls)),
      cardTotal: document.querySelector(`${selector} .rb-total`).dataset.total,
      supplied: event.data.supplied,
    };
  });
  assert.equal(roll.supplied, false);
  assert.equal(roll.rebuiltTotal, roll.total);
  assert.equal(Number(roll.cardTotal), roll.total);
  assert.deepEqual(roll.results, roll.server.flatMap((chains) => foundryOrder(chains)));
  assert.match(roll.rebuiltFormula, /^3d6x \+ 2$/);
  summary.roll = roll;

  step("a chat command");
  const chat = await page.evaluate(async () => {
    const before = FoundryStandin.log.messages.length;
    const passed = Hooks.call("chatMessage", {}, "/rb 2d6 + 1 # typed in chat", {});
    await rbE2E.waitFor(() => FoundryStandin.log.messages.length > before, 10000, "the chat command's card");
    const message = FoundryStandin.log.messages.at(-1);
    return { passed, kind: message.flags.rollbridge.kind, content: message.content };
  });
  assert.equal(chat.passed, false, "the command is consumed, not posted as text");
  assert.equal(chat.kind, "roll");
  assert.match(chat.content, /typed in chat/);

  step("the token HUD and the sheet panel draw the common tracks");
  const panels = await page.evaluate((generation) => {
    const hudRoot = document.createElement("div");
    hudRoot.innerHTML = '<div class="col right"></div>';
    // v12 hands render hooks a jQuery object, v13 an HTMLElement
    const html = generation >= 13 ? hudRoot : [hudRoot];
    Hooks.callAll("renderTokenHUD", { object: { actor: rbE2E.guard } }, html, {});
    const sheetRoot = document.createElement("div");
    sheetRoot.innerHTML = '<section class="window-content"></section>';
    Hooks.callAll(generation >= 13 ? "renderActorSheetV2" : "renderActorSheet", { actor: rbE2E.guard }, generation >= 13 ? sheetRoot : [sheetRoot], {});
    const rows = (root) => [...root.querySelectorAll(".rb-track")].map((t) => `${t.dataset.track}:${t.dataset.value}/${t.dataset.max}`);
    return { hud: rows(hudRoot.querySelector(".col.right .rollbridge-hud")), sheet: rows(sheetRoot.querySelector(".window-content .rollbridge-sheet")) };
  }, GENERATION);
  assert.ok(panels.hud.includes(`physical:${physical.value}/10`), JSON.stringify(panels));
  assert.deepEqual(panels.sheet, panels.hud);

  step("the attack's card has the GM's undo button (the table's latest change)");
  const buttons = await page.evaluate((seq) => {
    const shown = [...document.querySelectorAll(`.rollbridge-card[data-seq="${seq}"] [data-rollbridge-action]`)];
    // held as drawn now: pressed after the table moved on, it races the events that redraw its card
    rbE2E.heldUndo = shown.find((b) => b.dataset.rollbridgeAction === "undo") ?? null;
    return shown.map((b) => b.dataset.rollbridgeAction);
  }, attack.seq);
  assert.deepEqual(buttons, ["undo"]);

  if (env.RB_SCREENSHOT) {
    step("screenshot of the attack's chat card, with its undo (the later changes take it away)");
    await page.locator(`li.chat-message:has(.rollbridge-card[data-seq="${attack.seq}"])`).screenshot({ path: env.RB_SCREENSHOT });
  }

  step("two unlinked goblins of one base actor take different damage");
  const goblins = await page.evaluate(async ({ sheet, generation }) => {
    const api = rbE2E.api();
    const [a, b] = rbE2E.goblinTokens;
    // the GM chooses the sr5 mapping by hand: NPCs' values go into their system data too
    await game.settings.set("rollbridge", "systemMapping", "sr5");
    for (const token of [a, b]) await api.addActor(token.actor, sheet);
    const seqOf = (u) => u.data["flags.rollbridge"]?.seq ?? u.data["flags.rollbridge.seq"];
    for (const [token, delta] of [[a, 2], [b, 5]]) {
      const reply = await api.request({ type: "adjust", actor: token.uuid, track: "physical", delta });
      await rbE2E.waitFor(() => FoundryStandin.log.updates.some((u) => u.token === token.id && seqOf(u) === reply.seq), 10000, `${token.name}'s update`);
    }
    // both tokens' HUD panels, side by side (the docs' screenshot)
    const box = document.createElement("section");
    box.id = "goblin-huds";
    box.style.cssText = "display:flex;gap:8px;width:520px;margin:6px;padding:6px;background:#e6dfcf;border:1px solid #000;border-radius:4px";
    document.body.prepend(box);
    const huds = [];
    for (const token of [a, b]) {
      const root = document.createElement("div");
      root.style.cssText = "flex:1;background:#f2eee4;padding:4px;border-radius:4px";
      root.innerHTML = `<h4 style="margin:0 0 4px">${token.name}</h4><div class="col right"></div>`;
      box.append(root);
      Hooks.callAll("renderTokenHUD", { object: { actor: token.actor, document: token } }, generation >= 13 ? root : [root], {});
      huds.push([...root.querySelectorAll(".rb-track")].map((t) => `${t.dataset.track}:${t.dataset.value}/${t.dataset.max}`));
    }
    const shown = (actor) => [actor.flags.rollbridge?.view, actor.flags.rollbridge?.limited, actor.flags.rollbridge?.common?.tracks ?? null];
    return {
      ids: [a.delta.flags.rollbridge?.actorId, b.delta.flags.rollbridge?.actorId],
      uuids: [a.uuid, b.uuid],
      flags: [shown(a.actor), shown(b.actor)],
      system: [a.actor.system.track.physical.value, b.actor.system.track.physical.value],
      base: { flags: structuredClone(rbE2E.goblin.flags.rollbridge ?? null), physical: rbE2E.goblin.system.track.physical.value },
      huds,
    };
  }, { sheet: sheets["Guard A"], generation: GENERATION });
  assert.deepEqual(goblins.ids, goblins.uuids, "each token's actor is keyed by its token's UUID");
  assert.deepEqual(goblins.flags, [["players", true, []], ["players", true, []]], "each delta's flags: the players' view");
  assert.deepEqual(goblins.system, [2, 5], "the sr5 mapping the GM chose, through each token's delta");
  assert.deepEqual(goblins.base, { flags: null, physical: 0 }, "the shared base actor is never written");
  assert.ok(goblins.huds[0].includes("physical:2/10") && goblins.huds[1].includes("physical:5/10"), JSON.stringify(goblins.huds));
  summary.goblins = { physical: goblins.system };

  step("the card's buttons on the real server: the first attack's card lost its undo, a press that raced it sends nothing, a fresh one undoes its attack");
  const undone = await page.evaluate(async ({ seq, dice }) => {
    const api = rbE2E.api();
    const undoOf = (cardSeq) => document.querySelector(`.rollbridge-card[data-seq="${cardSeq}"] [data-rollbridge-action="undo"]`);
    const press = (cardSeq) => undoOf(cardSeq).click();
    // the goblins' changes came after the first attack: its card was drawn again without its undo
    const shownAfter = Boolean(undoOf(seq));
    const before = FoundryStandin.log.notifications.length;
    const lastSeq = api.status().cursor.seq;
    rbE2E.heldUndo.click(); // the undo as drawn before them, pressed as they come
    await rbE2E.waitFor(() => FoundryStandin.log.notifications.length > before, 5000, "the stale undo's notice");
    const stale = { shownAfter, notice: FoundryStandin.log.notifications.at(-1).text, seq: api.status().cursor.seq, lastSeq };
    const [a] = rbE2E.goblinTokens;
    const physical = () => a.actor.system.track.physical.value; // the sr5 mapping the GM chose
    const hitBefore = physical();
    const event = await api.resolve("attack", { actor: rbE2E.tukan, targets: [a.uuid], params: { weapon: "Hackler", rounds: 3, range: "short" }, dice });
    await rbE2E.waitFor(() => document.querySelector(`.rollbridge-card[data-seq="${event.seq}"] [data-rollbridge-action="undo"]`), 10000, "the new card's undo");
    await rbE2E.waitFor(() => physical() !== hitBefore, 10000, "Goblin A's damage");
    const hit = physical();
    press(event.seq);
    await rbE2E.waitFor(() => physical() === hitBefore, 10000, "the undo");
    const record = game.settings.get("rollbridge", "mapped")?.marks ?? [];
    const marks = record.filter((mark) => mark.key === a.actor.uuid).map(({ mapping, actorId }) => ({ mapping, actorId }));
    return { stale, hitBefore, hit, after: physical(), flags: Object.keys(a.actor.flags.rollbridge).sort(), marks, actorId: a.actor.flags.rollbridge.actorId };
  }, { seq: attack.seq, dice: [6, 3, 6, 4, 5, 6, 1, 2, 4, 6, 2, 4, 1, 3] });
  const notLatest = await page.evaluate(() => game.i18n.localize("ROLLBRIDGE.Button.NotLatest"));
  assert.equal(undone.stale.shownAfter, false, "the first attack's card follows the table: no undo once it is not the latest");
  assert.equal(undone.stale.notice, `rollbridge: ${notLatest}`);
  assert.equal(undone.stale.seq, undone.stale.lastSeq, "nothing was undone");
  assert.ok(undone.hit > undone.hitBefore, JSON.stringify(undone));
  assert.equal(undone.after, undone.hitBefore, "the undo took the attack back");
  // that the sr5 mapping the GM chose by hand wrote the GM's values is in the GM's
  // record (the hidden world setting `mapped`), no longer in a flag a player could
  // write (docs/foundry.md, System mappings; the merge of 7 December 2026, night,
  // left this test expecting the flag)
  assert.deepEqual(undone.flags, ["actorId", "common", "epoch", "limited", "name", "seq", "table", "view"]);
  assert.deepEqual(undone.marks, [{ mapping: "sr5", actorId: undone.actorId }], JSON.stringify(undone));
  summary.undo = undone;

  if (env.RB_SCREENSHOT_TOKENS) {
    step("screenshot of the two goblins' panels");
    await page.locator("#goblin-huds").screenshot({ path: env.RB_SCREENSHOT_TOKENS });
  }

  step("drop the connection");
  const before = await page.evaluate(() => rbE2E.api().status());
  await page.evaluate(() => {
    NetworkStandin.offline = true;
    NetworkStandin.drop();
  });
  await page.evaluate(() => rbE2E.waitFor(() => rbE2E.api().status().status === "waiting", 10000, "the drop to be noticed"));
  // a roll asked for while the link is down waits for it
  await page.evaluate(() => {
    window.offlineRoll = rbE2E.api().roll("1d20", { flavor: "asked while offline" });
    window.offlineRoll.then((event) => { window.offlineRollEvent = event; });
  });
  // meanwhile another client changes the table (a plain WebSocket in another page)
  const other = await context.newPage();
  const changes = await other.evaluate(async ({ url, token, table }) => {
    const ws = new WebSocket(url);
    await new Promise((resolve, reject) => { ws.onopen = resolve; ws.onerror = () => reject(new Error("no connection")); });
    const reply = (id) => new Promise((resolve) => {
      ws.addEventListener("message", function listen(e) {
        const m = JSON.parse(e.data);
        if (m.id === id) { ws.removeEventListener("message", listen); resolve(m); }
      });
    });
    ws.send(JSON.stringify({ type: "hello", id: "h", table, token }));
    await reply("h");
    ws.send(JSON.stringify({ type: "adjust", id: "offline-adjust", actor: "fvttGuard0000002", track: "stun", delta: 3 }));
    const adjusted = await reply("offline-adjust");
    ws.send(JSON.stringify({ type: "roll", id: "offline-roll", formula: "2d6", label: "rolled while Foundry was away" }));
    const rolled = await reply("offline-roll");
    ws.close();
    return { adjustSeq: adjusted.seq, rollSeq: rolled.seq };
  }, { url: env.RB_WS_URL, token: TOKEN, table: env.RB_TABLE });
  await other.close();
  await page.waitForTimeout(1500); // a reconnect attempt or two fails while "offline"

  step("reconnect and resume");
  await page.evaluate(() => { NetworkStandin.offline = false; });
  const resumed = await page.evaluate(async ({ adjustSeq, rollSeq }) => {
    const api = rbE2E.api();
    await rbE2E.waitFor(() => api.status().status === "connected", 40000, "the reconnect");
    await rbE2E.waitFor(() => document.querySelector(`.rollbridge-card[data-seq="${rollSeq}"]`), 10000, "the missed roll's card");
    await rbE2E.waitFor(
      () => FoundryStandin.log.updates.some((u) => u.actor === "fvttGuard0000002" && (u.data["flags.rollbridge"]?.seq ?? u.data["flags.rollbridge.seq"]) === adjustSeq),
      10000, "the missed adjustment",
    );
    await rbE2E.waitFor(() => window.offlineRollEvent, 10000, "the roll asked while offline");
    const seq = window.offlineRollEvent.seq;
    await rbE2E.waitFor(() => document.querySelector(`.rollbridge-card[data-seq="${seq}"]`), 10000, "its card");
    return {
      status: api.status(),
      offlineRollSeq: seq,
      guardStun: rbE2E.guard.system.track.stun.value,
      cards: [...document.querySelectorAll(".rollbridge-card")].map((c) => Number(c.dataset.seq)),
      refused: NetworkStandin.stats.refused,
      notices: FoundryStandin.log.notifications.map((n) => n.text),
      savedCursor: game.settings.get("rollbridge", "cursor"),
    };
  }, changes);
  const stats = resumed.status.stats;
  assert.ok(resumed.refused >= 1, "reconnect attempts failed while offline");
  assert.ok(stats.resumes >= 1 && stats.recovered >= 1, JSON.stringify(stats));
  assert.ok(stats.missed >= 2, JSON.stringify(stats));
  assert.equal(stats.snapshots, before.stats.snapshots, "resumed, not started over");
  assert.ok(resumed.offlineRollSeq > changes.rollSeq);
  assert.equal(resumed.guardStun, 3);
  // every card once, in seq order, none missing
  const cards = resumed.cards;
  assert.deepEqual(cards, [...cards].sort((a, b) => a - b));
  assert.equal(new Set(cards).size, cards.length);
  assert.ok(cards.includes(changes.rollSeq) && cards.includes(resumed.offlineRollSeq));
  assert.equal(resumed.savedCursor.seq, resumed.status.cursor.seq);
  const reconnecting = await page.evaluate(() => game.i18n.localize("ROLLBRIDGE.Notice.Reconnecting"));
  assert.ok(resumed.notices.includes(`rollbridge: ${reconnecting}`), JSON.stringify(resumed.notices));
  summary.resume = { before: before.cursor, after: resumed.status.cursor, stats, changes, offlineRollSeq: resumed.offlineRollSeq };

  step("the token stays out of the console and the page");
  const html = await page.content();
  assert.ok(!html.includes(TOKEN), "token in the page");
  for (const line of consoleLines) assert.ok(!line.includes(TOKEN), "token in the console");
  assert.ok(!page.url().includes(TOKEN));
  assert.deepEqual(pageErrors, []);
  // every key the module asked for has an English string, every placeholder was filled,
  // and a language rollbridge has needed no English fallback
  const i18n = await page.evaluate(() => ({ problems: game.i18n.problems, fallbacks: [...new Set(game.i18n.fallbacks)] }));
  assert.deepEqual(i18n.problems, [], JSON.stringify(i18n.problems));
  if (LANG !== "pl") assert.deepEqual(i18n.fallbacks, []);
  summary.i18n = { lang: LANG, fallbacks: i18n.fallbacks.length };
  summary.consoleLines = consoleLines.length;
  process.stdout.write(`RESULT ${JSON.stringify(summary)}\n`);
} catch (error) {
  process.stdout.write(`FAILED ${error.stack ?? error}\n`);
  process.stdout.write(`console: ${JSON.stringify(consoleLines.slice(-30).map((l) => l.split(TOKEN).join("[token]")))}\n`);
  process.stdout.write(`page errors: ${JSON.stringify(pageErrors)}\n`);
  process.exitCode = 1;
} finally {
  await context.close();
}
