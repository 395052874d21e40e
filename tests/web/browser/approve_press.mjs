// The GM's press on *Approve* while another request comes in, in headless Chromium
// against a real rollbridge server (started by tests/web/test_web_approve_press.py):
// the list of waiting requests is drawn anew at every change of the table, and drawn
// anew between the press and its release it took the pressed button away — the
// click never came and nothing was approved. RB_HOW "mouse" presses with the mouse,
// "touch" with a finger (the DevTools protocol's touch events). Prints one line
// `RESULT {json}` of what the pages showed; the Python test judges it.
//
// Environment: RB_BASE (http://127.0.0.1:PORT), RB_TOKENS (JSON: table → role →
// token; never printed), RB_CHROMIUM, RB_CASE, RB_HOW.

import process from "node:process";

import { DESKTOP, PHONE, joinedPage, runCase, seqOf, waitSeq } from "./pages.mjs";

const env = process.env;
const BASE = env.RB_BASE;
const TOKENS = JSON.parse(env.RB_TOKENS);
const trouble = { errors: [], dialogs: [] };

function step(name) {
  process.stderr.write(`approve_press: ${name}\n`);
}

const cases = {
  async press(browser, result) {
    const how = env.RB_HOW ?? "mouse";
    step("the player asks a first roll; the GM's list shows it");
    const { gm, player, ask, at, touch } = await firstAsked(browser, how);
    result.underPress = await gm.evaluate(({ x, y }) => document.elementFromPoint(x, y) === window.rbApprove, at);
    step(`the GM presses Approve (${how})`);
    if (touch) await touch("touchStart");
    else {
      await gm.mouse.move(at.x, at.y);
      await gm.mouse.down();
    }
    step("another request comes in while it is pressed");
    const seq = await seqOf(gm);
    await ask("3d6", "second ask");
    await waitSeq(gm, seq + 1);
    result.whilePressed = await gm.evaluate(() => ({
      same: document.contains(window.rbApprove),
      items: document.querySelectorAll("#pending li.pending-item").length,
    }));
    step("the press is lifted");
    if (touch) await touch("touchEnd");
    else await gm.mouse.up();
    const approved = player.locator("#log li.kind-roll", { hasText: "first ask" });
    result.approved = await approved.waitFor({ timeout: 20_000 }).then(() => true, () => false);
    // drawn anew after the click: the second request waits, the first is gone
    await gm.waitForFunction(() => !document.contains(window.rbApprove));
    await gm.locator("#pending li.pending-item", { hasText: "second ask" }).waitFor();
    result.after = await gm.$$eval("#pending li.pending-item", (items) => items.map((i) => i.textContent));
  },

  // A press that never ends with a click: the mouse's right button, whose context menu
  // takes its release (Chromium on Linux and macOS opens it at the press), or a long
  // press of a finger, which opens the phone's menu. The list waited for a lift that
  // never came: requests coming in were not shown until the GM clicked somewhere.
  async menu(browser, result) {
    const how = env.RB_HOW ?? "mouse";
    const { gm, ask, touch, at } = await firstAsked(browser, how);
    step(`the GM opens the menu on Approve (${how})`);
    if (touch) {
      await touch("touchStart");
      // Chromium's long press, stand-in: the contextmenu event it sends the page
      await gm.evaluate(() => window.rbApprove.dispatchEvent(
        new MouseEvent("contextmenu", { bubbles: true, cancelable: true })));
    } else {
      await gm.mouse.move(at.x, at.y);
      await gm.mouse.down({ button: "right" }); // its release goes to the menu
    }
    step("another request comes in");
    const seq = await seqOf(gm);
    await ask("3d6", "second ask");
    await waitSeq(gm, seq + 1);
    result.items = await gm.$$eval("#pending li.pending-item", (items) => items.map((i) => i.textContent));
    if (touch) await touch("touchEnd");
  },

  // The table changes between the lift and the task after it (its own approval's
  // event, another message already waiting): the list is drawn then with the latest,
  // and the drawing that waited for the lift is dropped — it drew "undefined" over it.
  // The page's timers are held from the lift until the list is drawn (injected
  // scheduling, as dice are seeded): that order, which is a race in use, every time.
  async between(browser, result) {
    const { gm, ask, at } = await firstAsked(browser, "mouse");
    await gm.mouse.move(at.x, at.y);
    await gm.mouse.down();
    const seq = await seqOf(gm);
    await ask("3d6", "second ask");
    await waitSeq(gm, seq + 1);
    await gm.evaluate(() => {
      window.rbHeld = [];
      window.rbSetTimeout = window.setTimeout;
      window.setTimeout = (callback, _ms, ...args) => window.rbHeld.push(() => callback(...args));
    });
    step("the press is lifted; the approval's event comes before the task after it");
    await gm.mouse.up();
    await gm.waitForFunction(() => !document.contains(window.rbApprove));
    result.held = await gm.evaluate(() => window.rbHeld.length);
    await gm.evaluate(() => {
      window.setTimeout = window.rbSetTimeout;
      window.rbHeld.splice(0).forEach((run) => run());
    });
    result.after = await gm.$eval("#pending", (box) => ({
      items: [...box.querySelectorAll("li.pending-item")].map((i) => i.textContent),
      text: box.textContent,
    }));
  },
};

/** The GM's page and a player's, the player's first request in the GM's list, its
 * *Approve* kept as `window.rbApprove` and where it is (`at`); `touch` presses and
 * lifts a finger there on a phone (else null: the GM is at a laptop). */
async function firstAsked(browser, how) {
  const url = `${BASE}/tables/approval`;
  const gm = await joinedPage(browser, "gm", how === "touch" ? { ...PHONE, locale: "en-US" }
    : { ...DESKTOP, locale: "en-US" }, trouble, url, TOKENS.approval.gm);
  const player = await joinedPage(browser, "player", { ...PHONE, locale: "en-US" }, trouble, url,
    TOKENS.approval.player);
  const ask = async (formula, label) => {
    const form = player.locator("form.roll-form");
    await form.locator('input[name="formula"]').fill(formula);
    await form.locator('input[name="label"]').fill(label);
    await form.locator('button[type="submit"]').click();
  };
  await ask("2d6", "first ask");
  const first = gm.locator("#pending li.pending-item", { hasText: "first ask" });
  await first.waitFor();
  const approve = first.locator('button[name="approve"]');
  await approve.evaluate((node) => { window.rbApprove = node; });
  await approve.scrollIntoViewIfNeeded();
  const box = await approve.boundingBox();
  const at = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
  const cdp = how === "touch" ? await gm.context().newCDPSession(gm) : null;
  const touch = cdp && ((type) => cdp.send("Input.dispatchTouchEvent", {
    type, touchPoints: type === "touchEnd" ? [] : [{ x: at.x, y: at.y }] }));
  return { gm, player, ask, at, touch };
}

await runCase(cases, trouble);
