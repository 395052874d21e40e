// A whole evening on phones (tests/web/test_web_phone_night.py), in headless Chromium
// against a real rollbridge server: at a table of each ruleset whose GM approves
// players' requests first, a player's 390×844 touch phone asks the ruleset's action
// and the GM's (a phone too) approves it by touch and undoes it; the server restarts
// (RB_RESTART printed, the test's file RB_SIGNAL once it serves again) and both pages
// come back; the player's page in cs, de and ru. What each page showed at each step;
// the Python test judges it.
//
// Environment: RB_BASE, RB_TOKENS (never printed), RB_CHROMIUM, RB_CASE, RB_SIGNAL, RB_TAP
// (1: the pages through the tests' tap).

import process from "node:process";

import {
  NIGHTS, PHONE, caseScript, connected, joinedPage, looksOf, refusedWhileDown, restart, restarted, runCase, seqOf,
  waitSeq,
} from "./pages.mjs";

const { BASE, TOKENS, trouble, step } = caseScript("phone_night");

/** Whether the pages go through the tests' tap (RB_TAP=1: pages.mjs's tapWebSocket),
 * for a walk that looks for what the tap does at a restart (docs/web.md); not by
 * default: the restart is the server's own, seen by the browser as a phone sees it
 * (refused while it is down). */
const TAP = process.env.RB_TAP === "1";

/** The player's and the GM's phones at `table` (English), joined. */
async function phones(browser, table) {
  const url = `${BASE}/tables/${table}`;
  const gm = await joinedPage(browser, `gm-${table}`, { ...PHONE, locale: "en-US" }, trouble, url, TOKENS[table].gm,
    { tap: TAP });
  const player = await joinedPage(browser, `player-${table}`, { ...PHONE, locale: "en-US" }, trouble, url,
    TOKENS[table].player, { tap: TAP });
  return { gm, player };
}

/** The line beside the shown action form of `page`. */
const statusOf = (page) => page.locator("#action form .form-status").textContent();

/** The log's newest entry of `page` as it reads. */
const newestOf = (page) => page.locator("#log li[data-seq]").first().textContent();

/** `lang` chosen in `page`'s list: once the page is back at the table in it, the log
 * from before in. */
async function inLanguage(page, lang) {
  step(`a page in ${lang}`);
  await Promise.all([page.waitForEvent("load"), page.selectOption("#language", lang)]);
  await page.locator(`html[lang="${lang}"]`).waitFor();
  await connected(page);
  await page.waitForSelector("body[data-history]");
}

