// An approval card's title in each GM's own language, in Chromium (docs/foundry.md,
// "Approve / reject (GM)"): the active GM's page (English, the GM token), a second
// GM's page in German with no token (not the active GM: it never connects) and Ivan's
// page, on the Foundry stand-in, against a real `rollbridge serve` (started by
// tests/foundry/test_foundry_browser.py) whose table holds players' requests for the
// GM's approval. Ivan's 2d6 waits; the active GM's client posts the approval card in
// English; the German GM's page renders that very message through Foundry's render
// hook and reads its title in German, the stored message unchanged. Until 7 December
// 2026, night, every GM read the active GM's language; until this test, only a
// stand-in call of the hook with a made-up element checked it (no browser).
// Prints one line `RESULT {json}`; exits non-zero on any failure.
//
// Environment: RB_PAGE_BASE, RB_WS_URL, RB_TOKENS (JSON {gm, ivan}; never printed),
// RB_GENERATION (12 or 13), RB_CHROMIUM, RB_USER_DATA.

import process from "node:process";

import { failed, passed } from "./ending.mjs";
import { launchWorld, openWorldPage } from "./worldpages.mjs";

const env = process.env;
const tokens = JSON.parse(env.RB_TOKENS);
const SECRETS = Object.values(tokens);
const generation = String(Number(env.RB_GENERATION ?? 13));
const users = [
  { _id: "standinGM000001", name: "Gamemaster", isGM: true },
  { _id: "standinGM000002", name: "Spielleiterin", isGM: true },
  { _id: "standinIvan0001", name: "Ivan" },
];
const summary = { generation };
const consoleLines = [];
const pageErrors = [];
const step = (what) => process.stderr.write(`approvaltitle: ${what}\n`);
const context = await launchWorld(env);
const open = (key, user, token, lang) => openWorldPage(context, { key, user, token, users, generation, consoleLines, pageErrors, lang }, env);

try {
  step("the active GM (en), a second GM (de, no connection), Ivan");
  const gm = await open("gm", users[0]._id, tokens.gm, "en");
  const second = await open("second", users[1]._id, null, "de");
  const ivan = await open("ivan", users[2]._id, tokens.ivan, "en");
  summary.activeGM = await second.evaluate(() => game.users.activeGM?.id ?? null);

  step("approval on; Ivan's 2d6 waits");
  await gm.evaluate(() => rbE2E.api().request({ type: "settings", settings: { approval: true } }));
  const reply = await ivan.evaluate(async () => structuredClone(await rbE2E.api().roll("2d6")));
  if (reply.status !== "pending") throw new Error(`Ivan's roll did not wait: ${JSON.stringify(reply)}`);

  step("the approval card as each GM's page renders it");
  const title = (page) => page.evaluate(async () => {
    const selector = '#chat-log .rollbridge-card[data-kind="approval.requested"] .rb-title';
    const node = await rbE2E.waitFor(() => document.querySelector(selector), 20000, "the approval card");
    const message = game.messages.contents.find((m) => m.flags?.rollbridge?.kind === "approval.requested");
    const stored = document.createElement("template");
    stored.innerHTML = message.content;
    return {
      lang: game.i18n.lang,
      shown: node.textContent,
      cardLang: node.closest(".rollbridge-card").dataset.lang ?? null,
      stored: stored.content.querySelector(".rb-title")?.textContent ?? null,
      whisper: [...message.whisper],
      author: message.author?.id ?? message.author ?? null,
    };
  });
  summary.gm = await title(gm);
  summary.second = await title(second);
  await passed({ pages: { gm, second, ivan }, secrets: SECRETS, consoleLines, pageErrors, summary });
} catch (error) {
  failed(error, { secrets: SECRETS, consoleLines, pageErrors });
} finally {
  await context.close();
}
