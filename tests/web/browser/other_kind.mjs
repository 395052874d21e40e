// An event of a kind the page has no words for, in the log (tests/web/test_web_other_kind.py):
// a player's phone (390×844, touch) at the table `web`, in cs, de, ru and en, reads the
// entry of the event RB_SEQS.noted (its kind and the kind's tooltip) and the summary of
// the GM's undo of it (RB_SEQS.undo), and the text of the whole log. RB_CASE: "other".
//
// Environment: RB_BASE, RB_TOKENS (never printed), RB_CHROMIUM, RB_CASE, RB_SEQS.
import process from "node:process";

import { PHONE, caseScript, joinedPage, runCase } from "./pages.mjs";

const { BASE, TOKENS, trouble, step } = caseScript("other_kind");

const cases = {
  async other(browser, result) {
    const { noted, undo } = JSON.parse(process.env.RB_SEQS);
    for (const [lang, locale] of [["cs", "cs-CZ"], ["de", "de-DE"], ["ru", "ru-RU"], ["en", "en-US"]]) {
      step(lang);
      const page = await joinedPage(browser, `player-${lang}`, { ...PHONE, locale }, trouble, `${BASE}/tables/web`,
        TOKENS.web.player);
      await page.locator(`#log li[data-seq="${undo}"]`).waitFor();
      result[lang] = await page.evaluate(({ noted: n, undo: u }) => {
        const kind = document.querySelector(`#log li[data-seq="${n}"] .kind`);
        return {
          kind: kind?.textContent ?? null,
          tooltip: kind?.title ?? null,
          undo: document.querySelector(`#log li[data-seq="${u}"] .summary`)?.textContent ?? null,
          text: document.getElementById("log").innerText,
        };
      }, { noted, undo });
      await page.context().close();
    }
  },
};

await runCase(cases, trouble);
