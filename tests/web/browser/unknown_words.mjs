// Words the page had none for, in the log (tests/web/test_web_unknown_words.py): a
// player's phone (390×844, touch) at the table `marks`, in cs, de, ru and en, reads the
// die of the action RB_SEQS.acted (what a screen reader hears beside it, its number and
// its title), the summaries of the roll RB_SEQS.rolled and the removal RB_SEQS.removed
// of an actor the page never saw, the summary of each of RB_SEQS, and the text of the
// whole log. RB_CASE: "words"; or "overlay": the overlay opened after RB_SEQS.rook_rolled,
// who it shows rolled.
//
// Environment: RB_BASE, RB_TOKENS (never printed), RB_CHROMIUM, RB_CASE, RB_SEQS.
import process from "node:process";

import { PHONE, caseScript, joinedPage, runCase } from "./pages.mjs";

const { BASE, TOKENS, trouble, step } = caseScript("unknown_words");

const cases = {
  /** The overlay (an observer's token) opened after the roll RB_SEQS.rook_rolled: who
   * it shows rolled. */
  async overlay(browser, result) {
    const seqs = JSON.parse(process.env.RB_SEQS);
    const page = await joinedPage(browser, "overlay", { viewport: { width: 1280, height: 720 } }, trouble,
      `${BASE}/tables/marks/overlay`, TOKENS.marks.observer);
    const shown = page.locator(`#latest .shown[data-seq="${seqs.rook_rolled}"]`);
    await shown.waitFor();
    result.who = await shown.locator(".who").textContent();
  },

  async words(browser, result) {
    const seqs = JSON.parse(process.env.RB_SEQS);
    for (const [lang, locale] of [["cs", "cs-CZ"], ["de", "de-DE"], ["ru", "ru-RU"], ["en", "en-US"]]) {
      step(lang);
      const page = await joinedPage(browser, `player-${lang}`, { ...PHONE, locale }, trouble, `${BASE}/tables/marks`,
        TOKENS.marks.player);
      await page.locator(`#log li[data-seq="${seqs.acted}"]`).waitFor();
      result[lang] = await page.evaluate((seqs) => {
        const { acted, rolled, removed } = seqs;
        const entry = (seq) => document.querySelector(`#log li[data-seq="${seq}"]`);
        const dice = [...entry(acted).querySelectorAll(".die")];
        return {
          dice: dice.map((die) => die.textContent),
          title: dice[0]?.title ?? null,
          said: [...entry(acted).querySelectorAll(".dice .visually-hidden")].map((span) => span.textContent),
          rolled: entry(rolled)?.querySelector(".summary")?.textContent ?? null,
          removed: entry(removed)?.querySelector(".summary")?.textContent ?? null,
          text: document.getElementById("log").innerText,
          summaries: Object.fromEntries(Object.entries(seqs)
            .map(([name, seq]) => [name, entry(seq)?.querySelector(".summary")?.textContent ?? null])),
        };
      }, seqs);
      await page.context().close();
    }
  },
};

await runCase(cases, trouble);
