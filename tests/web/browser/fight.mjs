// A techlevel fight in the browser (tests/web/test_web_fight.py): a Czech GM on a
// 1366×768 laptop (keyboard and mouse), asking players' requests first, and three
// players — a Russian 360×740 touch phone, a German 768×1024 tablet and an English
// screen-reader user (keyboard only) — through an approval, an undo, the tablet's
// line lost and back, and the GM's reload. RB_FIGHT: {table, gm, phone, tablet,
// reader} (tokens); RB_SHOTS: a folder for screenshots (optional). RB_CASE: "fight".
import { SMALL_PHONE, caseScript, flush, gmRequest, joinedPage, runCase, seqOf, waitSeq } from "./pages.mjs";

const { BASE, trouble, step } = caseScript("fight");
const FIGHT = JSON.parse(process.env.RB_FIGHT);
const SHOTS = process.env.RB_SHOTS;
const url = `${BASE}/tables/${FIGHT.table}`;

/** What a page shows: its status, message line, live region, top bar, the log's
 * latest lines, the waiting list, and whether the page scrolls sideways. */
const seen = (page) => page.evaluate(() => ({
  status: document.body.dataset.status,
  message: document.getElementById("message").textContent,
  told: [...document.querySelectorAll("#announce p")].map((p) => p.textContent),
  title: document.getElementById("title").textContent,
  role: document.getElementById("role").textContent,
  log: [...document.querySelectorAll("#log > li")].slice(0, 6).map((li) => li.textContent.replace(/\s+/g, " ").trim()),
  pending: [...document.querySelectorAll("#pending li")].map((li) => li.textContent.replace(/\s+/g, " ").trim()),
  forms: [...document.querySelectorAll(".form-status")].map((n) => n.textContent).filter(Boolean),
  wide: document.documentElement.scrollWidth > window.innerWidth,
  focus: `${document.activeElement?.tagName}.${document.activeElement?.getAttribute("name") ?? document.activeElement?.id}`,
}));

async function shot(page, name) {
  if (SHOTS) await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: false });
}

/** Tab (keyboard only) until `selector` has the focus. */
async function tabTo(page, selector) {
  await page.focus("#title");
  for (let i = 0; i < 200; i++) {
    await page.keyboard.press("Tab");
    if (await page.evaluate((s) => document.activeElement?.matches(s), selector)) return true;
  }
  return false;
}

/** A roll typed and sent by touch on the page's dice form. */
async function tapRoll(page, formula, label) {
  const form = page.locator("form.roll-form");
  await form.locator('input[name="formula"]').tap();
  await form.locator('input[name="formula"]').fill(formula);
  await form.locator('input[name="label"]').tap();
  await form.locator('input[name="label"]').fill(label);
  await form.locator('button[type="submit"]').tap();
}