const cases = {
  async night(browser, result) {
    result.tables = {};
    let last = null;
    for (const night of NIGHTS) {
      step(`${night.table}: ${night.action}`);
      const { gm, player } = await phones(browser, night.table);
      const seen = (result.tables[night.table] = {});
      await player.selectOption("#action-select", night.action);
      const form = player.locator(`form.action-form[data-action="${night.action}"]`);
      await night.fill(form);
      await form.locator('button[type="submit"]').tap();
      await player.waitForFunction(() => /\(p\d+\)/.test(document.querySelector("#action .form-status")?.textContent));
      seen.asked = { status: await statusOf(player), mine: await newestOf(player), looks: await looksOf(player) };
      const pending = seen.asked.status.match(/\((p\d+)\)/)[1];
      const item = gm.locator(`#pending li[data-pending="${pending}"]`);
      await item.waitFor();
      seen.gmList = { item: await item.textContent(), looks: await looksOf(gm) };
      step(`${night.table}: the GM approves`);
      let seq = await seqOf(player);
      await item.locator('button[name="approve"]').tap();
      await waitSeq(player, seq + 1);
      await player.waitForFunction(() => !/\(p\d+\)/.test(document.querySelector("#action .form-status")?.textContent));
      seen.approved = { status: await statusOf(player), newest: await newestOf(player), looks: await looksOf(player),
        gmNewest: await newestOf(gm) };
      step(`${night.table}: the GM undoes it`);
      seen.undoButton = await gm.locator('#history button[name="undo"]').textContent();
      seq = await seqOf(player);
      await gm.locator('#history button[name="undo"]').tap();
      await waitSeq(player, seq + 1);
      await player.waitForFunction((before) => document.querySelector("#action .form-status")?.textContent !== before,
        seen.approved.status, { timeout: 5_000 }).catch(() => {});
      seen.undone = { status: await statusOf(player), newest: await newestOf(player), gmNewest: await newestOf(gm),
        looks: await looksOf(player), gmLooks: await looksOf(gm) };
      if (last) await Promise.all([last.gm.context().close(), last.player.context().close()]);
      last = { gm, player };
    }
    step("the server restarts");
    const { gm, player } = last;
    for (const page of [gm, player]) {
      await page.evaluate(() => {
        const start = Date.now();
        window.rbStatuses = [];
        new MutationObserver(() => window.rbStatuses.push(`${Date.now() - start}:${document.body.dataset.status}`))
          .observe(document.body, { attributes: true, attributeFilter: ["data-status"] });
      });
    }
    const errorsBefore = trouble.errors.length;
    restart();
    const down = Date.now();
    result.restarted = await restarted();
    result.restartMs = Date.now() - down;
    await player.waitForSelector('body[data-status="connected"]', { timeout: 60_000 }).catch(() => {});
    await gm.waitForSelector('body[data-status="connected"]', { timeout: 60_000 }).catch(() => {});
    result.refusedWhileDown = refusedWhileDown(trouble, errorsBefore);
    result.back = {
      statuses: { player: await player.evaluate(() => window.rbStatuses), gm: await gm.evaluate(() => window.rbStatuses) },
      player: { status: await player.evaluate(() => document.body.dataset.status), message: await player.textContent("#message"),
        looks: await looksOf(player), newest: await newestOf(player) },
      gm: { status: await gm.evaluate(() => document.body.dataset.status), message: await gm.textContent("#message"),
        looks: await looksOf(gm), newest: await newestOf(gm),
        redo: await gm.locator('#history button[name="redo"]').textContent() },
    };
    // through the tap: its tries to connect, and the types of the frames each way since
    // the restart (what a page left waiting sent and was sent)
    if (TAP) {
      const since = (frames) => frames.slice(-12).map((f) => JSON.parse(f).type);
      result.back.tap = Object.fromEntries([["player", player], ["gm", gm]].map(([who, page]) => [who,
        { attempts: page.gate.attempts, sent: since(page.gate.sent), got: since(page.gate.frames) }]));
    }
    step("after the restart, the player asks again and the GM approves");
    await player.locator('form.action-form button[type="submit"]').tap();
    await player.waitForFunction(() => /\(p\d+\)/.test(document.querySelector("#action .form-status")?.textContent));
    const pending = (await statusOf(player)).match(/\((p\d+)\)/)[1];
    const seq = await seqOf(player);
    await gm.locator(`#pending li[data-pending="${pending}"] button[name="approve"]`).tap();
    await waitSeq(player, seq + 1);
    result.afterRestart = { status: await statusOf(player), newest: await newestOf(player) };
    result.languages = {};
    result.gmLanguages = {};
    for (const lang of ["cs", "de", "ru"]) {
      await inLanguage(player, lang);
      result.languages[lang] = { status: await statusOf(player), newest: await newestOf(player),
        looks: await looksOf(player), action: await player.locator("#action-select").inputValue() };
      await inLanguage(gm, lang);
      result.gmLanguages[lang] = { undo: await gm.locator('#history button[name="undo"]').textContent(),
        newest: await newestOf(gm), looks: await looksOf(gm) };
    }
  },

  /** The GM's and the player's phones at the sr2 table, and RB_RESTARTS restarts of the
   * server in a row (the same file, the same port): after each, whether each page came
   * back connected within the bound (60 s from the server serving again) and what it
   * shows; through the tests' tap with RB_TAP=1, its tries and frames too. */
  async restarts(browser, result) {
    const { gm, player } = await phones(browser, "sr2");
    const pages = { gm, player };
    result.rounds = [];
    for (let round = 0; round < Number(process.env.RB_RESTARTS); round++) {
      step(`restart ${round + 1}`);
      const errorsBefore = trouble.errors.length;
      restart();
      const restartedOk = await restarted();
      const back = {};
      for (const [who, page] of Object.entries(pages)) {
        const ok = await page.waitForSelector('body[data-status="connected"]', { timeout: 60_000 })
          .then(() => true, () => false);
        back[who] = { ok, status: await page.evaluate(() => document.body.dataset.status),
          message: await page.textContent("#message"), looks: await looksOf(page),
          ...(TAP ? { attempts: page.gate.attempts, sent: page.gate.sent.slice(-6).map((f) => JSON.parse(f).type),
            got: page.gate.frames.slice(-6).map((f) => JSON.parse(f).type) } : {}) };
      }
      result.rounds.push({ restarted: restartedOk, refusedWhileDown: refusedWhileDown(trouble, errorsBefore), ...back });
    }
  },
};

await runCase(cases, trouble);
