// The browser test of each viewer's card in its own language: four Foundry
// clients of one world (four pages of one Chromium, on the stand-in page, whose
// chat messages travel between the pages as Foundry's server would carry them)
// and a real `rollbridge serve` (started by tests/foundry/test_foundry_browser.py):
//
//   Gamemaster  cs  the GM token: the writer, posts the cards
//   Ivan        ru  his own player token and connection
//   Greta       de  her own player token and connection
//   Paul        en  no token, no connection
//
// One attack: the stored card is Czech; Ivan's and Greta's clients draw it again
// from the event their own connections received (the server's Russian / German
// narration, the module's ru.json / de.json words); Paul sees the stored card, the
// players' view, which the GM's client draws again from the GM's own event.
// A blind (GM-only) roll is not drawn for the players. The stored messages are
// never changed. On v12 the render hook is renderChatMessage (jQuery), on v13
// renderChatMessageHTML (HTMLElement), each card drawn once. Greta's events come
// late, after the message: her card is drawn when her connection has the event.
// Prints one line `RESULT {json}`; exits non-zero on any failure.
//
// Environment: RB_PAGE_BASE (the stand-in page's URL without its query), RB_WS_URL,
// RB_TABLE, RB_TOKENS (JSON {gm, ivan, greta}; never printed), RB_SHEETS (JSON),
// RB_GENERATION (12 or 13), RB_CHROMIUM, RB_USER_DATA.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import process from "node:process";

import { chromium } from "playwright-core";

import { failed, passed } from "./ending.mjs";
import { ARGS } from "./launch.mjs";
import { castTukanAndGuard } from "./worldpages.mjs";

const env = process.env;
const TOKENS = JSON.parse(env.RB_TOKENS);
const SECRETS = Object.values(TOKENS);
const sheets = JSON.parse(env.RB_SHEETS);
const GENERATION = Number(env.RB_GENERATION ?? 13);
const HOOK = GENERATION >= 13 ? "renderChatMessageHTML" : "renderChatMessage";
const MODULE = new URL("../../../adapters/foundry/module/", import.meta.url);
const LANG_FILE = (lang) => JSON.parse(readFileSync(new URL(`lang/${lang}.json`, MODULE), "utf8")).ROLLBRIDGE;

const USERS = [
  { _id: "standinGM000001", name: "Gamemaster", isGM: true },
  { _id: "standinIvan0001", name: "Ivan" },
  { _id: "standinGreta001", name: "Greta" },
  { _id: "standinPaul0001", name: "Paul" },
];
const CLIENTS = [
  { key: "gm", user: "standinGM000001", lang: "cs", token: TOKENS.gm },
  { key: "ivan", user: "standinIvan0001", lang: "ru", token: TOKENS.ivan },
  { key: "greta", user: "standinGreta001", lang: "de", token: TOKENS.greta },
  { key: "paul", user: "standinPaul0001", lang: "en", token: null },
];

const summary = { generation: GENERATION, hook: HOOK };
const consoleLines = [];
const pageErrors = [];
const step = (name) => process.stderr.write(`languages: ${name}\n`);

const context = await chromium.launchPersistentContext(env.RB_USER_DATA, {
  executablePath: env.RB_CHROMIUM, headless: true, args: ARGS, viewport: { width: 900, height: 1200 },
});
context.setDefaultTimeout(30_000);

async function openClient({ key, user, lang, token }) {
  const page = await context.newPage();
  page.on("console", (m) => consoleLines.push(`${key}: ${m.text()}`));
  page.on("pageerror", (e) => pageErrors.push(`${key}: ${e}`));
  await page.addInitScript((t) => { window.__RB_E2E__ = t ? { token: t } : {}; }, token);
  const query = new URLSearchParams({
    ws: env.RB_WS_URL, generation: String(GENERATION), lang, user, users: JSON.stringify(USERS),
  });
  await page.goto(`${env.RB_PAGE_BASE}?${query}`);
  await page.waitForFunction(() => window.rbE2E?.ready === true);
  if (token) {
    await page.evaluate(() => rbE2E.waitFor(() => rbE2E.api().status().status === "connected", 20000, "connected"));
  }
  return page;
}