const cases = {
  async fight(browser, result) {
    step("join");
    const gm = await joinedPage(browser, "gm", { viewport: { width: 1366, height: 768 }, locale: "cs-CZ" },
      trouble, url, FIGHT.gm, { tap: true });
    const phone = await joinedPage(browser, "phone", { ...SMALL_PHONE, locale: "ru-RU" }, trouble, url,
      FIGHT.phone, { tap: true });
    const tablet = await joinedPage(browser, "tablet", { viewport: { width: 768, height: 1024 }, isMobile: true,
      hasTouch: true, deviceScaleFactor: 2, locale: "de-DE" }, trouble, url, FIGHT.tablet, { tap: true });
    const reader = await joinedPage(browser, "reader", { viewport: { width: 1280, height: 800 }, locale: "en-US",
      reducedMotion: "reduce" }, trouble, url, FIGHT.reader, { tap: true });
    const all = { gm, phone, tablet, reader };
    for (const page of Object.values(all)) await page.locator("form.roll-form").waitFor();
    await gmRequest(gm, FIGHT.table, FIGHT.gm, { type: "encounter.start", id: "fight-start",
      order: ["ana", "knight", "sentinel", "guard"] });
    for (const [name, page] of Object.entries(all)) {
      await waitSeq(page, await seqOf(gm));
      await shot(page, `1-start-${name}`);
    }
    result.start = Object.fromEntries(await Promise.all(Object.entries(all).map(async ([n, p]) => [n, await seen(p)])));

    step("the phone rolls, the GM approves with the mouse");
    await tapRoll(phone, "2d6", "удар по стражнику");
    const item = gm.locator("#pending li").first();
    await item.waitFor();
    await shot(gm, "2-waiting-gm");
    await shot(phone, "2-waiting-phone");
    result.waiting = { gm: await seen(gm), phone: await seen(phone) };
    // the phone's own request in its log: its placeholder is in, so the next event it
    // sees is the approval (read before it, under load, the seq was the start's, and
    // the wait ended at the placeholder, the approval not yet come)
    await phone.locator("#log li.kind-mine.mine-waits").waitFor();
    const before = await seqOf(phone);
    await item.locator('button[name="approve"]').click();
    await waitSeq(phone, before + 1);
    await flush(phone);
    await shot(phone, "3-approved-phone");
    result.approved = { gm: await seen(gm), phone: await seen(phone), reader: await seen(reader) };

    step("the reader rolls by keyboard, the GM approves by keyboard");
    result.readerReached = await tabTo(reader, 'form.roll-form input[name="formula"]');
    await reader.keyboard.type("1d10");
    await reader.keyboard.press("Tab");
    await reader.keyboard.type("search the corridor");
    await reader.keyboard.press("Enter");
    await gm.locator("#pending li").first().waitFor();
    result.gmReached = await tabTo(gm, '#pending button[name="approve"]');
    await reader.locator("#log li.kind-mine.mine-waits").waitFor(); // as the phone's, above
    const readerBefore = await seqOf(reader);
    await gm.keyboard.press("Enter");
    await waitSeq(reader, readerBefore + 1);
    await flush(reader);
    result.readerApproved = { reader: await seen(reader), gm: await seen(gm) };

    step("the GM adjusts the guard and undoes it");
    await gmRequest(gm, FIGHT.table, FIGHT.gm, { type: "adjust", id: "fight-adjust", actor: "guard", track: "body",
      delta: 2 });
    const undoBefore = await seqOf(reader);
    await waitSeq(gm, undoBefore);
    await gm.locator('#history button[name="undo"]:not([aria-disabled="true"])').click();
    for (const page of Object.values(all)) await waitSeq(page, undoBefore + 1);
    for (const page of Object.values(all)) await flush(page);
    result.undone = Object.fromEntries(await Promise.all(Object.entries(all).map(async ([n, p]) => [n, await seen(p)])));

    step("the tablet's line is lost and back");
    await tablet.context().setOffline(true);
    await tablet.waitForSelector('body[data-status="offline"]');
    await shot(tablet, "4-offline-tablet");
    result.offline = await seen(tablet);
    await gmRequest(gm, FIGHT.table, FIGHT.gm, { type: "roll", id: "fight-gm-roll", formula: "3d6",
      label: "Wache greift an" });
    await tablet.context().setOffline(false);
    await tablet.waitForSelector('body[data-status="connected"]');
    await waitSeq(tablet, await seqOf(gm));
    await flush(tablet);
    await shot(tablet, "5-back-tablet");
    result.back = await seen(tablet);

    step("the GM reloads the page");
    await tapRoll(phone, "1d6", "ещё раз");
    await gm.locator("#pending li").first().waitFor();
    await gm.reload();
    await gm.waitForFunction(() => document.body.dataset.status === "connected"
      && document.body.dataset.history !== undefined);
    await gm.locator("#pending li").first().waitFor();
    await shot(gm, "6-reloaded-gm");
    result.reloaded = await seen(gm);

    step("the GM ends the fight");
    await gmRequest(gm, FIGHT.table, FIGHT.gm, { type: "encounter.end", id: "fight-end" });
    for (const page of Object.values(all)) await waitSeq(page, await seqOf(gm));
    result.ended = Object.fromEntries(await Promise.all(Object.entries(all).map(async ([n, p]) => [n, await seen(p)])));
    for (const [name, page] of Object.entries(all)) await shot(page, `7-end-${name}`);
  },
};

await runCase(cases, trouble);
