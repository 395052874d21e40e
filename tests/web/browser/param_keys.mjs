// A ruleset that gives no words for its parameters, on the web view
// (tests/web/test_web_param_keys.py): a Czech GM on a laptop and a Russian player on a
// phone at the table `plain`, whose players' requests wait for the GM. RB_CASE names
// the case; prints one line `RESULT {json}` of what the pages showed.
//
// Environment: RB_BASE (http://127.0.0.1:PORT), RB_TOKENS (JSON: table → role →
// token; never printed), RB_CHROMIUM, RB_CASE.

import { DESKTOP, caseScript, joinedPage, runCase, SMALL_PHONE } from "./pages.mjs";

const { BASE, TOKENS, trouble } = caseScript("param_keys");

/** The names of the fields of the action form on `page` (the actor's and targets' too). */
const fieldNames = (page) => page.$$eval("#action label", (labels) => labels.map((label) => label.firstChild?.textContent?.trim() ?? ""));

const cases = {
  /** The form's fields and the request waiting, as the GM's list and the player's own
   * log entry say them. */
  async words(browser, result) {
    const url = `${BASE}/tables/plain`;
    const gm = await joinedPage(browser, "gm", { ...DESKTOP, locale: "cs-CZ" }, trouble, url, TOKENS.plain.gm);
    const player = await joinedPage(browser, "player", { ...SMALL_PHONE, locale: "ru-RU" }, trouble, url,
      TOKENS.plain.player);
    for (const page of [gm, player]) await page.locator("#action-select").selectOption("strike");
    result.gmFields = await fieldNames(gm);
    result.playerFields = await fieldNames(player);
    const form = player.locator("#action form");
    await form.locator('input[name="target"][value="guard"]').check();
    await form.locator('input[name="extra_dice"]').fill("2");
    await form.locator('input[name="aim"]').fill("1");
    await form.locator('button[type="submit"]').click();
    const item = gm.locator("#pending li.pending-item").first();
    await item.waitFor();
    result.gmList = await item.textContent();
    const mine = player.locator("#log li.kind-mine").first();
    await mine.waitFor();
    result.mine = await mine.textContent();
  },
};

await runCase(cases, trouble);
