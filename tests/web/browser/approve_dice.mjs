// The GM approves with the GM's own dice (tests/web/test_web_approve_dice.py): a
// player's request held with their own dice for an action that is always secret now
// (an upgrade), which the server refuses to approve without the GM's dice
// (`held_dice_secret`). RB_CASE names the case; prints one line `RESULT {json}` of
// what the pages showed; the Python test judges it.
//
// Environment: RB_BASE (http://127.0.0.1:PORT), RB_TOKENS (JSON: table → role →
// token; never printed), RB_CHROMIUM, RB_CASE, RB_PENDING (the request's pending id).

import process from "node:process";

import { DESKTOP, caseScript, flush, joinedPage, runCase } from "./pages.mjs";

const { BASE, TOKENS, trouble, step } = caseScript("approve_dice");
const PENDING = process.env.RB_PENDING;

/** The approvals the GM's page sent (its tapped frames). */
const approvals = (page) => page.gate.sent.map((frame) => JSON.parse(frame)).filter((m) => m.type === "approve")
  .map(({ request, dice }) => (dice === undefined ? { request } : { request, dice }));

const cases = {
  /** A German GM presses Approve (refused: the page says why, the dice field opens),
   * writes what is no die, too many dice and nothing (each said, nothing sent), then the die 9 with the keyboard
   * alone: approved. */
  async dice(browser, result) {
    const url = `${BASE}/tables/night`;
    const gm = await joinedPage(browser, "gm", { ...DESKTOP, locale: "de-DE" }, trouble, url, TOKENS.night.gm,
      { tap: true });
    const item = gm.locator(`#pending li.pending-item[data-pending="${PENDING}"]`);
    await item.waitFor();
    result.before = {
      open: await item.locator("button[name='dice-open']").getAttribute("aria-expanded"),
      hidden: await item.locator("form.dice-form").isHidden(),
    };
    step("Approve pressed");
    await item.locator("button[name='approve']").click();
    await item.locator("form.dice-form .dice-status:not(:empty)").waitFor();
    await flush(gm);
    result.refused = {
      message: await gm.textContent("#message"),
      code: await gm.getAttribute("#message", "data-code"),
      beside: await item.locator(".dice-status").textContent(),
      open: await item.locator("button[name='dice-open']").getAttribute("aria-expanded"),
      label: await item.locator("form.dice-form input[name='gm-dice']").evaluate((input) => input.labels[0]?.textContent),
      still: await item.count(),
      sent: approvals(gm),
    };
    step("no die written: said, nothing sent");
    const input = item.locator("form.dice-form input[name='gm-dice']");
    await input.focus();
    await gm.keyboard.type("neun");
    await gm.keyboard.press("Enter");
    await flush(gm);
    result.notDice = { beside: await item.locator(".dice-status").textContent(), sent: approvals(gm).length };
    step("1,001 dice, pasted: said, nothing sent");
    await input.fill(Array(1_001).fill("1234").join(", "));
    await input.press("Enter");
    await flush(gm);
    result.tooMany = { beside: await item.locator(".dice-status").textContent(), sent: approvals(gm).length,
      kept: (await input.inputValue()).length };
    step("nothing written");
    await input.fill("");
    await input.press("Enter");
    await flush(gm);
    result.nothing = { beside: await item.locator(".dice-status").textContent(), sent: approvals(gm).length };
    step("the die 9, with the keyboard alone");
    await input.fill("");
    await input.focus();
    await gm.keyboard.type("9");
    await gm.keyboard.press("Enter");
    await gm.locator("#pending li.empty").waitFor();
    await flush(gm);
    const entry = gm.locator("#log li.kind-resolution").first();
    await entry.waitFor();
    result.approved = {
      sent: approvals(gm),
      message: await gm.textContent("#message"),
      code: await gm.getAttribute("#message", "data-code"),
      secret: await entry.evaluate((li) => li.classList.contains("entry-secret")),
    };
  },
};

await runCase(cases, trouble);
