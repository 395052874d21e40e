// What an undo is told to a screen reader (tests/web/test_web_undo_said.py): at a table
// of each ruleset (RB_UNDO: ruleset → {table, track, gm, player}), the GM adjusts the
// NPC Guard's track and undoes it; a player's page (its frames tapped) and the GM's, English, each read: what their live
// region was told, and their log's line of each event undone. RB_CASE: "said".
import { DESKTOP, PHONE, caseScript, flush, gmRequest, joinedPage, runCase, waitSeq } from "./pages.mjs";

const { BASE, trouble, step } = caseScript("undo_said");

/** What the page's live region holds, and the summary of its log's line `seq`. */
const heard = (page, seq) => page.evaluate((at) => ({
  told: [...document.querySelectorAll("#announce p")].map((p) => p.textContent),
  line: document.querySelector(`#log li[data-seq="${at}"] .summary`)?.textContent ?? null,
}), seq);

const cases = {
  async said(browser, result) {
    for (const [ruleset, { table, track, gm: gmToken, player: playerToken }] of Object.entries(
      JSON.parse(process.env.RB_UNDO))) {
      step(ruleset);
      const url = `${BASE}/tables/${table}`;
      const player = await joinedPage(browser, `${ruleset}-player`, { ...PHONE, locale: "en-US" }, trouble, url,
        playerToken, { tap: true });
      const gm = await joinedPage(browser, `${ruleset}-gm`, { ...DESKTOP, locale: "en-US" }, trouble, url, gmToken);
      await player.locator("form.roll-form").waitFor();
      const adjusted = await gmRequest(gm, table, gmToken,
        { type: "adjust", id: "adjust-guard", actor: "guard", track, delta: 1 });
      const undoAdjust = await gmRequest(gm, table, gmToken, { type: "undo", id: "undo-adjust" });
      for (const page of [player, gm]) await waitSeq(page, undoAdjust.seq);
      const got = { adjusted: adjusted.seq, undo: undoAdjust.seq };
      got.player = await heard(player, adjusted.seq);
      got.gm = await heard(gm, adjusted.seq);
      await flush(player);
      // every frame the player's page was sent
      got.frames = player.gate.frames.map((frame) => JSON.parse(frame));
      result[ruleset] = got;
      await player.context().close();
      await gm.context().close();
    }
  },
};

await runCase(cases, trouble);
