// A table played on phones over a slow line (tests/web/test_web_slow_table.py), in
// headless Chromium against a real rollbridge server, with a screen reader's eye: at
// the table RB_TABLE (whose GM approves players' requests first) a German GM's phone,
// a Czech player's phone on a slow 3G line (the DevTools protocol's
// Network.emulateNetworkConditions, from before the page loads) and a Russian
// player's phone. The Czech player asks the ruleset's action and the GM approves it;
// the Czech phone loses its line while the GM undoes it, and gets it back; the Russian
// phone reloads and chooses English; the server restarts (RB_RESTART printed, the
// test's file RB_SIGNAL once it serves again); the Czech phone reloads on its slow
// line. At each step: what each live region was told (#announce, as a screen reader
// hears it), the message line, the controls without a name, what the Czech phone's
// Tab key goes through, and what no one should read (pages.mjs's looksOf). The Python
// test judges it.
//
// Environment: RB_BASE, RB_TOKENS (never printed), RB_CHROMIUM, RB_CASE ("slow"),
// RB_SIGNAL, RB_TABLE.

import process from "node:process";

import {
  NIGHTS, PHONE, caseScript, connected, joinedPage, listen, looksOf, openPage, refusedWhileDown, restart, restarted,
  runCase, seqOf, told, waitSeq,
} from "./pages.mjs";

const { BASE, TOKENS, trouble, step } = caseScript("slow_table");

/** DevTools' *Slow 3G*: 400 ms each way's latency, 400 kbit/s down and up. */
const SLOW_3G = { offline: false, latency: 400, downloadThroughput: 51_200, uploadThroughput: 51_200 };

/** A page joined at `url` with `token` whose line is SLOW_3G from before it loads. */
async function slowPage(browser, name, locale, url, token) {
  const page = await openPage(browser, name, { ...PHONE, locale }, trouble);
  const devtools = await page.context().newCDPSession(page);
  await devtools.send("Network.enable");
  await devtools.send("Network.emulateNetworkConditions", SLOW_3G);
  await page.goto(`${url}#token=${token}`);
  await connected(page);
  return page;
}

/** What a screen reader meets on `page`: its message line, and the visible controls
 * it would read without a name (no label, aria-label, aria-labelledby or text). */
const readerOf = (page) => page.evaluate(() => {
  const nameOf = (node) => [node.getAttribute("aria-label"), ...[...(node.labels ?? [])].map((label) => label.textContent),
    ...(node.getAttribute("aria-labelledby") ?? "").split(" ").map((id) => document.getElementById(id)?.textContent),
    node.tagName === "INPUT" ? "" : node.textContent].filter(Boolean).join(" ").trim();
  const unnamed = [...document.querySelectorAll("input, select, textarea, button, a[href], summary, [tabindex]")]
    .filter((node) => node.checkVisibility() && node.type !== "hidden" && !nameOf(node))
    .map((node) => node.outerHTML.slice(0, 120));
  return { message: document.getElementById("message").textContent, status: document.body.dataset.status, unnamed };
});

/** The elements the Tab key goes through on `page`, from the top once round: each
 * one's tag, and whether it is seen (not hidden, not of no size). */
async function tabRound(page) {
  await page.evaluate(() => document.activeElement?.blur());
  const round = [];
  for (let i = 0; i < 200; i++) {
    await page.keyboard.press("Tab");
    const at = await page.evaluate(() => {
      const node = document.activeElement;
      if (!node || node === document.body) return null;
      const box = node.getBoundingClientRect();
      return { tag: node.tagName.toLowerCase(), seen: box.width > 0 && box.height > 0 && node.checkVisibility() };
    });
    if (!at) break;
    round.push(at);
  }
  return round;
}

/** Forget what `pages` were told so far. */
const forget = (pages) => Promise.all(pages.map((page) => page.evaluate(() => { window.rbTold.length = 0; })));

/** The text of `page`'s log entry of kind `kind` (the newest), or null. */
const entryOf = (page, kind) => page.evaluate((name) => document.querySelector(`#log li.kind-${name} .summary`)
  ?.textContent ?? null, kind);

