// An actor added and one removed on its turn, told to a screen reader
// (tests/web/test_web_removed_told.py), in headless Chromium against a real rollbridge
// server: at the sr2 table `web` a Russian GM's phone starts the encounter and passes
// the turn to Rook; the GM removes Rook and adds Scout over the protocol (as Foundry
// does); what each page's live region was told — the GM's, a Czech player's, a German
// observer's and an English player's. RB_CASE: "removed".
//
// Environment: RB_BASE, RB_TOKENS (never printed), RB_CHROMIUM, RB_CASE, RB_SHEET (the
// sheet of the actor added, JSON).
import process from "node:process";

import { PHONE, addActor, caseScript, gmRequest, joinedPage, listen, runCase, seqOf, told, waitSeq } from "./pages.mjs";

const { BASE, TOKENS, trouble, step } = caseScript("removed_told");

const cases = {
  async removed(browser, result) {
    const url = `${BASE}/tables/web`;
    const pages = {
      ru: await joinedPage(browser, "gm-ru", { ...PHONE, locale: "ru-RU" }, trouble, url, TOKENS.web.gm),
      cs: await joinedPage(browser, "player-cs", { ...PHONE, locale: "cs-CZ" }, trouble, url, TOKENS.web.player),
      de: await joinedPage(browser, "observer-de", { ...PHONE, locale: "de-DE" }, trouble, url, TOKENS.web.observer),
      en: await joinedPage(browser, "player-en", { ...PHONE, locale: "en-US" }, trouble, url, TOKENS.web.player),
    };
    const gm = pages.ru;
    for (const page of Object.values(pages)) await listen(page);
    /** `act()` done, and its event in on every page. */
    const everywhere = async (act) => {
      const seq = await seqOf(gm);
      await act();
      for (const page of Object.values(pages)) await waitSeq(page, seq + 1);
    };
    step("the encounter starts; Rook's turn");
    await everywhere(() => gm.locator('#encounter button[name="start"]').tap());
    await everywhere(() => gm.locator('#encounter button[name="next"]').tap());
    step("Rook removed on its turn; Scout added");
    await everywhere(() => gmRequest(gm, "web", TOKENS.web.gm, { type: "actor.remove", id: "rook-gone", actor: "rook" }));
    const sheet = JSON.parse(process.env.RB_SHEET);
    await everywhere(() => addActor(gm, "web", TOKENS.web.gm, { id: "scout", name: "Scout", sheet, controllers: [] }));
    for (const [lang, page] of Object.entries(pages)) {
      result[lang] = { told: await told(page),
        current: await page.locator("#encounter li.current").getAttribute("data-actor") };
    }
  },
};

await runCase(cases, trouble);
