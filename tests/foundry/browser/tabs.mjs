// The browser test of one player with the table open in two tabs of one Chromium
// (docs/foundry.md, "Two tabs of one browser"): a GM page and two pages of Ivan on the
// stand-in page, one origin, so Ivan's tabs share one localStorage and Chromium's own
// Web Locks (`navigator.locks`), against a real `rollbridge serve` (started by
// tests/foundry/test_foundry_browser.py) whose table holds players' requests for the
// GM's approval. Ivan's GM roll of 2d6 waits in his first tab; his second tab opens
// and reads it back; the GM approves. Both tabs get the approval's placeholder; one of
// them asks for the roll again and posts Ivan's card, the other finds it settled: one
// card whispered to Ivan, one `secret` reply, the held list emptied (before the fix
// both tabs asked and both posted the card). Then a GM roll waits in each tab: the
// stored list keeps both (before the fix the second tab wrote its own copy over the
// first's, and the first roll was lost for a reload).
//
// With RB_PAGE_HOST (a host name Chromium is told is 127.0.0.1) the pages come over
// plain HTTP from that name: not a secure context, so no `navigator.locks`. Both of
// Ivan's tabs are open before his GM roll, which waits in the first; the second reads
// it back from the stored list, and at the GM's approval only the first asks for it
// again: one card (before, the second asked too, and posted a second card).
// Prints one line `RESULT {json}`; exits non-zero on any failure.
//
// Environment: RB_PAGE_BASE, RB_WS_URL, RB_TOKENS (JSON {gm, ivan}; never printed),
// RB_CHROMIUM, RB_USER_DATA, RB_PAGE_HOST (optional).

import assert from "node:assert/strict";
import process from "node:process";

import { chromium } from "playwright-core";

import { failed, passed } from "./ending.mjs";
import { ARGS } from "./launch.mjs";

const env = process.env;
const TOKENS = JSON.parse(env.RB_TOKENS);
const SECRETS = Object.values(TOKENS);
const USERS = [
  { _id: "standinGM000001", name: "Gamemaster", isGM: true },
  { _id: "standinIvan0001", name: "Ivan" },
];
const IVAN = USERS[1]._id;
// the pages from a host name over plain HTTP (no Web Locks), or from 127.0.0.1 (a secure context)
const HOST = env.RB_PAGE_HOST ?? null;
const PAGE_BASE = HOST ? env.RB_PAGE_BASE.replace("//127.0.0.1:", `//${HOST}:`) : env.RB_PAGE_BASE;
const LAUNCH = HOST ? [...ARGS, `--host-resolver-rules=MAP ${HOST} 127.0.0.1`] : ARGS;

const summary = {};
const consoleLines = [];
const pageErrors = [];
// every frame each page's connections sent and received, parsed
const frames = {};
const step = (name) => process.stderr.write(`tabs: ${name}\n`);

const context = await chromium.launchPersistentContext(env.RB_USER_DATA, {
  executablePath: env.RB_CHROMIUM, headless: true, args: LAUNCH, viewport: { width: 900, height: 1000 },
});
context.setDefaultTimeout(30_000);

async function openClient(key, user, token) {
  const page = await context.newPage();
  frames[key] = { sent: [], received: [] };
  page.on("console", (m) => consoleLines.push(`${key}: ${m.text()}`));
  page.on("pageerror", (e) => pageErrors.push(`${key}: ${e}`));
  page.on("websocket", (ws) => {
    ws.on("framesent", ({ payload }) => frames[key].sent.push(JSON.parse(String(payload))));
    ws.on("framereceived", ({ payload }) => frames[key].received.push(JSON.parse(String(payload))));
  });
  await page.addInitScript((t) => { window.__RB_E2E__ = { token: t }; }, token);
  const query = new URLSearchParams({ ws: env.RB_WS_URL, generation: "13", lang: "en", user, users: JSON.stringify(USERS) });
  await page.goto(`${PAGE_BASE}?${query}`);
  await page.waitForFunction(() => window.rbE2E?.ready === true);
  await page.evaluate(() => rbE2E.waitFor(() => rbE2E.api().status().status === "connected", 20000, "connected"));
  return page;
}

