// What a tab keeps of the forms for its next load (tests/web/test_web_drafts.py), in
// headless Chromium against a real rollbridge server: the drafts of a ruleset of many
// actions across a reload; what was typed in a tab killed while visible. RB_CASE names
// the case; prints one line `RESULT {json}` of what the pages showed; the Python test
// judges it.
//
// Environment: RB_BASE (http://127.0.0.1:PORT), RB_TOKENS (JSON: table → role →
// token; never printed), RB_CHROMIUM, RB_CASE, RB_ACTIONS (how many actions).

import process from "node:process";

import { PHONE, caseScript, crash, gmRequest, joinedPage, runCase, storageOf, tabHolding } from "./pages.mjs";

const { BASE, TOKENS, trouble, step } = caseScript("drafts");

/** The action form `name` on `page`, chosen and shown. */
async function choose(page, name) {
  await page.selectOption("#action-select", name);
  const form = page.locator(`form.action-form[data-action="${name}"]`);
  await form.waitFor();
  return form;
}

/** Type `text` into the note of the action form `form` (under its *more parameters*). */
async function note(form, text) {
  await form.locator("details.more-params > summary").click();
  await form.locator('[name="note"]').fill(text);
}

/** What the page's forms hold: the action chosen, its note, the roll's formula. */
const formsOf = async (page) => {
  const action = await page.locator("#action-select").inputValue();
  return {
    action,
    note: await page.locator(`form.action-form[data-action="${action}"] [name="note"]`).inputValue(),
    formula: await page.locator('form.roll-form input[name="formula"]').inputValue(),
  };
};

/** Fill the tab's sessionStorage on `page` to its quota: items of the first of
 * `sizes` characters until the quota refuses one, then of the next size, … The name of
 * the last error (QuotaExceededError), or null when 1,000 items of a size fit. */
const fillStorage = (page, sizes) => page.evaluate((lengths) => {
  let refused = null;
  for (const [round, length] of lengths.entries()) {
    const chunk = "x".repeat(length);
    refused = null;
    for (let i = 0; i < 1_000 && !refused; i++) {
      try {
        sessionStorage.setItem(`rb-test-fill-${round}-${i}`, chunk);
      } catch (error) {
        refused = error.name;
      }
    }
  }
  return refused;
}, sizes);

