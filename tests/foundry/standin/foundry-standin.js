// STAND-IN for Foundry VTT's client globals — NOT Foundry.
//
// Foundry VTT is proprietary and cannot be installed here, so the browser test
// (tests/foundry/browser/) loads the rollbridge module's real client code into
// a page where this file provides the few globals the module uses, shaped after
// Foundry's documented API (v12/v13):
//
//   Hooks.on/once/off/call/callAll
//   game.settings.register/get/set (scopes "world", "client", "user"; onChange)
//   game.user {id, name, isGM, character, targets}, game.users.activeGM / contents
//   game.actors (a Collection: get, contents), Actor#update (dotted and nested
//     paths, as Document#update merges them), Actor#getFlag
//   game.modules.get(id) {id, active, version, api, languages}, game.release,
//   game.system, game.socket.on/emit, game.ready
//   game.i18n: the Localization stand-in (localization-standin.js): the
//     configured language's files from the active modules' `languages` (the
//     module's own module.json), English as the per-key fallback, {name}
//     placeholders; loaded between the "init" and "setup" hooks as Foundry
//     does (hook "i18nInit"); every key it lacks is recorded
//   ChatMessage.create / getSpeaker / getWhisperRecipients
//   Roll.fromData with the term classes Die, OperatorTerm, NumericTerm,
//     PoolTerm, ParentheticalTerm, FunctionTerm: our own small model of the
//     documented behaviour (a term's JSON names its class; an evaluated roll
//     keeps its total and results as given; Roll#dice gathers the dice of
//     nested terms) — written for this test, not taken from Foundry's code
//   ui.notifications.info/warn/error
//   game.dice3d.showForRoll(roll, user, synchronize, whisper, blind) — a
//     stand-in for Dice So Nice's API, installed by the test when it wants it
//
// Everything it is asked to do is recorded in `FoundryStandin.log` for the test
// to check. It is used only by tests/foundry/browser/index.html.