const cases = {
  async slow(browser, result) {
    const table = process.env.RB_TABLE;
    const night = NIGHTS.find((one) => one.table === table);
    const url = `${BASE}/tables/${table}`;
    step(`${table}: the German GM, the Czech player on a slow line, the Russian player`);
    const gm = await joinedPage(browser, "gm", { ...PHONE, locale: "de-DE" }, trouble, url, TOKENS[table].gm);
    const slow = await slowPage(browser, "player-cs", "cs-CZ", url, TOKENS[table].player);
    const other = await joinedPage(browser, "player-ru", { ...PHONE, locale: "ru-RU" }, trouble, url,
      TOKENS[table].player);
    const pages = { gm, slow, other };
    for (const page of Object.values(pages)) await listen(page);
    const looks = async () => Object.fromEntries(await Promise.all(Object.entries(pages)
      .map(async ([who, page]) => [who, await looksOf(page)])));
    result.joined = { reader: { gm: await readerOf(gm), slow: await readerOf(slow), other: await readerOf(other) },
      looks: await looks() };
    result.tab = await tabRound(slow);

    step(`${table}: the Czech player asks ${night.action}; the GM approves`);
    await slow.selectOption("#action-select", night.action);
    const form = slow.locator(`form.action-form[data-action="${night.action}"]`);
    await night.fill(form);
    await form.locator('button[type="submit"]').tap();
    const item = gm.locator("#pending li[data-pending]").first();
    await item.waitFor();
    const pending = await item.getAttribute("data-pending");
    result.asked = { pending, item: await item.locator("span").first().textContent(),
      entry: await entryOf(gm, "approval-requested"), told: await told(gm) };
    let seq = await seqOf(gm);
    await item.locator('button[name="approve"]').tap();
    await Promise.all([waitSeq(slow, seq + 1), waitSeq(other, seq + 1)]);
    result.approved = { told: { slow: await told(slow), other: await told(other) }, reader: await readerOf(slow),
      looks: await looks() };

    step(`${table}: the Czech phone's line lost while the GM undoes it`);
    await forget(Object.values(pages));
    await slow.context().setOffline(true);
    await slow.waitForSelector('body[data-status="offline"]');
    seq = await seqOf(gm);
    await gm.locator('#history button[name="undo"]').tap();
    await waitSeq(gm, seq + 1);
    await slow.context().setOffline(false);
    await slow.waitForSelector('body[data-status="connected"]', { timeout: 60_000 });
    await waitSeq(slow, seq + 1);
    result.lost = { told: await told(slow), gmUndo: await entryOf(gm, "undo"), reader: await readerOf(slow),
      looks: await looks() };

    step(`${table}: the Russian phone reloads, then chooses English`);
    await other.reload();
    await connected(other);
    await other.waitForSelector("body[data-history]");
    result.reloaded = { reader: await readerOf(other), looks: await looksOf(other) };
    await Promise.all([other.waitForEvent("load"), other.selectOption("#language", "en")]);
    await other.locator('html[lang="en"]').waitFor();
    await connected(other);
    await other.waitForSelector("body[data-history]");
    await listen(other);
    result.english = { reader: await readerOf(other), looks: await looksOf(other) };

    step(`${table}: the server restarts`);
    await forget(Object.values(pages));
    const errorsBefore = trouble.errors.length;
    restart();
    result.restarted = await restarted();
    for (const page of Object.values(pages)) {
      await page.waitForSelector('body[data-status="connected"]', { timeout: 60_000 });
    }
    refusedWhileDown(trouble, errorsBefore);
    result.back = { told: { gm: await told(gm), slow: await told(slow), other: await told(other) },
      looks: await looks() };

    step(`${table}: the Czech phone reloads on its slow line`);
    await slow.reload();
    await connected(slow);
    await slow.waitForSelector("body[data-history]");
    result.slowReload = { reader: await readerOf(slow), looks: await looksOf(slow) };
  },
};

await runCase(cases, trouble);
