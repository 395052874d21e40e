// A player's phone downloads the table's log with the log panel's button, after a
// roll at a table with verifiable dice and the GM's reveal; the file is saved for
// tests/web/test_web_log_download.py to check with `rollbridge verify`. Then the
// button and its hint as pages in the other languages show them. Before the GM turns
// verifiable dice on, the hint promises no dice to check.
import process from "node:process";

import { DESKTOP, PHONE, gmRequest, joinedPage, launch, roll } from "./pages.mjs";

const env = process.env;
const TOKENS = JSON.parse(env.RB_TOKENS);
const trouble = { errors: [], dialogs: [] };
const browser = await launch(env.RB_CHROMIUM);
const result = { case: env.RB_CASE, languages: {} };
const line = (page) => page.$eval("#log-download", (box) => ({
  hidden: box.hidden, button: box.querySelector("button").textContent, hint: box.querySelector("output").textContent,
}));
try {
  const url = `${env.RB_BASE}/tables/web`;
  const player = await joinedPage(browser, "player", { ...PHONE, locale: "cs-CZ", acceptDownloads: true }, trouble, url, TOKENS.web.player);
  result.unverifiable = await line(player); // the table's dice are not verifiable yet
  result.verifiable = await gmRequest(player, "web", TOKENS.web.gm, { type: "settings", id: "dice-on", settings: { verifiable: true } });
  result.rolled = await roll(player, "4d6kh3", "ověř mě");
  result.revealed = await gmRequest(player, "web", TOKENS.web.gm, { type: "dice.reveal", id: "reveal" });
  result.before = await line(player);
  const [download] = await Promise.all([player.waitForEvent("download"), player.click("#log-download button")]);
  result.name = download.suggestedFilename();
  await download.saveAs(env.RB_SAVE);
  result.after = await line(player);
  // the address the page fetched it from: the token only in the header
  result.fetched = player.requests.filter((address) => address.includes("/export"));
  // the keyboard alone, the export held on its way: the focus stays on the button
  // while it waits, and Enter pressed again fetches nothing more
  const held = [];
  let reached;
  const first = new Promise((resolve) => { reached = resolve; });
  await player.route(/\/export/, (route) => { held.push(route); reached(); });
  await player.focus("#log-download button");
  await player.keyboard.press("Enter");
  await first;
  const button = () => player.$eval("#log-download button", (node) => ({
    unavailable: node.getAttribute("aria-disabled") === "true", disabled: node.disabled,
    focused: document.activeElement === node }));
  result.keyboard = { waiting: await button() };
  const saving = player.waitForEvent("download");
  saving.catch(() => {}); // a step failing below: said as result.failed
  await player.keyboard.press("Enter");
  result.keyboard.again = await button();
  result.keyboard.held = held.length;
  for (const route of held) await route.continue();
  await player.unroute(/\/export/);
  await (await saving).path();
  await player.waitForFunction(() => {
    const node = document.querySelector("#log-download button");
    return node.getAttribute("aria-disabled") !== "true" && !node.disabled;
  });
  result.keyboard.after = await button();
  result.keyboard.fetched = held.length;
  for (const locale of ["en-US", "de-DE", "ru-RU"]) {
    const page = await joinedPage(browser, locale, { ...DESKTOP, locale }, trouble, url, TOKENS.web.player);
    result.languages[locale.slice(0, 2)] = await line(page);
    await page.context().close();
  }
} catch (error) {
  result.failed = `${error.message}`;
} finally {
  await browser.close();
}
process.stdout.write(`RESULT ${JSON.stringify({ ...result, trouble })}\n`);
