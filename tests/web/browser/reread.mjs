// A player's page while the GM shows and hides the NPCs' details at a table whose
// NPCs' records do not fit in the settings event: what the page draws of Guard A
// after each change, and what it sent (tests/web/test_web_reread.py).
import process from "node:process";

import { DESKTOP, flush, gmRequest, joinedPage, launch, waitSeq } from "./pages.mjs";

const env = process.env;
const TOKENS = JSON.parse(env.RB_TOKENS);
const trouble = { errors: [], dialogs: [] };
const browser = await launch(env.RB_CHROMIUM);
const result = { steps: [] };
const guard = '#actors [data-actor="guard-a"]';
try {
  const player = await joinedPage(browser, "player", { ...DESKTOP, locale: "en-US" }, trouble, `${env.RB_BASE}/tables/web`, TOKENS.web.player, { tap: true });
  // the tracks (Stun, Physical, Overflow) are drawn when players may see them
  const drawn = () => player.$eval(guard, (card) => ({ tracks: card.querySelectorAll("[data-track]").length, text: card.textContent }));
  result.before = await drawn();
  for (const shown of [true, false]) {
    const reply = await gmRequest(player, "web", TOKENS.web.gm, { type: "settings", id: `show-${shown}`, settings: { ruleset: { show_npc_details: shown } } });
    await waitSeq(player, reply.seq);
    // the page's `state` went out after the event and was answered before this ping's pong
    await flush(player);
    await player.waitForFunction(([sel, want]) => (document.querySelectorAll(`${sel} [data-track]`).length > 0) === want, [guard, shown]);
    // the page's own event frame (the gate also sees the GM's socket of gmRequest)
    const frames = player.gate.frames.map((f) => JSON.parse(f));
    const event = frames.find((m) => m.type === "event" && m.seq === reply.seq && m.by === "gm" && "reread" in m);
    result.steps.push({ shown, status: reply.status, reread: event?.reread ?? null, actors: event?.actors ?? null,
      states: player.gate.sent.map((f) => JSON.parse(f)).filter((m) => m.type === "state").length, drawn: await drawn() });
  }
} finally {
  await browser.close();
}
result.trouble = trouble;
console.log(`RESULT ${JSON.stringify(result)}`);
