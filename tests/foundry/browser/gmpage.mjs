// One GM's page of the Foundry stand-in in headless Chromium, connected to the
// real server the test started: what serverdice.mjs and dialog.mjs open first.
// The page's console lines and errors are kept for a failure's report; the GM's
// token goes to the page before it loads (window.__RB_E2E__), never in its URL.
//
// Environment: RB_PAGE_BASE, RB_WS_URL, RB_TOKENS (JSON {gm}), RB_GENERATION (12
// or 13), RB_CHROMIUM, RB_USER_DATA.

import process from "node:process";

import { chromium } from "playwright-core";

import { ARGS } from "./launch.mjs";

/**
 * Launch Chromium and open the GM's page (English, the generation RB_GENERATION
 * names, `extra` more query fields), connected. Returns {context, page,
 * consoleLines, pageErrors, hide}: `hide(text)` blanks the token out of a report;
 * the caller closes `context`. A failure before the page is up closes it here.
 * @param {Record<string, string>} [extra]
 */
export async function openGmPage(extra = {}) {
  const env = process.env;
  const token = JSON.parse(env.RB_TOKENS).gm;
  const context = await chromium.launchPersistentContext(env.RB_USER_DATA, {
    executablePath: env.RB_CHROMIUM, headless: true, args: ARGS, viewport: { width: 900, height: 900 },
  });
  context.setDefaultTimeout(30_000);
  const consoleLines = [];
  const pageErrors = [];
  const hide = (text) => String(text).split(token).join("[token]");
  try {
    const page = await context.newPage();
    page.on("console", (m) => consoleLines.push(m.text()));
    page.on("pageerror", (e) => pageErrors.push(String(e)));
    await page.addInitScript((t) => { window.__RB_E2E__ = { token: t }; }, token);
    const query = new URLSearchParams({ ws: env.RB_WS_URL, generation: String(Number(env.RB_GENERATION ?? 13)), lang: "en", ...extra });
    await page.goto(`${env.RB_PAGE_BASE}?${query}`);
    await page.waitForFunction(() => window.rbE2E?.ready === true);
    await page.evaluate(() => rbE2E.waitFor(() => rbE2E.api().status().status === "connected", 20000, "connected"));
    return { context, page, consoleLines, pageErrors, hide };
  } catch (error) {
    await context.close();
    process.stderr.write(hide(`${error?.stack ?? error}\n--- console ---\n${consoleLines.join("\n")}\n${pageErrors.join("\n")}\n`));
    throw new Error("the GM's page did not come up");
  }
}
