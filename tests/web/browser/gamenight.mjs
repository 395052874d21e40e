// A game night's log in a Russian and a Czech player's page and the German
// overlay (tests/web/test_web_gamenight.py): the GM adjusts a track, undoes and
// redoes it, ends a turn; the players roll. What each page's log says of who did
// it, of the track adjusted and of what was undone.
import process from "node:process";

import { DESKTOP, PHONE, diceOf, gmRequest, joinedPage, launch, openPage, roll, seqOf, waitSeq } from "./pages.mjs";

const env = process.env;
const BASE = env.RB_BASE;
const TOKENS = JSON.parse(env.RB_TOKENS);
const trouble = { errors: [], dialogs: [] };
const browser = await launch(env.RB_CHROMIUM);
const result = {};
/** Each log entry of a page: its kind class, who made it and its line. */
const logOf = (page) => page.$$eval("#log li[data-seq]", (items) => items.map((li) => ({
  seq: Number(li.dataset.seq), kind: [...li.classList].find((c) => c.startsWith("kind-")),
  by: li.querySelector(".by")?.textContent ?? null, summary: li.querySelector(".summary, .narration")?.textContent ?? null,
})).reverse());
try {
  const url = `${BASE}/tables/web`;
  const gm = await joinedPage(browser, "gm", { ...DESKTOP, locale: "en-US" }, trouble, url, TOKENS.web.gm, { tap: true });
  const ru = await joinedPage(browser, "ru", { ...PHONE, locale: "ru-RU" }, trouble, url, TOKENS.web.player, { tap: true });
  const cs = await joinedPage(browser, "cs", { ...PHONE, locale: "cs-CZ" }, trouble, url, TOKENS.web.player, { tap: true });
  const overlay = await openPage(browser, "overlay", { viewport: { width: 1280, height: 720 }, locale: "de-DE" }, trouble);
  await overlay.goto(`${BASE}/tables/web/overlay#token=${TOKENS.web.observer}`);
  await overlay.waitForSelector('body[data-status="connected"]').catch(() => {});
  await roll(ru, "2d6", "Würfel eins");
  const adjust = gm.locator("form.adjust-form");
  await adjust.locator('select[name="actor"]').selectOption("rook");
  await adjust.locator('select[name="track"]').selectOption("physical");
  await adjust.locator('input[name="delta"]').fill("2");
  let seq = await seqOf(gm);
  await adjust.locator('button[type="submit"]').click();
  await waitSeq(gm, seq + 1);
  // an NPC's track: how many boxes is the GM's business (a player's event names the actor only)
  await adjust.locator('select[name="actor"]').selectOption("guard-a");
  await adjust.locator('select[name="track"]').selectOption("stun");
  await adjust.locator('input[name="delta"]').fill("1");
  seq = await seqOf(gm);
  await adjust.locator('button[type="submit"]').click();
  await waitSeq(gm, seq + 1);
  for (const name of ["undo", "redo"]) {
    seq = await seqOf(gm);
    await gm.click(`#history button[name="${name}"]`);
    await waitSeq(gm, seq + 1);
  }
  seq = await seqOf(gm);
  await gm.click('#encounter button[name="start"]');
  await waitSeq(gm, seq + 1);
  seq = await seqOf(gm);
  await gm.click('#encounter button[name="next"]');
  await waitSeq(gm, seq + 1);
  seq = await seqOf(gm);
  await gm.click('#history button[name="undo"]');
  await waitSeq(gm, seq + 1);
  for (const page of [ru, cs]) await waitSeq(page, seq + 1);
  await roll(gm, "1d6", "Würfel zwei");
  await overlay.locator(".shown .who", { hasText: "Würfel zwei" }).waitFor();
  const late = await joinedPage(browser, "late", { ...PHONE, locale: "ru-RU" }, trouble, url, TOKENS.web.player);
  await late.waitForSelector("#log li.kind-adjusted");
  result.late = await logOf(late);
  result.ru = await logOf(ru);
  result.cs = await logOf(cs);
  result.gm = await logOf(gm);
  result.overlay = await overlay.$eval(".shown .who", (n) => n.textContent);
  result.tracks = {
    ru: await ru.$eval('#actors [data-actor="rook"] [data-track="physical"] .track-label', (n) => n.textContent),
    cs: await cs.$eval('#actors [data-actor="rook"] [data-track="physical"] .track-label', (n) => n.textContent),
  };
  // the statistics' span in the page's words: the log's #numbers, not the wire's "seq"
  result.span = {};
  for (const [lang, page] of [["ru", ru], ["cs", cs]]) {
    await page.locator("#stats-form button").click();
    await page.waitForSelector("#stats .stats-span");
    result.span[lang] = await page.textContent("#stats .stats-span");
  }
  // a table where players ask first: the Russian player asks for a success test,
  // the GM reads it in the log and rejects it
  const apUrl = `${BASE}/tables/approval`;
  const apGm = await joinedPage(browser, "apGm", { ...DESKTOP, locale: "en-US" }, trouble, apUrl, TOKENS.approval.gm);
  const apRu = await joinedPage(browser, "apRu", { ...PHONE, locale: "ru-RU" }, trouble, apUrl, TOKENS.approval.player);
  await apRu.selectOption("#action-select", "success_test");
  await apRu.locator('#action form input[name="dice"]').fill("3");
  await apRu.locator('#action form input[name="tn"]').fill("4");
  await apRu.locator('#action form button[type="submit"]').click();
  await apGm.locator("#log li.kind-approval-requested").first().waitFor();
  result.asked = await logOf(apGm);
  seq = await seqOf(apGm);
  await apGm.click('#pending button[name="reject"]');
  await waitSeq(apRu, seq + 1);
  await waitSeq(apGm, seq + 1);
  result.rejected = { ru: await logOf(apRu), gm: await logOf(apGm) };
  // wilddie: Ana is Shaken when her turn starts, and the turn's hook rolls her
  // recovery (WD-9): the log shows its dice as it shows a roll's
  const wildUrl = `${BASE}/tables/wild`;
  const wildGm = await joinedPage(browser, "wildGm", { ...DESKTOP, locale: "en-US" }, trouble, wildUrl, TOKENS.wild.gm);
  const wildCs = await joinedPage(browser, "wildCs", { ...PHONE, locale: "cs-CZ" }, trouble, wildUrl, TOKENS.wild.player);
  const shaken = { shaken: true, wounds: 0, incapacitated: false, chips: 3, seq: 0, rolls: [] };
  result.shaken = await gmRequest(wildGm, "wild", TOKENS.wild.gm,
    { type: "actor.update", id: "shake", actor: "ana", state: shaken });
  seq = await seqOf(wildGm);
  await wildGm.click('#encounter button[name="start"]');
  await waitSeq(wildCs, seq + 1);
  const started = await wildCs.locator("#log li.kind-encounter-started").first().getAttribute("data-seq");
  result.recovery = {
    narration: await wildCs.locator(`#log li[data-seq="${started}"] .narration`).allTextContents(),
    heads: await wildCs.locator(`#log li[data-seq="${started}"] .dice-head`).allTextContents(),
    dice: await diceOf(wildCs, Number(started)),
  };
  // verifiable dice: the commitment a player notes before the segment's rolls, on
  // a phone (64 hex digits that wrap), and the seed once the GM reveals it
  seq = await seqOf(wildCs);
  const verifiable = await gmRequest(wildGm, "wild", TOKENS.wild.gm,
    { type: "settings", id: "verifiable", settings: { verifiable: true } });
  const revealed = await gmRequest(wildGm, "wild", TOKENS.wild.gm, { type: "dice.reveal", id: "reveal" });
  await waitSeq(wildCs, revealed.seq ?? seq + 3);
  const lineOf = (kind) => wildCs.locator(`#log li.kind-${kind} .summary`).first().textContent();
  result.verifiable = {
    reply: verifiable.status ?? verifiable.code, reveal: revealed.status ?? revealed.code,
    committed: await lineOf("dice-committed"), revealed: await lineOf("dice-revealed"),
    wide: await wildCs.evaluate(() => document.documentElement.scrollWidth > window.innerWidth),
  };
} finally {
  await browser.close();
}
result.trouble = trouble;
console.log(`RESULT ${JSON.stringify(result)}`);