const cases = {
  /** A German player's phone types a note into `act03` (kept as typed), fills the
   * tab's storage to its quota (but a hundred characters), types a note of
   * RB_NOTE_LENGTH letters instead, and reloads: what the message line said once the
   * longer note was typed (and how), and what the page loaded anew shows. */
  async quota(browser, result) {
    const page = await joinedPage(browser, "player", { ...PHONE, locale: "de-DE" }, trouble, `${BASE}/tables/many`,
      TOKENS.many.player);
    const form = await choose(page, "act03");
    await note(form, "first plan");
    // kept as typed: a bound only for a page that keeps nothing while shown
    result.kept = await page.waitForFunction(() => Object.values(sessionStorage)
      .some((value) => value.includes("first plan")), null, { timeout: 10_000 }).then(() => true, () => false);
    step("the tab's storage full");
    result.full = await fillStorage(page, [100_000, 10_000, 1_000, 100]);
    const longer = "x".repeat(Number(process.env.RB_NOTE_LENGTH));
    await form.locator('[name="note"]').fill(longer);
    // the page says it; a bound only for a page that says nothing
    const message = page.locator("#message");
    result.said = await page.waitForFunction((before) => document.getElementById("message").textContent !== before,
      await message.textContent(), { timeout: 10_000 }).then(() => true, () => false);
    result.notice = { text: await message.textContent(), kind: await message.getAttribute("data-kind"),
      visible: await message.isVisible() };
    step("reloaded");
    await page.reload();
    await page.locator('body[data-status="connected"]').waitFor();
    const again = page.locator('form.action-form[data-action="act03"]');
    await again.waitFor();
    result.reloaded = {
      action: await page.locator("#action-select").inputValue(),
      note: await again.locator('[name="note"]').inputValue(),
      message: await message.textContent(),
    };
  },


  /** As `quota`, then the storage freed (the items that filled it removed) and the note
   * typed anew, short: what the message line says once that is kept. */
  async freed(browser, result) {
    const page = await joinedPage(browser, "player", { ...PHONE, locale: "de-DE" }, trouble, `${BASE}/tables/many`,
      TOKENS.many.player);
    const form = await choose(page, "act03");
    await note(form, "first plan");
    const keptHolding = (text) => page.waitForFunction((typed) => Object.values(sessionStorage)
      .some((value) => value.includes(typed)), text, { timeout: 10_000 }).then(() => true, () => false);
    result.kept = await keptHolding("first plan"); // a bound only for a page that keeps nothing
    step("the tab's storage full");
    result.full = await fillStorage(page, [100_000, 10_000, 1_000, 100]);
    const message = page.locator("#message");
    const before = await message.textContent();
    await form.locator('[name="note"]').fill("x".repeat(Number(process.env.RB_NOTE_LENGTH)));
    result.said = await page.waitForFunction((text) => document.getElementById("message").textContent !== text,
      before, { timeout: 10_000 }).then(() => true, () => false); // a bound only for a page that says nothing
    result.notice = await message.textContent();
    step("the storage freed");
    await page.evaluate(() => {
      for (const key of Object.keys(sessionStorage)) if (key.startsWith("rb-test-fill-")) sessionStorage.removeItem(key);
    });
    await form.locator('[name="note"]').fill("second plan");
    result.keptAgain = await keptHolding("second plan");
    result.after = { text: await message.textContent(), kind: await message.getAttribute("data-kind") };
  },

  /** A player's phone types a note into `act03` and a formula into the roll form, the
   * page shown all along; the page's renderer crashes; the tab loaded anew. */
  async killed(browser, result) {
    const page = await joinedPage(browser, "player", { ...PHONE, locale: "en-US" }, trouble, `${BASE}/tables/many`,
      TOKENS.many.player);
    await note(await choose(page, "act03"), "half a plan");
    await page.locator('form.roll-form input[name="formula"]').fill("2d6+1");
    // kept as typed: a bound only for a page that keeps nothing while shown
    result.kept = await page.waitForFunction(() => Object.values(sessionStorage)
      .some((value) => value.includes("half a plan") && value.includes("2d6+1")), null, { timeout: 10_000 })
      .then(() => true, () => false);
    result.visible = await page.evaluate(() => document.visibilityState);
    const storage = await storageOf(page);
    step("the shown page crashes");
    await crash(page);
    // the crashed tab loaded anew: a new tab given its storage (pages.mjs's tabHolding)
    const next = await tabHolding(page.context(), storage, "player-again", `${BASE}/tables/many`, trouble);
    await next.locator('form.action-form[data-action="act03"]').waitFor({ timeout: 10_000 }).catch(() => {});
    result.reloaded = await formsOf(next);
  },


  /** A player's phone types a note into `act00` and `act07`, looks through every
   * other action of the table `many`, and chooses the two again; then fills the tab's
   * storage (sessionStorage's quota) and types on, the page kept as if frozen. */
  async early(browser, result) {
    const page = await joinedPage(browser, "player", { ...PHONE, locale: "en-US" }, trouble, `${BASE}/tables/many`,
      TOKENS.many.player);
    const count = Number(process.env.RB_ACTIONS);
    const names = Array.from({ length: count }, (_, index) => `act${String(index).padStart(2, "0")}`);
    await note(await choose(page, "act00"), "first plan");
    await note(await choose(page, "act07"), "second plan");
    step(`${count} actions looked through`);
    for (const name of names.filter((name) => name !== "act00" && name !== "act07")) await choose(page, name);
    const again = {};
    for (const name of ["act00", "act07"]) again[name] = await (await choose(page, name)).locator('[name="note"]').inputValue();
    result.again = again;
    step("the tab's storage full");
    result.full = await fillStorage(page, [100_000]);
    const seventh = await choose(page, "act07");
    await seventh.locator("details.more-params").evaluate((fold) => {
      fold.open = true;
    });
    await seventh.locator('[name="note"]').fill("third plan");
    await page.evaluate(() => document.dispatchEvent(new Event("freeze")));
    await page.locator('form.roll-form input[name="formula"]').fill("4d6");
    await page.evaluate(() => document.dispatchEvent(new Event("freeze")));
    result.typed = await formsOf(page);
  },

  /** Three rolls of the player's wait for the GM at the table `notes`. The GM's phone
   * (German) types a formula into the roll form and a note into `other`, chooses
   * `plan` and types its RB_NOTES notes of RB_NOTE_LENGTH letters each, and writes a
   * reason of 500 letters for each roll waiting; then reloads. What was typed, and what
   * the page loaded anew shows: the action chosen, the formula, the notes, the reasons
   * open, `other`'s note and the message line. */
  async cut(browser, result) {
    const gm = await joinedPage(browser, "gm", { ...PHONE, locale: "de-DE" }, trouble, `${BASE}/tables/notes`,
      TOKENS.notes.gm);
    step("three rolls wait for the GM");
    for (let i = 0; i < 3; i++) {
      await gmRequest(gm, "notes", TOKENS.notes.player, { type: "roll", id: `wait-${i}`, formula: "1d6" });
    }
    await gm.waitForFunction(() => document.querySelectorAll("#pending li[data-pending]").length === 3);
    await gm.locator('form.roll-form input[name="formula"]').fill("3d6");
    const other = await choose(gm, "other");
    await other.locator("details.more-params > summary").click();
    await other.locator('[name="note00"]').fill("the oldest draft");
    const plan = await choose(gm, "plan");
    await plan.locator("details.more-params > summary").click();
    const count = Number(process.env.RB_NOTES);
    const length = Number(process.env.RB_NOTE_LENGTH);
    const names = Array.from({ length: count }, (_, index) => `note${String(index).padStart(2, "0")}`);
    const notes = names.map((name, index) => `${String.fromCharCode(97 + index)}`.repeat(length));
    for (const [index, name] of names.entries()) await plan.locator(`[name="${name}"]`).fill(notes[index]);
    const reasons = [];
    for (const item of await gm.locator("#pending li[data-pending]").all()) {
      await item.locator('button[name="reason-open"]').tap();
      const text = `${await item.getAttribute("data-pending")} `.padEnd(500, "z");
      await item.locator('input[name="reason"]').fill(text);
      reasons.push(text);
    }
    result.typed = { notes, reasons };
    step("reloaded");
    await gm.reload();
    await gm.locator('body[data-status="connected"]').waitFor();
    await gm.waitForFunction(() => document.querySelectorAll("#pending li[data-pending]").length === 3);
    const action = await gm.locator("#action-select").inputValue();
    const shown = gm.locator(`form.action-form[data-action="${action}"]`);
    result.reloaded = {
      action,
      formula: await gm.locator('form.roll-form input[name="formula"]').inputValue(),
      notes: action === "plan" ? await Promise.all(names.map((name) => shown.locator(`[name="${name}"]`).inputValue()))
        : [],
      reasons: await gm.$$eval("#pending li[data-pending]", (items) => items
        .filter((li) => !li.querySelector("form.reason-form").hidden)
        .map((li) => li.querySelector('input[name="reason"]').value)),
      message: await gm.locator("#message").textContent(),
      other: await (await choose(gm, "other")).locator('[name="note00"]').inputValue(),
    };
  },

  /** A player's phone looks through every action of the table `many`, types a note
   * into the last two and a formula into the roll form, and reloads. */
  async many(browser, result) {
    const page = await joinedPage(browser, "player", { ...PHONE, locale: "en-US" }, trouble, `${BASE}/tables/many`,
      TOKENS.many.player);
    const count = Number(process.env.RB_ACTIONS);
    const names = Array.from({ length: count }, (_, index) => `act${String(index).padStart(2, "0")}`);
    step(`${count} actions looked through`);
    result.visited = 0;
    for (const name of names) {
      await choose(page, name);
      result.visited += 1;
    }
    await note(await choose(page, names.at(-2)), "from the roof");
    await note(await choose(page, names.at(-1)), "behind the crates");
    await page.locator('form.roll-form input[name="formula"]').fill("3d6");
    step("reloaded");
    await page.reload();
    await page.locator(`form.action-form[data-action="${names.at(-1)}"]`).waitFor();
    await page.locator("body[data-status=\"connected\"]").waitFor();
    const shown = await formsOf(page);
    const previous = await (await choose(page, names.at(-2))).locator('[name="note"]').inputValue();
    result.reloaded = { ...shown, previous };
  },
};

await runCase(cases, trouble);
