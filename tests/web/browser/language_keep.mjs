// What a language's reload keeps, in headless Chromium against a real rollbridge
// server (started by tests/web/test_web_language_keep.py): the lines the page said
// beside its forms (the GM approved a request, rejected another, one still waits)
// said again in the language chosen, and a join token typed in and not accepted yet,
// which the tab keeps for that one reload only. RB_CASE names the case; prints one
// line `RESULT {json}` of what the pages showed and kept; the Python test judges it.
//
// Environment: RB_BASE (http://127.0.0.1:PORT), RB_TOKENS (JSON: table → role →
// token; never printed), RB_CHROMIUM, RB_CASE.

import process from "node:process";

import {
  DESKTOP, SMALL_PHONE, connected, fillAttack, gmRequest, joinedPage, openPage, runCase, seqOf, submitForm,
  tapWebSocket, waitSeq,
} from "./pages.mjs";

const env = process.env;
const BASE = env.RB_BASE;
const TOKENS = JSON.parse(env.RB_TOKENS);
const trouble = { errors: [], dialogs: [] };

function step(name) {
  process.stderr.write(`language_keep: ${name}\n`);
}

/** The lines a page shows: the message line, each form's outcome line, its
 * language, and the narration of the log's latest resolution. */
const linesOf = (page) => page.evaluate(() => ({
  lang: document.documentElement.lang,
  message: document.getElementById("message").textContent,
  roll: document.querySelector("form.roll-form .form-status")?.textContent ?? null,
  action: document.querySelector("#action form .form-status")?.textContent ?? null,
  narration: document.querySelector("#log li.kind-resolution .narration")?.textContent ?? null,
}));

/** Choose `lang` in the page's list and wait until the page is back at the table
 * in it, the log from before in. */
async function chooseAndWait(page, lang) {
  await Promise.all([page.waitForEvent("load"), page.selectOption("#language", lang)]);
  await page.waitForFunction((want) => document.documentElement.lang === want
    && document.body.dataset.status === "connected" && document.body.dataset.history !== undefined, lang);
}

/** Choose `action` in the page's action list; the lines once its form's line is
 * said again (a bound for a line that never comes back: the test then says what was
 * shown). */
async function chosenAction(page, action) {
  await page.selectOption("#action-select", action);
  await page.waitForFunction(() => document.querySelector("#action form .form-status")?.textContent !== "")
    .catch(() => {});
  return linesOf(page);
}

/** The lines once the action form's line is said again (a bound for a line that
 * never comes back: the test then says what was shown). */
async function actionLine(page) {
  await page.waitForFunction(() => document.querySelector("#action form .form-status")?.textContent !== "")
    .catch(() => {});
  return linesOf(page);
}

/** The tab's sessionStorage: whether any value holds `token`. */
const tabHolds = (page, token) => page.evaluate((t) => Object.values(sessionStorage).some((v) => v.includes(t)), token);

/** Record each write to the tab's storage of the pages `page`'s context loads from
 * now on: [key, value] in the array returned. */
async function recordWrites(page) {
  const stored = [];
  await page.context().exposeBinding("rbStored", (source, key, value) => { stored.push([key, value]); });
  await page.context().addInitScript(() => {
    const setItem = Storage.prototype.setItem;
    Storage.prototype.setItem = function keep(key, value) {
      globalThis.rbStored(String(key), String(value));
      return setItem.call(this, key, value);
    };
  });
  return stored;
}

/** The page (keeper.mjs) that kept a value, or null. */
const keeperOf = (value) => { try { return JSON.parse(value).keeper ?? null; } catch { return null; } };

/** What `page`'s tab holds now, each key by the page that kept it ("token" for the
 * token), and `reloadKeeper`: the page that kept the forms for the reload among the
 * writes `stored` from `from` on (the one that chose the language). A page keeps what
 * is typed as it is typed: the page loaded anew keeps its own. */