(function installFoundryStandin() {
  "use strict";

  const record = { hooks: [], updates: [], messages: [], notifications: [], dice3d: [], socket: [], settingsSet: [] };

  // -- Hooks ---------------------------------------------------------------------
  class Hooks {
    static events = {};
    static on(name, fn, { once = false } = {}) {
      (Hooks.events[name] ??= []).push({ fn, once });
      return fn;
    }
    static once(name, fn) {
      return Hooks.on(name, fn, { once: true });
    }
    static off(name, fn) {
      Hooks.events[name] = (Hooks.events[name] ?? []).filter((h) => h.fn !== fn);
    }
    static #run(name, args, stoppable) {
      record.hooks.push(name);
      for (const hook of [...(Hooks.events[name] ?? [])]) {
        if (hook.once) Hooks.off(name, hook.fn);
        const result = hook.fn(...args);
        if (stoppable && result === false) return false;
      }
      return true;
    }
    static callAll(name, ...args) {
      Hooks.#run(name, args, false);
      return true;
    }
    static call(name, ...args) {
      return Hooks.#run(name, args, true);
    }
  }

  // -- utils ------------------------------------------------------------------------
  function setProperty(object, path, value) {
    const parts = path.split(".");
    let target = object;
    for (const part of parts.slice(0, -1)) target = target[part] ??= {};
    const last = parts.at(-1);
    if (value && typeof value === "object" && !Array.isArray(value) && target[last] && typeof target[last] === "object") {
      mergeObject(target[last], value);
    } else {
      target[last] = structuredClone(value);
    }
  }
  function mergeObject(target, source) {
    for (const [key, value] of Object.entries(source)) {
      if (key.includes(".")) setProperty(target, key, value);
      else if (value && typeof value === "object" && !Array.isArray(value) && target[key] && typeof target[key] === "object") {
        mergeObject(target[key], value);
      } else target[key] = structuredClone(value);
    }
    return target;
  }
  function getProperty(object, path) {
    return path.split(".").reduce((o, k) => (o == null ? undefined : o[k]), object);
  }

  class Collection extends Map {
    get contents() {
      return [...this.values()];
    }
    find(fn) {
      return this.contents.find(fn);
    }
    filter(fn) {
      return this.contents.filter(fn);
    }
  }

  // -- settings ------------------------------------------------------------------------
  class ClientSettings {
    constructor(initial = {}) {
      this.settings = new Map();
      this.values = new Map(Object.entries(initial));
    }
    register(namespace, key, config) {
      const id = `${namespace}.${key}`;
      if (!["world", "client", "user"].includes(config.scope)) throw new Error(`bad scope ${config.scope}`);
      this.settings.set(id, { ...config, namespace, key, id });
    }
    get(namespace, key) {
      const id = `${namespace}.${key}`;
      const config = this.settings.get(id);
      if (!config) throw new Error(`${id} is not a registered game setting`);
      return this.values.has(id) ? structuredClone(this.values.get(id)) : structuredClone(config.default);
    }
    async set(namespace, key, value) {
      const id = `${namespace}.${key}`;
      const config = this.settings.get(id);
      if (!config) throw new Error(`${id} is not a registered game setting`);
      this.values.set(id, structuredClone(value));
      record.settingsSet.push(id);
      config.onChange?.(value);
      return value;
    }
  }

  // -- documents ------------------------------------------------------------------------
  class User {
    constructor({ _id, name, isGM = false, active = true }) {
      this.id = _id;
      this.name = name;
      this.isGM = isGM;
      this.active = active;
      this.targets = new Set();
      this.character = null;
    }
  }

  class Actor {
    constructor({ _id, name, type = "character", flags = {}, system = {} }) {
      this._id = _id;
      this.name = name;
      this.type = type;
      this.flags = structuredClone(flags);
      this.system = structuredClone(system);
    }
    get id() {
      return this._id;
    }
    getFlag(scope, key) {
      return getProperty(this.flags, `${scope}.${key}`);
    }
    async update(data) {
      const changes = structuredClone(data);
      for (const [key, value] of Object.entries(changes)) {
        if (key.startsWith("flags") || key.startsWith("system") || key === "name") setProperty(this, key, value);
        else throw new Error(`stand-in Actor#update: unexpected field ${key}`);
      }
      record.updates.push({ actor: this.id, data: changes });
      Hooks.callAll("updateActor", this, changes, {}, game.user.id);
      return this;
    }
  }

  // -- dice -----------------------------------------------------------------------------
  class RollTerm {
    constructor({ options = {} } = {}) {
      this.options = options;
      this._evaluated = false;
    }
    // The documented contract: a term's JSON names its class; fromData gives back
    // an evaluated term of that class. Our own table, not Foundry's code.
    static fromData(data) {
      const termClass = standinTermClasses()[data.class];
      if (!termClass) throw new Error(`stand-in: no dice term class named ${data.class}`);
      return termClass._fromData(data);
    }
    static _fromData(data) {
      const fields = { ...data };
      if (fields.roll && !(fields.roll instanceof Roll)) fields.roll = Roll.fromData(fields.roll);
      const term = new this(fields);
      term._evaluated = data.evaluated !== false;
      return term;
    }
    get dice() {
      return [];
    }
  }
  class DiceTerm extends RollTerm {
    constructor({ number = 1, faces = 6, modifiers = [], results = [], options = {} }) {
      super({ options });
      this.number = number;
      this.faces = faces;
      this.modifiers = modifiers;
      this.results = results;
      if (results.length) this._evaluated = true;
    }
    get expression() {
      return `${this.number}d${this.faces}${this.modifiers.join("")}`;
    }
    get total() {
      if (!this._evaluated) return undefined;
      let total = this.results.reduce((t, r) => (!r.active ? t : r.count !== undefined ? t + r.count : t + r.result), 0);
      if (this.number < 0) total *= -1;
      return total;
    }
    get values() {
      return this.results.filter((r) => r.active).map((r) => r.result);
    }
  }
  class Die extends DiceTerm {}
  class OperatorTerm extends RollTerm {
    constructor({ operator, options } = {}) {
      super({ options });
      this.operator = operator;
      this._evaluated = true;
    }
    static _fromData(data) {
      return new this(data);
    }
    get total() {
      return ` ${this.operator} `;
    }
  }
  class NumericTerm extends RollTerm {
    constructor({ number, options } = {}) {
      super({ options });
      this.number = Number(number);
    }
    get total() {
      return this.number;
    }
  }
  // Terms that hold whole rolls of their own (pools, functions): their rolls come back
  // as Roll objects, and their dice are those rolls' dice.
  class TermWithRolls extends RollTerm {
    constructor({ terms = [], rolls = [], options = {} } = {}) {
      super({ options });
      this.terms = terms;
      this.rolls = rolls;
    }
    static _fromData(data) {
      const rolls = (data.rolls || []).map((r) => (r instanceof Roll ? r : Roll.fromData(r)));
      return super._fromData({ ...data, rolls });
    }
    get dice() {
      return this.rolls.flatMap((r) => r.dice);
    }
  }
  class PoolTerm extends TermWithRolls {
    constructor({ modifiers = [], results = [], ...rest } = {}) {
      super(rest);
      this.modifiers = modifiers;
      this.results = results;
    }
    get total() {
      return this.results.reduce((t, r) => (!r.active ? t : r.count !== undefined ? t + r.count : t + r.result), 0);
    }
  }
  class ParentheticalTerm extends RollTerm {
    constructor({ term, roll, options } = {}) {
      super({ options });
      this.term = term;
      this.roll = roll;
    }
    get dice() {
      return this.roll?.dice ?? [];
    }
    get total() {
      return this.roll?.total;
    }
  }
  class FunctionTerm extends TermWithRolls {
    constructor({ fn, result, ...rest } = {}) {
      super(rest);
      this.fn = fn;
      this.result = result;
    }
    get total() {
      return this.result;
    }
  }
  function standinTermClasses() {
    return { Die, DiceTerm: Die, OperatorTerm, NumericTerm, PoolTerm, ParentheticalTerm, FunctionTerm };
  }
  class Roll {
    constructor(formula, data = {}, options = {}) {
      if (typeof formula !== "string" || !formula.trim()) throw new Error("stand-in Roll: a formula is needed");
      this._formula = formula;
      this.data = data;
      this.options = options;
      this.terms = [];
      this._dice = [];
      this._total = undefined;
      this._evaluated = false;
    }
    // Rebuild an evaluated roll from its JSON (the shape Roll#toJSON documents):
    // terms become term objects, the total and the results are taken as given.
    static fromData(data) {
      if (data.class && data.class !== "Roll") throw new Error(`stand-in: only Roll is modelled, not ${data.class}`);
      const roll = new Roll(data.formula, data.data ?? {}, data.options ?? {});
      roll.terms = (data.terms ?? []).map((term) => (term instanceof RollTerm ? term : RollTerm.fromData(term)));
      if (data.evaluated !== false) {
        roll._evaluated = true;
        roll._total = data.total;
        roll._dice = (data.dice ?? []).map((term) => RollTerm.fromData(term));
      }
      return roll;
    }
    get formula() {
      return this._formula;
    }
    get total() {
      return this._total;
    }
    get dice() {
      return this._dice.concat(this.terms.flatMap((t) => [...(t.dice ?? []), ...(t instanceof DiceTerm ? [t] : [])]));
    }
    toJSON() {
      return {
        class: this.constructor.name, options: this.options, dice: this._dice, formula: this._formula,
        terms: this.terms, total: this._total, evaluated: this._evaluated,
      };
    }
  }

  // -- chat -------------------------------------------------------------------------------
  let messageCount = 0;
  class ChatMessage {
    constructor(data) {
      this.id = `msg${++messageCount}`;
      Object.assign(this, data);
    }
    static async create(data) {
      const message = new ChatMessage(structuredClone({ ...data, rolls: undefined }));
      message.rolls = data.rolls ?? [];
      message.author = game.user.id;
      record.messages.push(message);
      const log = document.getElementById("chat-log");
      if (log) {
        const li = document.createElement("li");
        li.className = "chat-message message flexcol";
        li.dataset.messageId = message.id;
        li.innerHTML = `<header class="message-header"><h4 class="message-sender">${message.speaker?.alias ?? game.user.name}</h4>`
          + `${message.whisper?.length ? '<span class="whisper-to">(GM only)</span>' : ""}</header>`
          + `<div class="message-content">${message.content}</div>`;
        log.append(li);
      }
      Hooks.callAll("createChatMessage", message, {}, game.user.id);
      return message;
    }
    static getSpeaker({ actor, alias } = {}) {
      const speaking = actor ?? game.standinControlled ?? game.user.character;
      return { scene: "standinScene", actor: speaking?.id ?? null, token: null, alias: alias ?? speaking?.name ?? game.user.name };
    }
    static getWhisperRecipients(name) {
      if (name === "GM") return game.users.contents.filter((u) => u.isGM);
      return game.users.contents.filter((u) => u.name === name);
    }
  }

  // -- ui ------------------------------------------------------------------------------------
  const notify = (level) => (text) => {
    record.notifications.push({ level, text });
    const box = document.getElementById("notifications");
    if (box) {
      const li = document.createElement("li");
      li.className = `notification ${level}`;
      li.textContent = text;
      box.append(li);
    }
  };

  // -- the game ---------------------------------------------------------------------------------
  // language: the user's Foundry language (core.language); manifest: the module's module.json;
  // moduleRoot: where the page serves the module's folder; coreLanguages: languages a core
  // translation module adds ({lang: name}) without rollbridge strings of its own
  function install({
    system = "shadowrun5e", generation = 13, settings = {}, user = "gm", language = "en",
    manifest = { languages: [] }, moduleRoot = "/adapters/foundry/module/", coreLanguages = {},
  } = {}) {
    const gm = new User({ _id: "standinGM000001", name: "Gamemaster", isGM: true });
    const player = new User({ _id: "standinPlr00001", name: "Player" });
    const me = user === "gm" ? gm : player;
    globalThis.CONFIG = {
      Dice: {
        rolls: [Roll],
        termTypes: { DiceTerm, Die, OperatorTerm, NumericTerm, PoolTerm, ParentheticalTerm, FunctionTerm },
        terms: { d: Die },
      },
    };
    const module = {
      id: "rollbridge", title: "rollbridge", active: true, version: "standin",
      languages: structuredClone(manifest.languages ?? []),
    };
    const coreTranslation = {
      id: "standin-core-translation", active: true, coreTranslation: true,
      languages: Object.entries(coreLanguages).map(([lang, name]) => ({ lang, name, path: "" })),
    };
    const { Localization } = globalThis.FoundryLocalizationStandin;
    const i18n = new Localization({
      packages: [coreTranslation, module],
      load: async (pkg, path) => {
        if (pkg !== module) return {}; // a core translation: no rollbridge strings
        const response = await fetch(`${moduleRoot}${path}`);
        if (response.status !== 200) throw new Error(`stand-in: cannot load ${path} (${response.status})`);
        return response.json();
      },
    });
    record.language = language;
    const socketHandlers = {};
    globalThis.game = {
      ready: false,
      release: { generation, version: `${generation}.standin` },
      system: { id: system },
      user: me,
      users: Object.assign(new Collection([[gm.id, gm], [player.id, player]]), { activeGM: gm }),
      actors: new Collection(),
      modules: new Collection([["rollbridge", module]]),
      settings: new ClientSettings(settings),
      i18n,
      socket: {
        on: (name, fn) => { (socketHandlers[name] ??= []).push(fn); },
        emit: (name, message) => { record.socket.push({ name, message }); },
      },
    };
    game.settings.register("core", "rollMode", { scope: "client", config: false, type: String, default: "publicroll" });
    globalThis.ui = { notifications: { info: notify("info"), warn: notify("warn"), error: notify("error") } };
    globalThis.canvas = { tokens: { controlled: [] } };
    return { gm, player, module };
  }

  function installDiceSoNice() {
    game.dice3d = {
      async showForRoll(roll, user, synchronize, whisper, blind) {
        record.dice3d.push({
          total: roll.total,
          formula: roll.formula,
          results: roll.dice.flatMap((d) => d.results.map((r) => r.result)),
          user: user?.id, synchronize, whisper, blind,
        });
        return true;
      },
    };
  }

  function addActor(data) {
    const actor = new Actor(data);
    game.actors.set(actor.id, actor);
    return actor;
  }

  // Foundry's order: init, then the language's files (game.i18n.initialize), i18nInit, setup, ready
  async function boot() {
    Hooks.callAll("init");
    await game.i18n.setLanguage(record.language);
    Hooks.callAll("i18nInit");
    Hooks.callAll("setup");
    game.ready = true;
    Hooks.callAll("ready");
  }

  Object.assign(globalThis, {
    Hooks, Roll, Die, DiceTerm, RollTerm, OperatorTerm, NumericTerm, PoolTerm, ParentheticalTerm,
    FunctionTerm, ChatMessage, Actor,
  });
  globalThis.foundry = { utils: { mergeObject, setProperty, getProperty, deepClone: structuredClone } };
  globalThis.FoundryStandin = { install, installDiceSoNice, addActor, boot, log: record, isStandin: true };
})();
