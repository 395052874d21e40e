// The pages of one stand-in world in one headless Chromium (rejection.mjs, languages.mjs,
// playerpage.mjs): the browser launched, and each user's page opened with its own
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
 * The page of `user` (an id of `users`, the world's) in `context`, English, on the
 * generation `generation`, with `token`; connected. Its console lines and errors go to
 * `consoleLines` and `pageErrors`, prefixed with `key`; `onPage(page)` runs before
 * it loads (a test's listeners).
 */
export async function openWorldPage(context, { key, user, token, users, generation, consoleLines, pageErrors, onPage = null }, env = process.env) {
  const page = await context.newPage();
  page.on("console", (m) => consoleLines.push(`${key}: ${m.text()}`));
  page.on("pageerror", (e) => pageErrors.push(`${key}: ${e}`));
  onPage?.(page);
  await page.addInitScript((t) => { window.__RB_E2E__ = { token: t }; }, token);
  const query = new URLSearchParams({ ws: env.RB_WS_URL, generation: String(generation), lang: "en", user, users: JSON.stringify(users) });
  await page.goto(`${env.RB_PAGE_BASE}?${query}`);
  await page.waitForFunction(() => window.rbE2E?.ready === true);
  await page.evaluate(() => rbE2E.waitFor(() => rbE2E.api().status().status === "connected", 20000, "connected"));
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
