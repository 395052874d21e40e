// STAND-IN for Foundry VTT's Localization (game.i18n) — NOT Foundry.
//
// Shaped after the documented API of Foundry v12/v13 (client Localization; the
// foundry-vtt-types declarations of `Localization`):
//
//   lang                      the language in use ("en", "cs", …)
//   translations              that language's strings (nested objects)
//   _fallback                 the English strings, loaded when lang is not "en"
//   setLanguage(lang)         a language no package offers falls back to "en"
//                             (Foundry logs "Cannot set language …");
//                             loads, from every active module, the `languages`
//                             entries ({lang, name, path}) of that language and
//                             merges them; loads the "en" ones as the fallback
//   localize(key)             translations, else the English fallback, else the
//                             key itself; a key that is not a string (an object
//                             of keys) counts as missing
//   format(key, data)         localize, then every {name} replaced by data[name]
//                             — as Foundry does it, a name data lacks becomes
//                             the text "undefined"
//   has(key, fallback = true) whether the key has a string
//
// Strict where Foundry is lenient, so the tests catch what a user would see as
// a bare key or an "undefined": every key asked for that has no English string
// goes in `problems` ({kind: "missing", key}), every placeholder format could
// not fill ({kind: "unfilled", key, name}); every key served from the English
// fallback in another language goes in `fallbacks`. The tests assert both are
// empty. Written for the tests from the documented behaviour, not Foundry's code.
//
// A classic script: the browser page loads it with <script>, Node's tests
// import it; either way it defines globalThis.FoundryLocalizationStandin.

(function installLocalizationStandin() {
  "use strict";

  function getProperty(object, path) {
    return String(path).split(".").reduce((o, k) => (o == null ? undefined : o[k]), object);
  }

  // Foundry expands a file's dotted keys ({"A.B": "x"} is {A: {B: "x"}}) and merges files in load order
  function expandObject(object) {
    const out = {};
    for (const [key, value] of Object.entries(object ?? {})) {
      const parts = key.split(".");
      let target = out;
      for (const part of parts.slice(0, -1)) target = target[part] ??= {};
      const last = parts.at(-1);
      const expanded = value && typeof value === "object" && !Array.isArray(value) ? expandObject(value) : value;
      target[last] = target[last] && typeof target[last] === "object" && typeof expanded === "object"
        ? merge(target[last], expanded) : expanded;
    }
    return out;
  }
  function merge(target, source) {
    for (const [key, value] of Object.entries(source)) {
      if (value && typeof value === "object" && target[key] && typeof target[key] === "object") merge(target[key], value);
      else target[key] = value;
    }
    return target;
  }

  class Localization {
    /**
     * @param {object} options
     * @param {Iterable<object>} options.packages  modules: {id, active, languages: [{lang, name, path}]}
     * @param {Function} options.load              async (module, path) => the parsed JSON of a language file
     */
    constructor({ packages = [], load } = {}) {
      this.lang = "en";
      this.translations = {};
      this._fallback = {};
      this.packages = [...packages];
      this.load = load;
      this.problems = [];
      this.fallbacks = [];
      this.loaded = [];
    }

    /** The languages the packages offer ({lang: name}), as Foundry's CONFIG.supportedLanguages. */
    get supportedLanguages() {
      const languages = { en: "English" };
      for (const pkg of this.packages) {
        if (!pkg.active) continue;
        for (const l of pkg.languages ?? []) languages[l.lang] ??= l.name;
      }
      return languages;
    }

    async setLanguage(lang) {
      if (!Object.hasOwn(this.supportedLanguages, lang)) {
        console.error(`Cannot set language ${lang}, as it is not in the supported set. Falling back to English`);
        lang = "en";
      }
      this.lang = lang;
      this.translations = await this.#translations(lang);
      this._fallback = lang !== "en" ? await this.#translations("en") : {};
      return this;
    }

    async #translations(lang) {
      const translations = {};
      for (const pkg of this.packages) {
        if (!pkg.active) continue;
        for (const entry of pkg.languages ?? []) {
          if (entry.lang !== lang) continue;
          const json = await this.load(pkg, entry.path);
          this.loaded.push(`${pkg.id}/${entry.path}`);
          merge(translations, expandObject(json));
        }
      }
      return translations;
    }

    has(stringId, fallback = true) {
      if (typeof getProperty(this.translations, stringId) === "string") return true;
      return fallback && typeof getProperty(this._fallback, stringId) === "string";
    }

    localize(stringId) {
      const own = getProperty(this.translations, stringId);
      if (typeof own === "string") return own;
      const fallback = getProperty(this._fallback, stringId);
      if (typeof fallback === "string") {
        this.fallbacks.push(stringId);
        return fallback;
      }
      this.problems.push({ kind: "missing", key: String(stringId) });
      return stringId;
    }

    format(stringId, data = {}) {
      const text = this.localize(stringId);
      return text.replace(/{[^}]+}/g, (k) => {
        const name = k.slice(1, -1);
        if (!Object.hasOwn(data ?? {}, name) || data[name] === undefined) {
          this.problems.push({ kind: "unfilled", key: String(stringId), name });
        }
        return data?.[name];
      });
    }
  }

  globalThis.FoundryLocalizationStandin = { Localization, expandObject, isStandin: true };
})();
