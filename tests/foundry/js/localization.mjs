// game.i18n for Node's tests: the Localization stand-in
// (tests/foundry/standin/localization-standin.js) loading the module's own
// language files the way Foundry does — from module.json's `languages`.

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import "../standin/localization-standin.js";

export const MODULE_DIR = fileURLToPath(new URL("../../../adapters/foundry/module/", import.meta.url));
export const MANIFEST = JSON.parse(readFileSync(`${MODULE_DIR}module.json`, "utf8"));
export const LANGUAGES = MANIFEST.languages.map((l) => l.lang);

/** A Localization set to `lang` with the rollbridge module active. */
export async function localization(lang = "en") {
  const { Localization } = globalThis.FoundryLocalizationStandin;
  const module = { id: MANIFEST.id, active: true, languages: MANIFEST.languages };
  const i18n = new Localization({
    packages: [module],
    load: async (_pkg, path) => JSON.parse(readFileSync(`${MODULE_DIR}${path}`, "utf8")),
  });
  return i18n.setLanguage(lang);
}

/** The English one, for the tests that check the English texts. */
export const en = await localization("en");
