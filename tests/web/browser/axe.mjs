// axe-core's rules run on the table page (/tables/ID) in headless Chromium against
// a real rollbridge server (started by tests/web/test_web_axe.py): as the GM, a
// player and an observer, on a 1280×800 laptop and a 360×740 phone, at a table with
// actors, a log holding an attack, a roll and a rejection with the GM's reason, a
// request waiting for the GM's approval (its reason's field open on the GM's page),
// and the odds panel open under the roll form. Prints one line
// `RESULT {json}` of what axe found; the Python test judges it.
//
// axe_run.mjs puts axe-core in the page (through the DevTools protocol, which the
// page's Content-Security-Policy does not govern) and runs it.
//
// Environment: RB_BASE (http://127.0.0.1:PORT), RB_TOKENS (JSON: table → role →
// token; never printed), RB_CHROMIUM, RB_CASE.

import process from "node:process";

import { LAPTOP, axeViolations } from "./axe_run.mjs";
import { SMALL_PHONE, connected, gmRequest, joinedPage, openPage, runCase } from "./pages.mjs";

const env = process.env;
const BASE = env.RB_BASE;
const TOKENS = JSON.parse(env.RB_TOKENS);
const trouble = { errors: [], dialogs: [] };

/** The laptop and the narrow phone. */
const SCREENS = { laptop: LAPTOP, phone: SMALL_PHONE };

function step(name) {
  process.stderr.write(`axe: ${name}\n`);
}

const cases = {
  /** Every role on both screens, each after the odds of 3d6 were asked (not the
   * observer's page: it has no forms), with the statistics drawn and the log's steps
   * unfolded; and the join form before joining. */
  async table(browser, result) {
    step("the table: an attack in the log, a roll waiting for the GM");
    const setup = await joinedPage(browser, "setup", { ...LAPTOP, locale: "en-US" }, trouble,
      `${BASE}/tables/approval`, TOKENS.approval.gm);
    result.attack = await gmRequest(setup, "approval", TOKENS.approval.gm, { type: "resolve", id: "axe-attack",
      action: "attack", actor: "tukan", targets: ["guard-a"],
      params: { weapon: "Hackler", range: "short", rounds: 3, skill: 5, attacker_pool: 2 } });
    result.encounter = await gmRequest(setup, "approval", TOKENS.approval.gm, { type: "encounter.start", id: "axe-enc",
      order: ["tukan", "guard-a"] });
    const refused = await gmRequest(setup, "approval", TOKENS.approval.player, { type: "roll", id: "axe-refused",
      formula: "1d6", label: "may I not" });
    result.rejected = await gmRequest(setup, "approval", TOKENS.approval.gm, { type: "reject", id: "axe-reject",
      request: refused.pending, reason: "not now" });
    result.asked = await gmRequest(setup, "approval", TOKENS.approval.player, { type: "roll", id: "axe-asks",
      formula: "2d6", label: "may I" });
    await setup.close();
    result.pages = {};
    for (const role of ["gm", "player", "observer"]) {
      for (const [screen, options] of Object.entries(SCREENS)) {
        step(`${role} on a ${screen}`);
        const page = await joinedPage(browser, `${role}-${screen}`, { ...options, locale: "en-US" }, trouble,
          `${BASE}/tables/approval`, TOKENS.approval[role]);
        await page.waitForFunction(() => document.querySelectorAll("#log li[data-seq]").length >= 2);
        if (role === "gm") {
          // a waiting request's reason field open: its label, its button
          await page.locator("#pending li.pending-item").first().waitFor();
          await page.click('#pending button[name="reason-open"]');
          await page.locator('#pending input[name="reason"]').fill("not tonight");
        }
        if (role !== "observer") {
          const form = page.locator("form.roll-form");
          await form.locator('input[name="formula"]').fill("3d6");
          await form.locator('button[name="odds"]').click();
          await form.locator(".form-odds table").waitFor();
        }
        await connected(page);
        // the statistics drawn and every log entry's steps unfolded: axe reads them too
        await page.click('#stats-form button[type="submit"]');
        await page.waitForSelector("#stats .stats-panel");
        await page.$$eval("#log details", (all) => all.forEach((d) => { d.open = true; }));
        result.pages[`${role}-${screen}`] = await axeViolations(page);
        await page.context().close();
      }
    }
    for (const [screen, options] of Object.entries(SCREENS)) {
      step(`the join form on a ${screen}`);
      const page = await openPage(browser, `join-${screen}`, { ...options, locale: "en-US" }, trouble);
      await page.goto(`${BASE}/tables/approval`);
      await page.waitForSelector("#join:not([hidden])");
      result.pages[`join-${screen}`] = await axeViolations(page);
      await page.context().close();
    }
  },
};

await runCase(cases, trouble);