// what one client shows of one message, and what its own connection received
function seen(page, { id, table, epoch, seq }) {
  return page.evaluate(async ({ id, table, epoch, seq }) => {
    await rbE2E.waitFor(() => game.messages.get(id), 10000, `message ${id}`);
    const message = game.messages.get(id);
    const li = document.querySelector(`#chat-log li[data-message-id="${id}"]`);
    const card = li?.querySelector(".rollbridge-card") ?? null;
    const own = rbE2E.api().cachedEvent(table, epoch, seq);
    return {
      lang: game.i18n.lang,
      status: rbE2E.api().status().status,
      role: rbE2E.api().status().role,
      rendered: Boolean(li),
      renders: FoundryStandin.log.rendered.filter((r) => r.message === id),
      stored: message.content,
      storedFlags: structuredClone(message.flags.rollbridge),
      shown: li?.querySelector(".message-content")?.innerHTML ?? null,
      cardLang: card?.dataset.lang ?? null,
      cardView: card?.dataset.view ?? null,
      storedNarration: (() => {
        const t = document.createElement("template");
        t.innerHTML = message.content;
        return t.content.querySelector(".rb-narration")?.textContent ?? null;
      })(),
      narration: card?.querySelector(".rb-narration")?.textContent ?? null,
      how: card?.querySelector(".rb-steps summary")?.textContent ?? null,
      outcome: [...(card?.querySelectorAll(".rb-outcome li span") ?? [])].map((s) => s.textContent),
      statuses: [...(card?.querySelectorAll(".rb-status") ?? [])].map((s) => s.textContent),
      text: card?.textContent ?? null,
      own: own ? { narration: own.data.narration, steps: own.data.steps ?? [], limited: (own.actors ?? []).map((a) => [a.id, Boolean(a.limited)]) } : null,
      words: {
        how: game.i18n.localize("ROLLBRIDGE.Card.How"),
        hit: game.i18n.localize("ROLLBRIDGE.Card.Outcome.hit"),
      },
      cursor: rbE2E.api().status().cursor,
    };
  }, { id, table, epoch, seq });
}