async function keptAfter(page, stored, from) {
  const kept = Object.fromEntries(Object.entries(await page.evaluate(() => Object.fromEntries(Object.entries(sessionStorage))))
    .map(([key, value]) => [key, key.startsWith("rollbridge.token.") ? "token" : keeperOf(value)]));
  // the forms written for the reload; none when they were saved as typed already and
  // had not changed since (kept.mjs writes only what changed): then the last before
  const forms = ([key]) => key.startsWith("rollbridge.forms.");
  const reload = stored.slice(from).find(forms) ?? stored.slice(0, from).findLast(forms);
  return { kept, reloadKeeper: keeperOf(reload?.[1]) };
}

const cases = {
  /** A Czech player's roll rejected and success test approved by the GM, then
   * Russian chosen; then a roll waiting for the GM, German chosen, and the GM
   * approving it after the reload. */
  async lines(browser, result) {
    const url = `${BASE}/tables/approval`;
    const gm = await joinedPage(browser, "gm", { ...DESKTOP, locale: "en-US" }, trouble, url, TOKENS.approval.gm);
    const player = await joinedPage(browser, "player", { ...SMALL_PHONE, locale: "cs-CZ" }, trouble, url,
      TOKENS.approval.player);
    const stored = await recordWrites(player);
    const answerOne = async (button) => {
      const before = await seqOf(player);
      await gm.locator("#pending li.pending-item").first().waitFor();
      await gm.click(`#pending button[name="${button}"]`);
      await waitSeq(player, before + 1);
    };
    step("a roll the GM rejects");
    const rollForm = player.locator("form.roll-form");
    await submitForm(rollForm, { formula: "3d6", label: "no way" });
    await answerOne("reject");
    step("a success test the GM approves");
    await player.selectOption("#action-select", "success_test");
    const actionForm = player.locator("#action form");
    await submitForm(actionForm, { dice: "3", tn: "4" });
    await answerOne("approve");
    await player.locator("#log li.kind-resolution .narration").first().waitFor();
    result.czech = await linesOf(player);
    step("Russian chosen");
    await chooseAndWait(player, "ru");
    // the action chosen, the success test, is kept chosen by the reload
    result.russian = await chosenAction(player, "success_test");
    step("a roll waiting for the GM, German chosen, then approved");
    await submitForm(rollForm, { formula: "2d6", label: "later" });
    result.waitingRu = await linesOf(player);
    result.pending = await gm.locator("#pending [data-pending]").first().getAttribute("data-pending");
    await chooseAndWait(player, "de");
    await player.waitForFunction(() => document.querySelector("form.roll-form .form-status")?.textContent !== "");
    result.waitingDe = await linesOf(player);
    await answerOne("approve");
    await player.locator("#log li.kind-roll", { hasText: "later" }).first().waitFor();
    await player.waitForFunction((before) => document.getElementById("message").textContent !== before,
      result.waitingDe.message);
    result.approvedDe = await linesOf(player);
    step("a roll the server refuses, in German, then English chosen");
    await rollForm.locator('input[name="formula"]').fill("2x");
    await rollForm.locator('button[type="submit"]').click();
    await rollForm.locator('.form-status[data-kind="error"]').waitFor();
    result.refusedDe = await linesOf(player);
    const storedFrom = stored.length;
    await chooseAndWait(player, "en");
    await rollForm.locator('.form-status[data-kind="error"]').waitFor().catch(() => {});
    result.refusedEn = { ...(await linesOf(player)),
      code: await rollForm.locator(".form-status").getAttribute("data-code") };
    Object.assign(result, await keptAfter(player, stored, storedFrom));
  },

  /** A language chosen in the list by keyboard: where the focus is once the page
   * loaded anew; then after a reload that is no language's choice. */
  async focusBack(browser, result) {
    const url = `${BASE}/tables/web`;
    const page = await joinedPage(browser, "focus", { ...DESKTOP, locale: "en-US" }, trouble, url, TOKENS.web.player);
    await page.focus("#language");
    await Promise.all([page.waitForEvent("load"), page.keyboard.press("ArrowDown")]);
    await page.waitForFunction(() => document.documentElement.lang !== "en"
      && document.body.dataset.status === "connected");
    result.keyboard = await page.evaluate(() => ({
      lang: document.documentElement.lang, focus: document.activeElement?.id ?? null,
    }));
    step("a second reload, not a language's: the focus as after any join");
    await page.reload();
    await page.waitForFunction(() => document.body.dataset.status === "connected");
    result.plainReload = await page.evaluate(() => document.activeElement?.id || document.activeElement?.tagName);
  },

  /** A language chosen in the list with the mouse (a click on the list, the option
   * then chosen in it), and on a phone by touch (a tap): where the focus is once the
   * page loaded anew. */
  async mouseChoice(browser, result) {
    const url = `${BASE}/tables/web`;
    const page = await joinedPage(browser, "mouse", { ...DESKTOP, locale: "en-US" }, trouble, url, TOKENS.web.player);
    const box = await page.locator("#language").boundingBox();
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    result.clicked = await page.evaluate(() => document.activeElement?.id ?? null);
    await Promise.all([page.waitForEvent("load"), page.selectOption("#language", "de")]);
    await page.waitForFunction(() => document.documentElement.lang === "de"
      && document.body.dataset.status === "connected");
    result.after = await page.evaluate(() => document.activeElement?.id || document.activeElement?.tagName);
    step("a phone: the list tapped");
    const phone = await joinedPage(browser, "touch", { ...SMALL_PHONE, locale: "en-US" }, trouble, url, TOKENS.web.player);
    await phone.tap("#language");
    await Promise.all([phone.waitForEvent("load"), phone.selectOption("#language", "cs")]);
    await phone.waitForFunction(() => document.documentElement.lang === "cs"
      && document.body.dataset.status === "connected");
    result.touch = await phone.evaluate(() => document.activeElement?.id || document.activeElement?.tagName);
  },

  /** A token typed into the join form on a slow line (its hello held), a language
   * chosen before the server answered. */
  async typedToken(browser, result) {
    const page = await openPage(browser, "typed", { ...SMALL_PHONE, locale: "en-US" }, trouble);
    const gate = await tapWebSocket(page);
    const typeToken = async (token) => {
      await page.waitForSelector("#join:not([hidden])");
      await page.fill("#token", token);
      await page.press("#token", "Enter");
      await gate.until(() => gate.held.length > 0);
    };
    /** Choose `lang` while the hello waits; the page loaded anew, its hello held again. */
    const chooseWhileHeld = async (lang) => {
      await Promise.all([page.waitForEvent("load"), page.selectOption("#language", lang)]);
      gate.held.splice(0); // the old page's hello, on a line gone with it
      await page.waitForFunction((want) => document.documentElement.lang === want, lang);
    };
    gate.hold = true;
    await page.goto(`${BASE}/tables/web`);
    step("the player's token typed, German chosen before the server answered");
    await typeToken(TOKENS.web.player);
    await chooseWhileHeld("de");
    await gate.until(() => gate.held.length > 0); // the reloaded page joins with it once
    result.reloaded = { heldHello: gate.held.length > 0, tabHolds: await tabHolds(page, TOKENS.web.player) };
    step("reloaded again before the server answered: the token is not there any more");
    const attempts = gate.attempts;
    gate.held.splice(0);
    await page.reload();
    await page.waitForSelector("#join:not([hidden])");
    result.again = { join: true, tries: gate.attempts - attempts, tabHolds: await tabHolds(page, TOKENS.web.player) };
    step("typed again, Czech chosen, then the server answers: kept as any token that joined");
    await typeToken(TOKENS.web.player);
    await chooseWhileHeld("cs");
    await gate.until(() => gate.held.length > 0);
    gate.release();
    await connected(page);
    result.accepted = { tabHolds: await tabHolds(page, TOKENS.web.player) };
    step("a wrong token typed, a language chosen, then refused: nothing kept");
    await page.click("#leave");
    gate.hold = true;
    await typeToken("rbt_not-a-token-of-this-table");
    await chooseWhileHeld("en");
    await gate.until(() => gate.held.length > 0);
    gate.release();
    await page.waitForSelector('body[data-status="refused"]');
    result.refused = { tabHolds: await tabHolds(page, "rbt_not-a-token-of-this-table"),
      kept: await page.evaluate(() => Object.keys(sessionStorage)) };
    const before = gate.attempts;
    await page.reload();
    await page.waitForSelector("#join:not([hidden])");
    result.refused.tries = gate.attempts - before;
  },

  /** A tab that joined the table before (its token kept) opens a new link for it
   * (the GM gave the player another token) on a slow line, and a language is
   * chosen before the server answered. */
  async newLink(browser, result) {
    const page = await openPage(browser, "new-link", { ...SMALL_PHONE, locale: "en-US" }, trouble);
    const gate = await tapWebSocket(page);
    const roleOf = (token) => Object.entries(TOKENS.web).find(([, t]) => t === token)?.[0] ?? "other";
    const helloRole = () => roleOf(JSON.parse(gate.held.at(-1)[1]).token);
    step("joined as the observer: the tab keeps that token");
    await page.goto(`${BASE}/tables/web#token=${TOKENS.web.observer}`);
    await connected(page);
    step("the player's new link opened in the same tab, its hello held");
    await page.goto("about:blank");
    gate.hold = true;
    await page.goto(`${BASE}/tables/web#token=${TOKENS.web.player}`);
    await gate.until(() => gate.held.length > 0);
    result.first = helloRole();
    step("German chosen before the server answered");
    await Promise.all([page.waitForEvent("load"), page.selectOption("#language", "de")]);
    gate.held.splice(0); // the old page's hello, on a line gone with it
    await gate.until(() => gate.held.length > 0);
    result.reloaded = helloRole();
    gate.release();
    await connected(page);
    result.tabHolds = { player: await tabHolds(page, TOKENS.web.player),
      observer: await tabHolds(page, TOKENS.web.observer) };
  },

  /** A player's roll waits for the GM; the player chooses German and, while the
   * page loads anew (its hello held), the GM approves it (RB_BUTTON "reject":
   * rejects it). */
  async approvedMeanwhile(browser, result) {
    const answer = env.RB_BUTTON ?? "approve";
    const url = `${BASE}/tables/approval`;
    const gm = await joinedPage(browser, "gm", { ...DESKTOP, locale: "en-US" }, trouble, url, TOKENS.approval.gm);
    const player = await joinedPage(browser, "player", { ...SMALL_PHONE, locale: "cs-CZ" }, trouble, url,
      TOKENS.approval.player, { tap: true });
    step("a roll waiting for the GM");
    await submitForm(player.locator("form.roll-form"), { formula: "2d6", label: "meanwhile" });
    result.waiting = await linesOf(player);
    step("German chosen, the reloaded page's hello held");
    player.gate.hold = true;
    await Promise.all([player.waitForEvent("load"), player.selectOption("#language", "de")]);
    player.gate.held.splice(0); // the old page's frames, on a line gone with it
    await player.gate.until(() => player.gate.held.length > 0);
    step(`the GM answers it (${answer}) before the page has joined again`);
    const before = await seqOf(gm);
    await gm.locator("#pending li.pending-item").first().waitFor();
    await gm.click(`#pending button[name="${answer}"]`);
    await waitSeq(gm, before + 1);
    player.gate.release();
    await player.waitForFunction(() => document.documentElement.lang === "de"
      && document.body.dataset.status === "connected" && document.body.dataset.history !== undefined
      && document.querySelector("form.roll-form") !== null);
    if (answer === "approve") await player.locator("#log li.kind-roll", { hasText: "meanwhile" }).first().waitFor();
    result.after = await linesOf(player);
  },

  /** A player's attack (not the action the list chooses first) waits for the GM;
   * the player chooses Russian, then German, then Russian again: the attack stays
   * chosen (what was typed is kept), its line said again in each. */
  async otherAction(browser, result) {
    const url = `${BASE}/tables/approval`;
    const player = await joinedPage(browser, "player", { ...SMALL_PHONE, locale: "cs-CZ" }, trouble, url,
      TOKENS.approval.player);
    step("an attack waiting for the GM");
    await player.selectOption("#action-select", "attack");
    const form = player.locator("#action form");
    await fillAttack(form);
    await form.locator('input[name="target"][value="guard-a"]').check();
    await form.locator(".form-status").evaluate((line) => { line.textContent = ""; });
    await form.locator('button[type="submit"]').click();
    await form.locator(".form-status:not(:empty)").waitFor();
    result.czech = await linesOf(player);
    step("Russian chosen, then German, then Russian again");
    await chooseAndWait(player, "ru");
    result.first = await player.locator("#action-select").inputValue();
    await chooseAndWait(player, "de");
    result.german = await actionLine(player);
    await chooseAndWait(player, "ru");
    result.russian = await actionLine(player);
  },

  /** A Czech player asks the odds of a roll, then rolls it on a table where the GM
   * approves each roll: its line says it waits, the odds stay open under it; German
   * chosen, the GM rejects it with a reason (as Foundry's GM does), Russian chosen. */
  async oddsUnderALine(browser, result) {
    const url = `${BASE}/tables/approval`;
    const player = await joinedPage(browser, "player", { ...SMALL_PHONE, locale: "cs-CZ" }, trouble, url,
      TOKENS.approval.player);
    const roll = player.locator("form.roll-form");
    /** The roll form's line and its odds' heading once the odds asked again are in. */
    const rollOf = async () => {
      await roll.locator(".form-odds table").waitFor();
      return { ...(await linesOf(player)), odds: await roll.locator(".form-odds thead th").first().textContent() };
    };
    step("the odds of 2d6 asked, then the roll, waiting for the GM");
    await roll.locator('input[name="formula"]').fill("2d6");
    await roll.locator('button[name="odds"]').click();
    await roll.locator(".form-odds table").waitFor();
    await submitForm(roll, { label: "odds open" });
    result.czech = await rollOf();
    const pending = result.czech.roll.match(/\((p\d+)\)/)?.[1] ?? null;
    step("German chosen: the line says it still waits, the odds asked again");
    await chooseAndWait(player, "de");
    result.german = await rollOf();
    step("the GM rejects it with a reason");
    const before = await seqOf(player);
    await gmRequest(player, "approval", TOKENS.approval.gm,
      { type: "reject", id: "odds-under-reason", request: pending, reason: "Not tonight" });
    await waitSeq(player, before + 1);
    await roll.locator(".form-status", { hasText: "Not tonight" }).waitFor();
    result.rejected = await rollOf();
    step("Russian chosen: the reason said again, the odds asked again");
    await chooseAndWait(player, "ru");
    result.russian = await rollOf();
  },

  /** A Czech player asks the odds of a roll and chooses German before the server
   * has answered (the odds request held on a slow line). */
  async oddsInFlight(browser, result) {
    const url = `${BASE}/tables/web`;
    const page = await joinedPage(browser, "odds-in-flight", { ...SMALL_PHONE, locale: "cs-CZ" }, trouble, url,
      TOKENS.web.player, { tap: true });
    const gate = page.gate;
    const typeOf = ([, message]) => JSON.parse(message).type;
    const roll = page.locator("form.roll-form");
    step("the odds of 3d6 asked, the answer not in yet");
    await roll.locator('input[name="formula"]').fill("3d6");
    gate.hold = true;
    await roll.locator('button[name="odds"]').click();
    await gate.until(() => gate.held.some((frame) => typeOf(frame) === "odds"));
    step("German chosen before the server answered");
    await Promise.all([page.waitForEvent("load"), page.selectOption("#language", "de")]);
    await gate.until(() => gate.held.some((frame) => typeOf(frame) === "hello"));
    // the old page's odds went with its line: only the page loaded anew is let through
    const line = gate.held.find((frame) => typeOf(frame) === "hello")[0];
    gate.held = gate.held.filter(([server]) => server === line);
    gate.release();
    await page.waitForFunction(() => document.documentElement.lang === "de"
      && document.body.dataset.status === "connected" && document.body.dataset.history !== undefined);
    // a bound for odds never asked again: the test then says what was shown
    await roll.locator(".form-odds table").waitFor().catch(() => {});
    result.after = await page.evaluate(() => ({
      formula: document.querySelector('form.roll-form [name="formula"]')?.value ?? null,
      odds: document.querySelector("form.roll-form .form-odds thead th")?.textContent ?? null,
    }));
    result.oddsAsked = gate.sent.map((frame) => JSON.parse(frame)).filter((m) => m.type === "odds")
      .map((m) => m.formula);
  },

  /** A Czech player types into the roll form and the attack's (the odds of both
   * shown, a fold opened, the player's own token pasted into the label by mistake),
   * then chooses German: what is typed comes back, the odds are asked again, and the
   * token was never put in the tab's storage but under the tab's own token key. */
  async typed(browser, result) {
    const url = `${BASE}/tables/web`;
    const page = await openPage(browser, "typed-forms", { ...SMALL_PHONE, locale: "cs-CZ" }, trouble);
    const stored = await recordWrites(page);
    page.gate = await tapWebSocket(page);
    await page.goto(`${url}#token=${TOKENS.web.player}`);
    await connected(page);
    step("the roll form and the attack's filled in, their odds shown, a fold opened");
    const roll = page.locator("form.roll-form");
    await roll.locator('input[name="formula"]').fill("3d6");
    await roll.locator('input[name="label"]').fill("sneaky");
    await roll.locator('button[name="odds"]').click();
    await roll.locator(".form-odds table").waitFor();
    await page.selectOption("#action-select", "attack");
    const attack = page.locator("#action form");
    await fillAttack(attack);
    await attack.locator('input[name="target"][value="rook"]').check();
    await attack.locator("details.more-params > summary").click();
    await attack.locator('input[name="modifier"]').fill("-1");
    await attack.locator('button[name="odds"]').click();
    await attack.locator(".form-odds table").waitFor();
    /** What the forms hold. */
    const formsOf = () => page.evaluate(() => {
      const valueOf = (form, name) => form?.querySelector(`[name="${name}"]`)?.value ?? null;
      const rollForm = document.querySelector("form.roll-form");
      const attackForm = document.querySelector('form[data-form="action:attack"]');
      return {
        lang: document.documentElement.lang,
        action: document.getElementById("action-select").value,
        formula: valueOf(rollForm, "formula"), label: valueOf(rollForm, "label"),
        weapon: valueOf(attackForm, "weapon"), skill: valueOf(attackForm, "skill"),
        pool: valueOf(attackForm, "attacker_pool"), rounds: valueOf(attackForm, "rounds"),
        modifier: valueOf(attackForm, "modifier"),
        open: attackForm?.querySelector("details.more-params")?.open ?? null,
        target: attackForm?.querySelector('input[name="target"]:checked')?.value ?? null,
        rollOdds: rollForm?.querySelector(".form-odds thead th")?.textContent ?? null,
        attackOdds: attackForm?.querySelector(".form-odds thead th")?.textContent ?? null,
        rollLine: rollForm?.querySelector(".form-status")?.textContent ?? null,
      };
    });
    result.before = await formsOf();
    step("the player's token pasted into the label, then German chosen");
    await roll.locator('input[name="label"]').fill(`sneaky ${TOKENS.web.player}`);
    const asked = page.gate.sent.length;
    const storedFrom = stored.length;
    await chooseAndWait(page, "de");
    await page.waitForFunction(() => document.querySelectorAll(".form-odds table").length === 2).catch(() => {});
    result.after = await formsOf();
    result.oddsAsked = page.gate.sent.slice(asked).map((frame) => JSON.parse(frame)).filter((m) => m.type === "odds")
      .map((m) => m.formula ?? m.action);
    Object.assign(result, await keptAfter(page, stored, storedFrom));
    const holding = stored.filter(([, value]) => value.includes(TOKENS.web.player));
    result.tokenStored = [...new Set(holding.map(([key]) => key))];
  },
};

await runCase(cases, trouble);
