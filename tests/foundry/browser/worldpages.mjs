// The pages of one stand-in world in one headless Chromium (rejection.mjs,
// approvedice.mjs, approvaltitle.mjs, languages.mjs, playerpage.mjs): the browser launched, and each user's page opened with its own
// join token (handed to the page before it loads, window.__RB_E2E__, never in its
// URL), its console lines and errors kept for a failure's report, connected.

import process from "node:process";

import { chromium } from "playwright-core";

import { ARGS } from "./launch.mjs";

/** Chromium (RB_CHROMIUM, its profile RB_USER_DATA) with a 900 × 1000 viewport. */
export async function launchWorld(env = process.env) {
  const context = await chromium.launchPersistentContext(env.RB_USER_DATA, {
    executablePath: env.RB_CHROMIUM, headless: true, args: ARGS, viewport: { width: 900, height: 1000 },
  });
  context.setDefaultTimeout(30_000);
  return context;
}

/**
 * The page of `user` (an id of `users`, the world's) in `context`, in `lang` (English
 * unless said), on the generation `generation`, with `token`; connected (a page with
 * no token does not connect). Its console lines and errors go to `consoleLines` and
 * `pageErrors`, prefixed with `key`; `onPage(page)` runs before it loads (a test's
 * listeners).
 */
export async function openWorldPage(context, { key, user, token, users, generation, consoleLines, pageErrors, onPage = null, lang = "en" }, env = process.env) {
  const page = await context.newPage();
  page.on("console", (m) => consoleLines.push(`${key}: ${m.text()}`));
  page.on("pageerror", (e) => pageErrors.push(`${key}: ${e}`));
  onPage?.(page);
  await page.addInitScript((t) => { window.__RB_E2E__ = t ? { token: t } : {}; }, token);
  const query = new URLSearchParams({ ws: env.RB_WS_URL, generation: String(generation), lang, user, users: JSON.stringify(users) });
  await page.goto(`${env.RB_PAGE_BASE}?${query}`);
  await page.waitForFunction(() => window.rbE2E?.ready === true);
  if (token) await page.evaluate(() => rbE2E.waitFor(() => rbE2E.api().status().status === "connected", 20000, "connected"));
  return page;
}

/** The GM's `page` puts Tukan (Ivan's) and the guard on the table, from `sheets`
 * ({Tukan, "Guard A"}: sr2's example sheets). */
export function castTukanAndGuard(page, sheets) {
  return page.evaluate(async (s) => {
    const api = rbE2E.api();
    await api.addActor(rbE2E.tukan, s.Tukan, { controllers: ["ivan"] });
    await api.addActor(rbE2E.guard, s["Guard A"]);
  }, sheets);
}

/**
 * A walk of the GM's approval card (rejection.mjs, approvedice.mjs) in a world of the
 * GM and Ivan on the generation RB_GENERATION, their tokens RB_TOKENS ({gm, ivan}):
 * Chromium launched, and what the walk keeps — `summary` (its RESULT),
 * `consoleLines`, `pageErrors`, `sent` (every frame each page's connections sent,
 * parsed, by page key), `secrets` (the tokens) — with `step(name)` saying on stderr
 * where the walk is, and `ivanWaits()`: both pages opened, approval turned on by the
 * GM and a 2d6 of Ivan's waiting for it ({gm, ivan, reply}).
 * @param {string} name
 */
export async function approvalWalk(name, env = process.env) {
  const tokens = JSON.parse(env.RB_TOKENS);
  const generation = String(Number(env.RB_GENERATION ?? 13));
  const users = [{ _id: "standinGM000001", name: "Gamemaster", isGM: true }, { _id: "standinIvan0001", name: "Ivan" }];
  const walk = { summary: {}, consoleLines: [], pageErrors: [], sent: {}, secrets: Object.values(tokens) };
  walk.step = (what) => process.stderr.write(`${name}: ${what}\n`);
  walk.context = await launchWorld(env);
  const openClient = (key, user, token) => {
    walk.sent[key] = [];
    const onPage = (page) => page.on("websocket", (ws) => ws.on("framesent", ({ payload }) => walk.sent[key].push(JSON.parse(String(payload)))));
    return openWorldPage(walk.context, { key, user, token, users, generation, consoleLines: walk.consoleLines, pageErrors: walk.pageErrors, onPage }, env);
  };
  walk.ivanWaits = async () => {
    walk.step("the GM turns approval on; Ivan's roll waits");
    const gm = await openClient("gm", users[0]._id, tokens.gm);
    const ivan = await openClient("ivan", users[1]._id, tokens.ivan);
    await gm.evaluate(() => rbE2E.api().request({ type: "settings", settings: { approval: true } }));
    const reply = await ivan.evaluate(async () => structuredClone(await rbE2E.api().roll("2d6")));
    if (reply.status !== "pending") throw new Error(`Ivan's roll did not wait: ${JSON.stringify(reply)}`);
    return { gm, ivan, reply };
  };
  return walk;
}
