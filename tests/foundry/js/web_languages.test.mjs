// The web view's own words (core/server/webui/lang/*.json): the counted texts take
// each language's plural form for 1, 2, 5 and 21 (Russian's 21 is "one", Czech's
// "other": a form of "one" says nothing only one request could be), and the language a viewer chooses is kept and read back (a browser that
// denies the page its storage changes nothing, and throws nothing).
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";

import {
  CHOSEN_LANGUAGE, chooseLanguage, chosenLanguage, counted, i18n, useLanguage,
} from "../../../core/server/webui/texts.mjs";

const LANG = new URL("../../../core/server/webui/lang/", import.meta.url);
/** fetch() of the served language files, read from the source tree. */
const fromDisk = async (url) => {
  const name = url.split("/").pop();
  return { ok: true, json: async () => JSON.parse(await readFile(new URL(name, LANG), "utf-8")) };
};

const EXPECTED = {
  ru: {
    "ROLLBRIDGE.Web.Count.Rolls": ["1 бросок", "2 броска", "5 бросков", "21 бросок"],
    "ROLLBRIDGE.Web.Count.Dice": ["1 кость", "2 кости", "5 костей", "21 кость"],
    "ROLLBRIDGE.Web.Count.Successes": ["1 успех", "2 успеха", "5 успехов", "21 успех"],
    "ROLLBRIDGE.Web.Count.Events": ["1 событие", "2 события", "5 событий", "21 событие"],
    "ROLLBRIDGE.Web.Log.Ended": ["после 1 раунда", "после 2 раундов", "после 5 раундов", "после 21 раунда"],
    // Russian's 21 takes the form of 1: "to it" (к нему) would name one of 21 requests
    "ROLLBRIDGE.Web.Log.Waiting": ["1 запрос ждёт вашего одобрения: перейти к списку",
      "2 запроса ждут вашего одобрения: перейти к ним", "5 запросов ждут вашего одобрения: перейти к ним",
      "21 запрос ждёт вашего одобрения: перейти к списку"],
  },
  cs: {
    "ROLLBRIDGE.Web.Count.Rolls": ["1 hod", "2 hody", "5 hodů", "21 hodů"],
    "ROLLBRIDGE.Web.Count.Dice": ["1 kostka", "2 kostky", "5 kostek", "21 kostek"],
    "ROLLBRIDGE.Web.Count.Successes": ["1 úspěch", "2 úspěchy", "5 úspěchů", "21 úspěchů"],
    "ROLLBRIDGE.Web.Count.Events": ["1 událost", "2 události", "5 událostí", "21 událostí"],
    "ROLLBRIDGE.Web.Log.Ended": ["po 1 kole", "po 2 kolech", "po 5 kolech", "po 21 kolech"],
    "ROLLBRIDGE.Web.Log.Waiting": ["1 žádost čeká na vaše schválení: přejít k ní",
      "2 žádosti čekají na vaše schválení: přejít k nim", "5 žádostí čeká na vaše schválení: přejít k nim",
      "21 žádostí čeká na vaše schválení: přejít k nim"],
  },
  de: {
    "ROLLBRIDGE.Web.Log.Waiting": ["1 Anfrage wartet auf Ihre Freigabe: zu ihr springen",
      "2 Anfragen warten auf Ihre Freigabe: zu ihnen springen", "5 Anfragen warten auf Ihre Freigabe: zu ihnen springen",
      "21 Anfragen warten auf Ihre Freigabe: zu ihnen springen"],
  },
};

for (const [lang, texts] of Object.entries(EXPECTED)) {
  test(`${lang}: counted texts in the plural form of 1, 2, 5 and 21`, async () => {
    await useLanguage(lang, fromDisk);
    assert.equal(i18n.lang, lang);
    for (const [key, lines] of Object.entries(texts)) {
      assert.deepEqual([1, 2, 5, 21].map((count) => counted(i18n, key, count)), lines, key);
    }
  });
}

test("the language chosen is kept and read back; an unknown one is not", () => {
  const kept = new Map();
  const storage = { getItem: (key) => kept.get(key) ?? null, setItem: (key, value) => kept.set(key, value) };
  assert.equal(chosenLanguage(storage), null);
  assert.equal(chooseLanguage("ru", storage), true);
  assert.equal(kept.get(CHOSEN_LANGUAGE), "ru");
  assert.equal(chosenLanguage(storage), "ru");
  assert.equal(chooseLanguage("tlh", storage), false);
  kept.set(CHOSEN_LANGUAGE, "<script>");
  assert.equal(chosenLanguage(storage), null);
});

test("storage denied: nothing is chosen, nothing thrown", () => {
  const denied = { getItem: () => { throw new Error("denied"); }, setItem: () => { throw new Error("denied"); } };
  assert.equal(chosenLanguage(denied), null);
  assert.equal(chooseLanguage("de", denied), false);
});

test("the browser's languages: the first the page has words in, in the viewer's order", async () => {
  const { browserLocale } = await import("../../../core/server/webui/session.mjs");
  assert.equal(browserLocale({ languages: ["fr-CH", "de-CH", "en"] }), "de-CH"); // not English
  assert.equal(browserLocale({ languages: ["cs-CZ", "en-US"] }), "cs-CZ");
  assert.equal(browserLocale({ languages: ["ru"], language: "ru" }), "ru");
  assert.equal(browserLocale({ languages: ["fr-FR"], language: "fr-FR" }), "fr-FR"); // none: the first
  assert.equal(browserLocale({ languages: ["<bad>", "de"] }), "de");
  assert.equal(browserLocale({}), "en");
  assert.equal(browserLocale(undefined), "en");
});
