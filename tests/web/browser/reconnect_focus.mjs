// Where the focus goes once *Reconnect now* is gone (tests/web/test_web_reconnect_focus.py),
// in headless Chromium against a real rollbridge server: a Czech player's phone at the
// table `web` loses its network; the player goes to *Reconnect now* by keyboard and
// presses it; the network comes back and the page is connected again. What has the
// focus then, and what the live region was told. RB_CASE: "back".
//
// Environment: RB_BASE, RB_TOKENS (never printed), RB_CHROMIUM, RB_CASE.
import { PHONE, caseScript, joinedPage, listen, runCase, told } from "./pages.mjs";

const { BASE, TOKENS, trouble, step } = caseScript("reconnect_focus");

const cases = {
  async back(browser, result) {
    const page = await joinedPage(browser, "player-cs", { ...PHONE, locale: "cs-CZ" }, trouble, `${BASE}/tables/web`,
      TOKENS.web.player);
    await listen(page);
    step("the network lost; Reconnect now pressed by keyboard");
    await page.context().setOffline(true);
    await page.waitForSelector('body[data-status="offline"]');
    await page.locator("#reconnect").focus();
    await page.keyboard.press("Enter");
    result.pressed = await page.evaluate(() => document.activeElement?.id ?? null);
    step("the network back");
    await page.context().setOffline(false);
    await page.waitForSelector('body[data-status="connected"]');
    result.back = await page.evaluate(() => ({ focused: document.activeElement?.id || document.activeElement?.tagName,
      reconnectHidden: document.getElementById("reconnect").hidden }));
    result.told = await told(page);
  },
};

await runCase(cases, trouble);