/** Wait (polling from here, the pages' state and frames) until `check()` is truthy. */
async function until(check, what) {
  for (let i = 0; i < 300; i++) {
    const value = await check();
    if (value) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

// the held list in the tabs' shared localStorage, and the Web Locks held or asked for.
// The list is read in one go after the locks' query: the module removes its key once
// the list empties, and a key found before that await could be gone after it (the
// other tab settled the roll meanwhile: "Cannot read properties of null", CI)
const held = (page) => page.evaluate(async () => {
  const { held: holding = [], pending = [] } = navigator.locks ? await navigator.locks.query() : {};
  const key = Object.keys(localStorage).find((k) => k.startsWith("rollbridge.held."));
  const list = key ? JSON.parse(localStorage.getItem(key) ?? "null") : null;
  return {
    stored: list ? list.held.map(([id]) => id) : [],
    locks: [...holding, ...pending].map((l) => l.name).filter((n) => n.startsWith("rollbridge.held.")),
  };
});

// Ivan's own cards of request `id`, as the GM's page has the world's chat
const ivansCards = (gm, id) => gm.evaluate(({ id, ivan }) => game.messages
  .filter((m) => m.flags.rollbridge?.requester && m.flags.rollbridge?.request === id)
  .map((m) => ({ author: m.author, whisper: [...m.whisper], seq: m.flags.rollbridge.seq })), { id, ivan: IVAN });

try {
  step("the GM, and Ivan's first tab");
  const gm = await openClient("gm", USERS[0]._id, TOKENS.gm);
  const first = await openClient("first", IVAN, TOKENS.ivan);
  summary.webLocks = await first.evaluate(() => typeof navigator.locks?.request === "function" && window.isSecureContext);
  assert.equal(summary.webLocks, !HOST, HOST ? "no Web Locks over plain HTTP from a host name" : "Chromium gives a page of 127.0.0.1 its Web Locks");
  await gm.evaluate(() => rbE2E.api().request({ type: "settings", settings: { approval: true } }));
  // without Web Locks, his second tab is open before the roll (opened after it, it
  // would take the roll back as its own and ask it too: docs/foundry.md)
  const early = HOST ? await openClient("second", IVAN, TOKENS.ivan) : null;

  step("Ivan's GM roll waits for the GM in his first tab");
  const roll = (page, flavor) => page.evaluate(async (f) => structuredClone(await rbE2E.api().roll("2d6", { rollMode: "gmroll", flavor: f })), flavor);
  const reply = await roll(first, "first tab");
  assert.equal(reply.status, "pending", JSON.stringify(reply));
  const id = reply.id;
  await until(async () => (await held(first)).stored.includes(id), "the held roll kept in localStorage");

  step("his second tab reads it back");
  const second = early ?? (await openClient("second", IVAN, TOKENS.ivan));
  if (early) await until(async () => (await held(second)).stored.includes(id), "the second tab's copy of the stored list has it");
  else await until(() => frames.second.received.some((m) => m.id === id && m.status === "pending"), "the second tab's repeat answered pending");

  step("the GM approves");
  await gm.evaluate((pending) => rbE2E.api().request({ type: "approve", request: pending }), reply.pending);
  const tabs = ["first", "second"];
  const answered = (key) => frames[key].received.filter((m) => m.id === id).length;
  const asked = (key) => frames[key].sent.filter((m) => m.id === id).length;
  const secrets = () => tabs.flatMap((key) => frames[key].received.filter((m) => m.id === id && m.status === "secret"));
  // settled: both tabs had the placeholder, every ask of the roll answered, no tab holds
  // or waits for the held list's lock, the roll gone from it, a card for each secret reply
  const settled = await until(async () => {
    if (!tabs.every((key) => frames[key].received.some((m) => m.type === "event" && m.kind === "hidden"))) return null;
    if (!tabs.every((key) => asked(key) === answered(key))) return null;
    const state = await held(first);
    if (state.locks.length || state.stored.includes(id) || !secrets().length) return null;
    const cards = await ivansCards(gm, id);
    return cards.length >= secrets().length ? { cards, state } : null;
  }, "both tabs done with the approved roll");
  summary.asked = Object.fromEntries(tabs.map((key) => [key, frames[key].sent.filter((m) => m.id === id && m.repeat).length]));
  summary.secretReplies = secrets().length;
  summary.cards = settled.cards;
  assert.equal(settled.cards.length, 1, `one card of Ivan's for one roll: ${JSON.stringify(settled.cards)}`);
  assert.deepEqual(settled.cards[0].whisper, [IVAN], "whispered to Ivan alone");
  assert.equal(summary.secretReplies, 1, "asked again after the approval by one tab only");
  assert.deepEqual(await held(second), { stored: [], locks: [] }, "the second tab sees the list empty");

  step("a GM roll of his waits in each tab");
  const third = await roll(first, "first tab again");
  const fourth = await roll(second, "second tab");
  assert.deepEqual([third.status, fourth.status], ["pending", "pending"]);
  // both kept: the second tab's write merged into the list, not its own copy written over it
  const both = await until(async () => {
    const state = await held(second);
    return state.stored.includes(fourth.id) && !state.locks.length ? state.stored : null;
  }, "the second tab's roll kept");
  summary.keptBoth = [third.id, fourth.id].every((r) => both.includes(r));
  assert.deepEqual([...both].sort(), [third.id, fourth.id].sort(), "a roll held in each tab, both kept");

  await passed({ pages: { gm, first, second }, secrets: SECRETS, consoleLines, pageErrors, summary });
} catch (error) {
  failed(error, { secrets: SECRETS, consoleLines, pageErrors });
} finally {
  await context.close();
}
