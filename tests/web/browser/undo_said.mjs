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
  // The GM's own Undo and Redo, pressed on the GM's page (its request, so told as the
  // viewer's own), and a player's page in Czech, German, Russian and English; then the
  // GM's secret roll undone and redone: the player's wire and live region carry
  // nothing of it but a secret's placeholder. RB_UNDO as "said" (sr2's table).
  async own(browser, result) {
    const { table, track, gm: gmToken, player: playerToken } = JSON.parse(process.env.RB_UNDO).sr2;
    const url = `${BASE}/tables/${table}`;
    for (const locale of ["cs-CZ", "de-DE", "ru-RU", "en-US"]) {
      const lang = locale.slice(0, 2);
      step(`own ${lang}`);
      const player = await joinedPage(browser, `own-${lang}-player`, { ...PHONE, locale }, trouble, url,
        playerToken, { tap: true });
      const gm = await joinedPage(browser, `own-${lang}-gm`, { ...DESKTOP, locale }, trouble, url, gmToken);
      await player.locator("form.roll-form").waitFor();
      const adjusted = await gmRequest(gm, table, gmToken,
        { type: "adjust", id: `own-adjust-${lang}`, actor: "guard", track, delta: 1 });
      await waitSeq(gm, adjusted.seq);
      const undo = gm.locator('#history button[name="undo"]');
      await gm.waitForSelector('#history button[name="undo"]:not([aria-disabled="true"])');
      await undo.click();
      await waitSeq(gm, adjusted.seq + 1);
      await waitSeq(player, adjusted.seq + 1);
      const got = { adjusted: adjusted.seq, undoGm: await heard(gm, adjusted.seq), undoPlayer: await heard(player, adjusted.seq) };
      await gm.waitForSelector('#history button[name="redo"]:not([aria-disabled="true"])');
      await gm.locator('#history button[name="redo"]').click();
      await waitSeq(gm, adjusted.seq + 2);
      await waitSeq(player, adjusted.seq + 2);
      got.redoGm = await heard(gm, adjusted.seq);
      got.redoPlayer = await heard(player, adjusted.seq);
      // the GM's secret attack on the NPC, undone and redone by the GM
      const secret = await gmRequest(gm, table, gmToken,
        { type: "resolve", id: `own-secret-${lang}`, action: "attack", actor: "pc", targets: ["guard"],
          params: { weapon: "Hackler", range: "short" }, secret: true });
      const undoSecret = await gmRequest(gm, table, gmToken, { type: "undo", id: `own-undo-secret-${lang}` });
      const redoSecret = await gmRequest(gm, table, gmToken, { type: "redo", id: `own-redo-secret-${lang}` });
      await waitSeq(player, redoSecret.seq);
      await flush(player);
      got.secret = { seq: secret.seq, undo: undoSecret.seq, redo: redoSecret.seq,
        player: await heard(player, secret.seq),
        frames: player.gate.frames.map((frame) => JSON.parse(frame))
          .filter((f) => f.type === "event" && f.seq >= secret.seq) };
      result[lang] = got;
      await player.context().close();
      await gm.context().close();
    }
  },
};

await runCase(cases, trouble);