try {
  step("four clients of one world: the players first, then the GM");
  const pages = {};
  for (const client of CLIENTS.slice(1)) pages[client.key] = await openClient(client);
  pages.gm = await openClient(CLIENTS[0]);
  const roles = {};
  for (const [key, page] of Object.entries(pages)) roles[key] = await page.evaluate(() => rbE2E.api().status());
  assert.equal(roles.gm.role, "gm");
  assert.equal(roles.gm.writer, true);
  for (const key of ["ivan", "greta"]) {
    assert.equal(roles[key].role, "player", key);
    assert.equal(roles[key].writer, false, key);
  }
  assert.equal(roles.paul.status, "off");
  for (const [key, page] of Object.entries(pages)) {
    const hooks = await page.evaluate(() => ({ v12: "renderChatMessage" in Hooks.events, v13: "renderChatMessageHTML" in Hooks.events }));
    // v13 would fire the deprecated hook (and warn) if anything listened to it
    assert.deepEqual(hooks, { v12: GENERATION < 13, v13: true }, key);
  }

  // Greta's connection hands its events over 3 s late, so that her client renders
  // the message before it holds the event: the card is drawn when the event comes
  await pages.greta.evaluate(() => {
    const handlers = rbE2E.api().connection.handlers;
    const onEvent = handlers.onEvent;
    handlers.onEvent = (event) => setTimeout(() => onEvent(event), 3000);
  });

  step("the GM resolves an attack");
  await castTukanAndGuard(pages.gm, sheets);
  const posted = await pages.gm.evaluate(async () => {
    const event = await rbE2E.api().resolve("attack", {
      actor: rbE2E.tukan, targets: [rbE2E.guard],
      params: { weapon: "Hackler", rounds: 3, range: "short" },
      dice: [6, 3, 6, 4, 5, 6, 1, 2, 4, 6, 2, 4, 1, 3],
    });
    await rbE2E.waitFor(() => FoundryStandin.log.messages.find((m) => m.flags?.rollbridge?.seq === event.seq), 10000, "the card");
    const message = FoundryStandin.log.messages.find((m) => m.flags.rollbridge.seq === event.seq);
    return { id: message.id, table: message.flags.rollbridge.table, epoch: event.epoch, seq: event.seq };
  });
  assert.ok(posted.table, "the card's flags name the table");

  step("what each client shows");
  const views = {};
  views.gm = await seen(pages.gm, posted);
  const early = await pages.greta.evaluate(async ({ id, table, epoch, seq }) => {
    const li = await rbE2E.waitFor(() => document.querySelector(`#chat-log li[data-message-id="${id}"]`), 10000, "the message");
    return { held: Boolean(rbE2E.api().cachedEvent(table, epoch, seq)), lang: li.querySelector(".rollbridge-card")?.dataset.lang ?? null };
  }, posted);
  assert.deepEqual(early, { held: false, lang: null }, "Greta's client rendered the message before it held the event");
  for (const [key, lang] of [["ivan", "ru"], ["greta", "de"]]) {
    // the client draws the card once its own connection has the event
    await pages[key].evaluate(({ id, lang }) => rbE2E.waitFor(
      () => document.querySelector(`#chat-log li[data-message-id="${id}"] .rollbridge-card[data-lang="${lang}"]`),
      10000, `the card in ${lang}`,
    ), { id: posted.id, lang });
    views[key] = await seen(pages[key], posted);
  }
  views.paul = await seen(pages.paul, posted);

  // the stored card: Czech, written by the GM's client from the players' view, the
  // same on every client; the GM's own client draws it again from the GM's event
  const gm = views.gm;
  assert.equal(gm.storedFlags.lang, "cs");
  assert.equal(gm.storedFlags.locale, "cs");
  assert.equal(gm.storedFlags.secret, false);
  assert.equal(gm.storedFlags.view, "players");
  assert.equal(gm.cardLang, "cs", "the writer's card, drawn again from the GM's own event");
  assert.equal(gm.cardView, "gm");
  assert.ok(gm.own && gm.narration === gm.own.narration, "the GM's card holds the GM's narration");
  assert.ok(/[áčďéěíňóřšťúůýž]/.test(gm.narration), gm.narration);
  assert.equal(gm.how, LANG_FILE("cs").Card.How);
  for (const key of ["ivan", "greta", "paul"]) {
    assert.equal(views[key].stored, gm.stored, `${key}: the stored message is unchanged`);
    assert.deepEqual(views[key].storedFlags, gm.storedFlags, key);
  }
  for (const [key, view] of Object.entries(views)) {
    assert.deepEqual(view.renders.map((r) => r.shown), [true], `${key}: rendered once`);
  }

  // Ivan (ru) and Greta (de): the card in their language, from their own connection
  for (const [key, lang, letters] of [["ivan", "ru", /[а-яё]/i], ["greta", "de", /[a-zäöüß]/i]]) {
    const v = views[key];
    const words = LANG_FILE(lang).Card;
    assert.equal(v.lang, lang);
    assert.equal(v.cardLang, lang, key);
    assert.equal(v.cardView, "players", key);
    assert.ok(v.own, `${key}: its connection received the event`);
    assert.equal(v.narration, v.own.narration, `${key}: the narration the server sent this player`);
    assert.notEqual(v.narration, gm.narration, `${key}: not the GM's narration`);
    assert.ok(letters.test(v.narration), `${key}: ${v.narration}`);
    for (const s of v.own.steps) assert.ok(v.text.includes(s), `${key}: step ${s}`);
    assert.equal(v.how, words.How, `${key}: ${lang}.json's word for How`);
    assert.equal(v.how, v.words.how);
    assert.ok(v.outcome.includes(words.Outcome.hit), `${key}: ${JSON.stringify(v.outcome)}`);
    assert.ok(!v.text.includes(LANG_FILE("cs").Card.How), `${key}: no Czech word left`);
    // the players' view: the guard (an NPC) reached this player limited
    assert.ok(v.own.limited.some(([id, limited]) => id === "fvttGuard0000002" && limited), JSON.stringify(v.own.limited));
  }
  assert.match(views.ivan.narration, /[а-яё]/i);
  assert.notEqual(views.ivan.narration, views.greta.narration);

  // Paul has no connection: the stored Czech card (the players' view), as posted
  assert.equal(views.paul.own, null);
  assert.equal(views.paul.cardLang, null);
  assert.equal(views.paul.shown, gm.stored);
  assert.equal(views.paul.narration, gm.storedNarration);
  summary.attack = Object.fromEntries(Object.entries(views).map(([k, v]) => [k, { lang: v.lang, card: v.cardLang, view: v.cardView, narration: v.narration, stored: v.storedNarration, how: v.how }]));

  step("the render hook twice on one element draws the card once");
  const twice = await pages.ivan.evaluate(async ({ id, hook }) => {
    const message = game.messages.get(id);
    const li = document.createElement("li");
    li.innerHTML = `<div class="message-content">${message.content}</div>`;
    const html = hook === "renderChatMessageHTML" ? li : new FoundryStandin.StandinJQuery([li]);
    Hooks.callAll(hook, message, html, {});
    const first = li.querySelector(".rollbridge-card");
    Hooks.callAll(hook, message, html, {});
    return { lang: first?.dataset.lang ?? null, same: li.querySelector(".rollbridge-card") === first, cards: li.querySelectorAll(".rollbridge-card").length };
  }, { id: posted.id, hook: HOOK });
  assert.deepEqual(twice, { lang: "ru", same: true, cards: 1 });

  step("a blind roll: GM-only");
  const secret = await pages.gm.evaluate(async () => {
    const before = FoundryStandin.log.messages.length;
    const reply = await rbE2E.api().roll("2d6", { rollMode: "blindroll", flavor: "secret" });
    await rbE2E.waitFor(() => FoundryStandin.log.messages.length > before, 10000, "the secret card");
    const message = FoundryStandin.log.messages.at(-1);
    return { id: message.id, table: message.flags.rollbridge.table, epoch: message.flags.rollbridge.epoch, seq: message.flags.rollbridge.seq, whisper: message.whisper, blind: message.blind, secret: message.flags.rollbridge.secret, reply: reply?.status ?? null };
  });
  assert.equal(secret.secret, true);
  assert.equal(secret.blind, true);
  assert.deepEqual(secret.whisper, ["standinGM000001"]);
  for (const key of ["ivan", "greta", "paul"]) {
    const v = await pages[key].evaluate(async ({ id, table, epoch, seq, hook }) => {
      await rbE2E.waitFor(() => game.messages.get(id), 10000, "the secret message");
      const api = rbE2E.api();
      if (api.status().status === "connected") {
        // the player's connection got the seq, as a hidden event
        await rbE2E.waitFor(() => (api.status().cursor?.seq ?? 0) >= seq, 10000, "the hidden event");
      }
      const message = game.messages.get(id);
      // even handed the stored card by some other renderer, the module draws nothing for a player
      const li = document.createElement("li");
      li.innerHTML = `<div class="message-content">${message.content}</div>`;
      Hooks.callAll(hook, message, hook === "renderChatMessageHTML" ? li : new FoundryStandin.StandinJQuery([li]), {});
      return {
        inLog: Boolean(document.querySelector(`#chat-log li[data-message-id="${id}"]`)),
        renders: FoundryStandin.log.rendered.filter((r) => r.message === id).map((r) => r.shown),
        own: api.cachedEvent(table, epoch, seq),
        drawn: li.querySelector(".rollbridge-card")?.dataset.lang ?? null,
        unchanged: li.querySelector(".message-content").innerHTML === message.content,
      };
    }, { ...secret, hook: HOOK });
    assert.deepEqual(v, { inLog: false, renders: [false], own: null, drawn: null, unchanged: true }, key);
  }
  summary.secret = { seq: secret.seq };

  step("viewers wrote nothing");
  for (const key of ["ivan", "greta", "paul"]) {
    const wrote = await pages[key].evaluate(() => ({
      updates: FoundryStandin.log.updates.length,
      own: FoundryStandin.log.messages.filter((m) => m.author === game.user.id).length,
      settings: FoundryStandin.log.settingsSet,
      compatibility: FoundryStandin.log.compatibility,
      problems: game.i18n.problems,
      fallbacks: [...new Set(game.i18n.fallbacks)],
    }));
    assert.deepEqual(wrote, { updates: 0, own: 0, settings: [], compatibility: [], problems: [], fallbacks: [] }, key);
  }
  const gmLog = await pages.gm.evaluate(() => ({ compatibility: FoundryStandin.log.compatibility, problems: game.i18n.problems }));
  assert.deepEqual(gmLog, { compatibility: [], problems: [] });

  step("the message rendered again, with another module listening to the v12 hook");
  const again = await pages.ivan.evaluate(async ({ id, generation }) => {
    const message = game.messages.get(id);
    const foreign = [];
    // on v13 this makes Foundry fire the deprecated hook after renderChatMessageHTML
    Hooks.on("renderChatMessage", (_m, html) => foreign.push(html instanceof FoundryStandin.StandinJQuery));
    const element = generation >= 13 ? await message.renderHTML() : (await message.getHTML())[0];
    const cards = element.querySelectorAll(".rollbridge-card");
    return {
      lang: cards[0]?.dataset.lang ?? null, cards: cards.length, foreign,
      compatibility: FoundryStandin.log.compatibility.length,
      narration: cards[0]?.querySelector(".rb-narration")?.textContent ?? null,
    };
  }, { id: posted.id, generation: GENERATION });
  assert.deepEqual(again, {
    lang: "ru", cards: 1, foreign: [true], compatibility: GENERATION >= 13 ? 1 : 0, narration: views.ivan.narration,
  });

  await passed({ pages: pages, secrets: SECRETS, consoleLines, pageErrors, summary });
} catch (error) {
  failed(error, { secrets: SECRETS, consoleLines, pageErrors });
} finally {
  await context.close();
}
