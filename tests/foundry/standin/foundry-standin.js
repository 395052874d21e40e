// STAND-IN for Foundry VTT's client globals — NOT Foundry.
//
// Foundry VTT is proprietary and cannot be installed here, so the browser test
// (tests/foundry/browser/) loads the rollbridge module's real client code into
// a page where this file provides the few globals the module uses, shaped after
// Foundry's documented API (v12/v13):
//
//   Hooks.on/once/off/call/callAll (each install() a fresh page: no hooks of the one before;
//     on and once return the hook's numeric id, off takes the id or the function)
//   game.settings.register/get/set (scopes "world", "client", "user"; onChange;
//     a world setting written by a user Foundry's server refuses throws, as
//     BaseSetting's permission test has it (v12 and v13): a user with the
//     permission SETTINGS_MODIFY may, an assistant without it only some core
//     keys, `core.permissions` a full gamemaster alone. The permission is
//     User#hasPermission's: the user's own `permissions`, else the world's
//     `core.permissions` ({PERMISSION: [roles]}, as the GM's Permission
//     Configuration writes it; default: an assistant and a full gamemaster).
//     game.settings.storage.get("world").getSetting(key): the world setting's
//     Setting document {key, value, _stats: {lastModifiedBy}}, the user whose
//     write the server took last (a managed field: no client sets it); a world
//     setting given to install() counts as the world's first GM's, or the
//     user `settingsBy` names; one never written has none. A world setting's
//     value is kept as JSON, and a write that changes nothing is no update: no
//     onChange, its writer unchanged)
//   game.socket.on/emit on a module's channel: reaches the world's other pages,
//     the handler getting the sender's user id after the message (as Foundry's
//     server adds it; a v13 query handler gets no sender, as in Foundry)
//   game.user {id, name, role, isGM, active, character, targets}, game.users
//     (the world's users given to install(), the same on every page of one world;
//     isGM is role >= ASSISTANT, as User#isGM is hasRole("ASSISTANT")) and
//     Users#activeGM, a getter read at each call as Foundry's: the active GMs, a
//     full gamemaster before an assistant, then by id compared by code unit;
//     setUserActive(userId, active): another user's client connects or leaves
//     (its `active` changes, then the hook userConnected(user, active) runs)
//   game.actors (a Collection: get, contents), Actor#update (dotted and nested
//     paths, as Document#update merges them; a "-=key" deletes key, as with
//     performDeletions; refused, as Foundry refuses it, for a user without
//     OWNER permission (ownership, testUserPermission, isOwner), for a field
//     outside name/flags/system/ownership and for a flag scope that is not
//     active), Actor#getFlag, Actor#toggleStatusEffect(statusId, {active})
//     (v12+; the id must be one of CONFIG.statusEffects, else it throws),
//     Actor#statuses, Actor#isToken, Actor#token, Actor#uuid, Actor#delete (the
//     actor leaves game.actors, hook deleteActor); Actor#validate({changes}), the
//     system data model's check of a change (takes anything; a test gives an
//     actor its own to refuse a value): a refused change is skipped alone, as
//     Foundry's client skips it (an error notification, log.skipped, the actor
//     left out of the answer; Actor#update resolves undefined);
//     Actor.updateDocuments([{_id, ...}]) for world actors (no parent, no pack):
//     every change checked first (the actor in game.actors, OWNER, the fields),
//     one failing fails the whole operation with nothing written, each written
//     actor recorded with its `batch` (log.batches: one entry per operation);
//     resolves with the actors written
//   game.scenes (Scenes with `tokens`): TokenDocument {id, name, actorId,
//     actorLink, uuid "Scene.<id>.Token.<id>", delta (ActorDelta), actor}: a
//     linked token's actor is the world actor; an unlinked token's is its
//     synthetic actor — the base actor's data with the delta applied, the base
//     actor's id, a uuid under the token's, isToken true — whose updates and
//     status effects land in the delta, never in the base actor; baseActor; an
//     unlinked token whose base actor was deleted has no actor (null, as
//     TokenDocument#actor is declared `Actor | null`)
//   ChatMessage.create's `author` (v12+): a user posts as itself, only a GM as
//     another user (else it throws; so does a message of another page's posted so,
//     and a player's update of the author: immutable on v12, gmOnly on v13); whispers to existing users only; every roll
//     of the message evaluated (else it throws); a message with rolls gets
//     ChatMessage#_preCreate's roll mode: options.rollMode, and on v12 without
//     one and without a whisper the creating user's core.rollMode (v13 only
//     applies options.rollMode)
//   v13 queries: CONFIG.queries (v13 only) and User#query(name, data,
//     {timeout}) run on the queried user's page (the world's channel) and
//     answer; headless, FoundryStandin.queryClient stands for that client
//   headless install (Node's tests): no DOM; the chat log records what it
//     would render and whether its content would show, and draws it (its
//     render hooks run) into the element the test gives
//     (FoundryStandin.headlessElement(message)), when it gives one
//   game.modules.get(id) {id, active, version, api, languages}, game.release,
//   game.system, game.socket.on/emit, game.ready
//   game.i18n: the Localization stand-in (localization-standin.js): the
//     configured language's files from the active modules' `languages` (the
//     module's own module.json), English as the per-key fallback, {name}
//     placeholders; loaded between the "init" and "setup" hooks as Foundry
//     does (hook "i18nInit"); every key it lacks is recorded
//   ChatMessage.create / getSpeaker / getWhisperRecipients, and a message's
//     getFlag (a scope that is not "core", the system or an active module
//     throws, as in Foundry), whisper, blind, author, visible, isContentVisible
//     (modelled on the documented getters: a whisper is visible to its
//     recipients and its author; a blind roll's content to its recipients);
//     game.messages (a Collection)
//   the chat log (ui.chat.postOne): a message this user may not see is not
//     rendered; a roll whose content is hidden shows "???" instead. v12 renders
//     with ChatMessage#getHTML and the hook renderChatMessage(message, html,
//     data) with `html` a jQuery stand-in (StandinJQuery: [0], length, find,
//     get, toArray; no DOM methods of its own); v13 with ChatMessage#renderHTML
//     and renderChatMessageHTML(message, html, data) with an HTMLElement, and
//     then, as v13 does, the deprecated renderChatMessage with the element in
//     jQuery, only when something listens to it (`"renderChatMessage" in
//     Hooks.events`), recording a compatibility warning. A message it draws
//     is `logged` (ChatMessage#logged). ui.chat.updateMessage(message) (v12
//     and v13) draws a message the log shows again, in place, its render
//     hooks run again; a message it does not show, it posts
//   the world's socket: a message created on one page reaches the other pages
//     of the same browser (a BroadcastChannel standing in for Foundry's server),
//     which add it to game.messages, render it and fire createChatMessage
//   Roll.fromData with the term classes Die, OperatorTerm, NumericTerm,
//     PoolTerm, ParentheticalTerm, FunctionTerm: our own small model of the
//     documented behaviour (a term's JSON names its class; an evaluated roll
//     keeps its total and results as given; Roll#dice gathers the dice of
//     nested terms) — written for this test, not taken from Foundry's code
//   Roll#evaluate and DiceTerm evaluation with CONFIG.Dice.fulfillment (v12+):
//     each die one awaited DiceTerm#roll, its value from the method the user's
//     core.diceConfiguration or CONFIG.Dice.fulfillment.defaultMethod names
//     (handler(term, options), undefined: Foundry's own randomFace), the
//     term's `_root` its roll; CONFIG.Dice.randomUniform injectable
//     (install({random})); every fulfilment asked is recorded (`fulfilled`)
//   ui.notifications.notify/info/warn/error(message, options), as each generation
//     declares it: v12 puts the message in the page as HTML, as it is (`localize`
//     aside); v13 localizes it (`localize`), or formats it with `format`, whose values
//     it escapes unless `escape` is false, and cleans the result as untrusted HTML
//     (`clean`, on unless format with escape, or localize without format) — cleaning
//     drops script elements, on* attributes and javascript: URLs and leaves text
//     as text. Each is recorded as {level, text: the message passed, html: what the
//     notification holds, shown: the words a user reads, markup: whether it holds an
//     element}
//   foundry.applications.api.DialogV2.wait (v12/v13): strict as its
//     declarations (buttons, callback arguments, null or a rejection on
//     dismissal by generation); headless the test submits, presses Enter or
//     Escape (FoundryStandin.log.dialogs); in a page a modal <dialog>
//   Combat and Combatant (v12/v13): game.combats (active, viewed), game.combat,
//     Combat.create, createEmbeddedDocuments/deleteEmbeddedDocuments("Combatant"),
//     startCombat, nextTurn, previousTurn, nextRound, previousRound, endCombat,
//     delete, update; Combat#turns, round, turn, started, combatant, current and
//     previous (Combat.HistoryData); Combatant#actor (its token's actor, synthetic
//     when unlinked), actorId, tokenId, token. The hooks combatStart/combatTurn/
//     combatRound on the initiating client only; combatTurnChange, updateCombat,
//     deleteCombat on every client; a player may only move the turn on from its
//     own combatant's turn. asUser(userId, fn): another user's client drives it
//   Dice So Nice (installDiceSoNice, when the test wants it): a stand-in of its
//     chat-message path — on createChatMessage (which Foundry fires before it
//     renders the message), a message with rolls whose content this user may
//     see is animated unless a module turned `willTrigger3DRoll` off in
//     diceSoNiceMessagePreProcess (v6+) or diceSoNiceMessageProcessed (which
//     v6 keeps but warns about when it is written); each animation records the
//     dice thrown, every Die term's results in the order given, and whether they
//     `landed`; while they roll its render hook hides the message (`dsn-hide`),
//     and once they landed the class goes and diceSoNiceRollComplete fires.
//     game.dice3d.showForRoll(roll, user, synchronize, users, blind,
//     messageID, speaker) is there too (recorded apart, with `landed`): as
//     Dice So Nice 5's, it sends nothing and resolves false when the calling
//     user's own "Only show my dice" (the user's
//     flags["dice-so-nice"].settings.onlyShowOwnDice) is on and `user` is
//     another user (recorded with `dropped`); as its Dice3D#show, it resolves
//     false at once when blind for the caller, and while the tab is hidden
//     (installDiceSoNice({hidden: true}), setTabHidden) it resolves only once
//     the tab is visible again. A throw lands at once, or with
//     installDiceSoNice({manual: true}) only when the test calls landDice()
//
// Everything it is asked to do is recorded in `FoundryStandin.log` for the test
// to check. It is used only by tests/foundry/browser/index.html.

(function installFoundryStandin() {
  "use strict";

  const record = {
    hooks: [], updates: [], messages: [], notifications: [], dice3d: [], socket: [], settingsSet: [], fulfilled: [],
    rendered: [], compatibility: [], statusEffects: [], showForRoll: [], queries: [], confirmations: [],
    notified: [], scrolled: [], deleted: [], batches: [], skipped: [], messageUpdates: [], dialogs: [],
  };

  // -- Hooks ---------------------------------------------------------------------
  // Hooks.on and Hooks.once return the hook's id (a number, as Foundry's), not the
  // function; Hooks.off takes that id or the function
  let hookCount = 0;
  class Hooks {
    static events = {};
    static on(name, fn, { once = false } = {}) {
      if (typeof fn !== "function") throw new Error(`stand-in: Hooks.on("${name}") needs a function`);
      const id = ++hookCount;
      (Hooks.events[name] ??= []).push({ hook: name, id, fn, once });
      return id;
    }
    static once(name, fn) {
      return Hooks.on(name, fn, { once: true });
    }
    static off(name, fnOrId) {
      const key = typeof fnOrId === "number" ? "id" : "fn";
      Hooks.events[name] = (Hooks.events[name] ?? []).filter((h) => h[key] !== fnOrId);
    }
    static #run(name, args, stoppable) {
      record.hooks.push(name);
      for (const hook of [...(Hooks.events[name] ?? [])]) {
        if (hook.once) Hooks.off(name, hook.id);
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
  const isPlainObject = (v) => Boolean(v) && typeof v === "object" && !Array.isArray(v);
  // Foundry's update semantics (mergeObject with performDeletions, as Document#update
  // applies a change to its source): dotted keys are paths, nested objects merge, a
  // key "-=name" deletes `name` (its value is null by convention), arrays are replaced.
  function setProperty(object, path, value) {
    const parts = path.split(".");
    let target = object;
    for (const part of parts.slice(0, -1)) target = target[part] ??= {};
    const last = parts.at(-1);
    if (last.startsWith("-=")) {
      delete target[last.slice(2)];
    } else if (isPlainObject(value) && isPlainObject(target[last])) {
      mergeObject(target[last], value);
    } else {
      target[last] = isPlainObject(value) ? mergeObject({}, value) : structuredClone(value);
    }
  }
  function mergeObject(target, source) {
    for (const [key, value] of Object.entries(source)) setProperty(target, key, value);
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
  // BaseSetting#canModify (v12, v13) for a setting that is no user's: the keys an
  // assistant may write without SETTINGS_MODIFY, and the one only a full gamemaster may
  const ALLOWED_ASSISTANT_KEYS = ["core.time", "core.combatTrackerConfig", "core.sheetClasses", "core.scrollingStatusText",
    "core.tokenDragPreview", "core.adventureImports", "core.gridDiagonals", "core.gridTemplates", "core.coneTemplateType"];
  function canModifySetting(user, id) {
    if (id === "core.permissions") return Boolean(user?.hasRole?.("GAMEMASTER"));
    if (user?.hasPermission?.("SETTINGS_MODIFY")) return true;
    return Boolean(user?.isGM) && ALLOWED_ASSISTANT_KEYS.includes(id);
  }

  class ClientSettings {
    // initial: the world's settings by id; writtenBy: the user whose write of each the
    // server took last (by id: lastModifiedBy), else `firstWriter`
    constructor(initial = {}, { writtenBy = {}, firstWriter = null } = {}) {
      this.settings = new Map();
      this.values = new Map(Object.entries(initial));
      this.writers = new Map(Object.keys(initial).map((id) => [id, writtenBy[id] ?? firstWriter]));
      // WorldSettings#getSetting(key): the world setting's Setting document, or undefined
      this.storage = new Map([["world", {
        getSetting: (id) => {
          if (!this.values.has(id) || (this.settings.get(id)?.scope ?? "world") !== "world") return undefined;
          return { key: id, value: structuredClone(this.values.get(id)), _stats: { lastModifiedBy: this.writers.get(id) ?? null } };
        },
      }]]);
    }
    register(namespace, key, config) {
      const id = `${namespace}.${key}`;
      if (!["world", "client", "user"].includes(config.scope)) throw new Error(`bad scope ${config.scope}`);
      // the "user" scope (a setting kept per user on the server) is v13's
      if (config.scope === "user" && game.release.generation < 13) throw new Error(`bad scope ${config.scope}: v13 only`);
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
      // Foundry: a world setting is written through the server, which allows it to a user
      // with SETTINGS_MODIFY (an assistant and a full gamemaster by default; the GM may
      // grant it to players, or take it from assistants), as BaseSetting's test says
      if (config.scope === "world" && !canModifySetting(game.user, id)) {
        throw new Error(`User ${game.user?.name} lacks permission to update Setting ${id}`);
      }
      record.settingsSet.push(id);
      if (config.scope !== "world") {
        this.values.set(id, structuredClone(value));
        config.onChange?.(value);
        return value;
      }
      // a world setting's value is kept as JSON (the Setting's `value`, a JSONField): what
      // JSON cannot hold is gone, and a write that changes nothing is no update — no
      // onChange, its writer unchanged (Document#update of an empty difference)
      const json = JSON.stringify(value) ?? "null";
      if (this.values.has(id) && JSON.stringify(this.values.get(id)) === json) return JSON.parse(json);
      this.values.set(id, JSON.parse(json));
      this.writers.set(id, game.user.id);
      config.onChange?.(JSON.parse(json));
      return JSON.parse(json);
    }
  }

  // -- documents ------------------------------------------------------------------------
  // v13 queries: User#query(name, data, {timeout}) runs CONFIG.queries[name] on that
  // user's client and resolves with its answer; the user must be active and the query
  // registered there. Across pages through the world's channel; headless, through
  // FoundryStandin.queryClient (the test's stand-in for the other client), else refused.
  const pendingQueries = new Map();
  let queryCount = 0;
  // CONST.USER_ROLES: a GM is an assistant (3) or a full gamemaster (4); User#isGM is
  // hasRole("ASSISTANT"), so both are GMs
  const USER_ROLES = { NONE: 0, PLAYER: 1, TRUSTED: 2, ASSISTANT: 3, GAMEMASTER: 4 };
  class User {
    constructor({ _id, name, isGM = false, role = isGM ? USER_ROLES.GAMEMASTER : USER_ROLES.PLAYER, active = true, flags = {}, permissions = {} }) {
      this.id = _id;
      this.flags = structuredClone(flags);
      // the user's own permissions ({PERMISSION: boolean}), over its role's
      this.permissions = structuredClone(permissions);
      this.name = name;
      this.role = role;
      this.active = active;
      this.targets = new Set();
      this.character = null;
    }
    get isGM() {
      return this.role >= USER_ROLES.ASSISTANT;
    }
    hasRole(role) {
      return this.role >= (typeof role === "string" ? USER_ROLES[role] : role);
    }
    // BaseUser#hasPermission: the user's own setting, else its role's (game.permissions)
    hasPermission(permission) {
      const explicit = this.permissions[permission];
      if (explicit !== undefined) return explicit;
      const roles = game.permissions?.[permission];
      return Array.isArray(roles) ? roles.includes(this.role) : false;
    }
    get isSelf() {
      return game.user?.id === this.id;
    }
    query(name, data, { timeout } = {}) {
      if (game.release.generation < 13) throw new Error("stand-in: User#query is v13's");
      if (!this.active) return Promise.reject(new Error(`User ${this.name} is not active`));
      record.queries.push({ to: this.id, name, data: structuredClone(data) });
      if (FoundryStandin.queryClient) return FoundryStandin.queryClient(this, name, structuredClone(data));
      if (!world) return Promise.reject(new Error("stand-in: no client answers queries here"));
      const id = `q${++queryCount}`;
      return new Promise((resolve, reject) => {
        pendingQueries.set(id, { resolve, reject });
        if (timeout) setTimeout(() => pendingQueries.delete(id) && reject(new Error("query timed out")), timeout);
        world.postMessage({ type: "query", id, to: this.id, name, data: structuredClone(data) });
      });
    }
  }
  async function answerQuery({ id, to, name, data }) {
    if (game.user.id !== to) return;
    const handler = CONFIG.queries?.[name];
    try {
      if (!handler) throw new Error(`no query ${name} registered`);
      world?.postMessage({ type: "queryReply", id, value: structuredClone(await handler(data, {})) });
    } catch (error) {
      world?.postMessage({ type: "queryReply", id, error: String(error?.message ?? error) });
    }
  }

  // Users#activeGM (v12/v13): a getter, read at each call: the active GMs, a full
  // gamemaster before an assistant, then by id compared by code unit (String#compare,
  // not localeCompare); null when no GM is connected
  class Users extends Collection {
    get activeGM() {
      const gms = this.filter((u) => u.active && u.isGM);
      gms.sort((a, b) => (b.role - a.role) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      return gms[0] ?? null;
    }
  }

  // Users._handleUserActivity: another user's client connects or leaves; its `active`
  // changes first, then the hook userConnected(user, active) runs (never for this
  // page's own user)
  function setUserActive(userId, active) {
    const user = game.users.get(userId);
    if (!user || user.isSelf || user.active === active) return false;
    user.active = active;
    Hooks.callAll("userConnected", user, active);
    return true;
  }

  // Documents an Actor#update may write (the stand-in's schema): these roots, no others.
  const ACTOR_FIELDS = ["name", "flags", "system", "ownership"];
  const OWNER = 3;

  class Actor {
    constructor({ _id, name, type = "character", flags = {}, system = {}, ownership = {} }) {
      this._id = _id;
      this.type = type;
      this._source = { name, flags: structuredClone(flags), system: structuredClone(system), ownership: structuredClone(ownership) };
      this.statuses = new Set();
    }
    get id() {
      return this._id;
    }
    get name() {
      return this._source.name;
    }
    get flags() {
      return this._source.flags;
    }
    get system() {
      return this._source.system;
    }
    get ownership() {
      return this._source.ownership;
    }
    // Actor#isToken: a synthetic actor (an unlinked token's) — a world actor is not
    get isToken() {
      return false;
    }
    get token() {
      return null;
    }
    get uuid() {
      return `Actor.${this.id}`;
    }
    testUserPermission(user, level = OWNER) {
      if (user?.isGM) return true;
      const own = this.ownership[user?.id] ?? this.ownership.default ?? 0;
      return own >= level;
    }
    get isOwner() {
      return this.testUserPermission(game.user, OWNER);
    }
    getFlag(scope, key) {
      checkFlagScope(scope);
      return getProperty(this.flags, `${scope}.${key}`);
    }
    static checkChanges(changes) {
      for (const key of Object.keys(changes)) {
        const root = key.split(".")[0];
        if (!ACTOR_FIELDS.includes(root)) throw new Error(`stand-in Actor#update: unexpected field ${key}`);
        if (root === "flags") {
          const scope = key.split(".")[1];
          if (scope && !scope.startsWith("-=")) checkFlagScope(scope);
        }
      }
    }
    // the source the change lands in (a world actor's own; a synthetic actor's delta)
    _target() {
      return this._source;
    }
    // DataModel#validate({changes}): the system's data model checks a change before it is
    // written. Foundry's client does, for each change of an operation before it sends
    // them (ClientDatabaseBackend#_preUpdateDocumentArray), and skips a change it refuses:
    // an error notification with the error's words after its "] ", Hooks.onError with the
    // document's id, that document left out of the operation's answer, the others
    // written (foundry-vtt-types 12.331/13.340: ErrorCallbackParameters
    // "ClientDatabaseBackend#_preUpdateDocumentArray" {id}; updateDocuments' remark "you
    // receive only documents that were actually updated"; Document#update: undefined when
    // skipped). The stand-in's model takes anything; a test gives an actor its own to
    // refuse a value.
    validate({ changes } = {}) {
      return Boolean(changes);
    }
    // what an update of this actor needs, checked before anything is written: a refusal
    // here (the permission: Foundry's server; the stand-in's fields) fails the operation
    _checkUpdate(data) {
      // Foundry refuses an update from a user without OWNER permission
      if (!this.isOwner) throw new Error(`User ${game.user.name} lacks permission to update Actor [${this.id}]`);
      const changes = structuredClone(data);
      delete changes._id;
      Actor.checkChanges(changes);
      return changes;
    }
    // the data model's check of a change: false (skipped, said as Foundry says it) when refused
    _validates(changes) {
      try {
        this.validate({ changes, clean: true, fallback: false, strict: true });
        return true;
      } catch (error) {
        ui.notifications.error(String(error?.message ?? error).split("] ").pop());
        record.skipped.push({ actor: this.id, error: String(error?.message ?? error) });
        return false;
      }
    }
    _write(changes, batch = null) {
      mergeObject(this._target(), changes);
      record.updates.push({ actor: this.id, uuid: this.uuid, token: this.token?.id ?? null, data: changes, ...(batch ? { batch } : {}) });
      Hooks.callAll("updateActor", this, changes, {}, game.user.id);
    }
    async update(data) {
      const changes = this._checkUpdate(data);
      if (!this._validates(changes)) return undefined;
      this._write(changes);
      return this;
    }
    // Actor.updateDocuments(updates, operation) (v12/v13, as declared: "an array of
    // differential data objects, each used to update a single Document", each with its
    // `_id`): world actors, without a parent. Every change is checked first — the actor
    // there (Foundry's collection.get(id, {strict: true})), the user its owner, the
    // fields — and one that fails fails the operation: nothing is written. A change the
    // data model refuses is skipped alone (validate, above). A synthetic actor (its
    // token's parent) is not in game.actors: its id is its base actor's, which this
    // would write. Returns the actors updated, the skipped left out.
    static async updateDocuments(updates = [], operation = {}) {
      if (operation.parent || operation.pack) throw new Error("stand-in Actor.updateDocuments: only world actors (no parent, no pack)");
      if (!Array.isArray(updates)) throw new Error("stand-in Actor.updateDocuments: updates must be an array");
      const seen = new Set();
      const planned = updates.map((update) => {
        const id = update?._id;
        if (typeof id !== "string") throw new Error("stand-in Actor.updateDocuments: every update needs its _id");
        if (seen.has(id)) throw new Error(`stand-in Actor.updateDocuments: Actor [${id}] twice in one operation`);
        seen.add(id);
        const actor = game.actors.get(id);
        if (!actor) throw new Error(`Actor id [${id}] does not exist in the Actor collection.`);
        return [actor, actor._checkUpdate(update)];
      }).filter(([actor, changes]) => actor._validates(changes));
      const batch = record.batches.push({ document: "Actor", ids: [...seen] });
      for (const [actor, changes] of planned) actor._write(changes, batch);
      return planned.map(([actor]) => actor);
    }
    // Document#delete: a world actor leaves game.actors (deleteActor on every client); an
    // unlinked token of it stays on its scene with no actor (TokenDocument#actor null)
    async delete() {
      if (this.isToken) throw new Error("stand-in: a synthetic actor is deleted with its token");
      if (!this.isOwner) throw new Error(`User ${game.user.name} lacks permission to delete Actor [${this.id}]`);
      if (!game.actors.has(this.id)) return undefined;
      game.actors.delete(this.id);
      record.deleted.push({ actor: this.id, uuid: this.uuid });
      Hooks.callAll("deleteActor", this, {}, game.user.id);
      return this;
    }
    // v12+: Actor#toggleStatusEffect(statusId, {active, overlay}); the id must be one of
    // CONFIG.statusEffects, as Foundry checks
    async toggleStatusEffect(statusId, { active, overlay = false } = {}) {
      if (!this.isOwner) throw new Error(`User ${game.user.name} lacks permission to update Actor [${this.id}]`);
      const status = (CONFIG.statusEffects ?? []).find((e) => e.id === statusId);
      if (!status) throw new Error(`Invalid status ID "${statusId}" provided to Actor#toggleStatusEffect`);
      const has = this.statuses.has(statusId);
      const wanted = active ?? !has;
      if (wanted === has) return undefined;
      if (wanted) this.statuses.add(statusId);
      else this.statuses.delete(statusId);
      record.statusEffects.push({ actor: this.id, uuid: this.uuid, status: statusId, active: wanted, overlay });
      return wanted;
    }
  }

  // An unlinked token's synthetic actor: its base actor's data with the token's
  // ActorDelta applied on top (TokenDocument#delta). It shares the base actor's id;
  // its uuid is under the token's; an update writes the delta, never the base actor.
  class SyntheticActor extends Actor {
    constructor(token) {
      const base = game.actors.get(token.actorId);
      if (!base) throw new Error(`stand-in: token ${token.id} has no base actor ${token.actorId}`);
      super({ _id: base.id, name: token.name, type: base.type, ownership: base.ownership });
      this._token = token;
      this._base = base;
      this.statuses = token.delta.statuses;
    }
    #derived() {
      const merged = structuredClone({ name: this._base.name, flags: this._base.flags, system: this._base.system, ownership: this._base.ownership });
      return mergeObject(merged, structuredClone(this._token.delta._source));
    }
    get name() {
      return this._token.name ?? this.#derived().name;
    }
    get flags() {
      return this.#derived().flags;
    }
    get system() {
      return this.#derived().system;
    }
    get ownership() {
      return this.#derived().ownership;
    }
    get isToken() {
      return true;
    }
    get token() {
      return this._token;
    }
    get uuid() {
      return `${this._token.uuid}.Actor.${this.id}`;
    }
    _target() {
      return this._token.delta._source;
    }
  }

  // TokenDocument#delta: the unlinked token's own changes to its base actor.
  class ActorDelta {
    constructor(source = {}) {
      this._source = structuredClone(source);
      this.statuses = new Set();
    }
    get flags() {
      return this._source.flags ?? {};
    }
    get system() {
      return this._source.system ?? {};
    }
  }

  class TokenDocument {
    constructor({ _id, name, actorId, actorLink = false, delta = {} }, scene) {
      this._id = _id;
      this.name = name;
      this.actorId = actorId;
      this.actorLink = actorLink;
      this.parent = scene;
      this.delta = actorLink ? null : new ActorDelta(delta);
      this._actor = null;
    }
    get id() {
      return this._id;
    }
    get uuid() {
      return `Scene.${this.parent.id}.Token.${this.id}`;
    }
    get isLinked() {
      return this.actorLink;
    }
    // TokenDocument#baseActor: the world actor it stands for (undefined once deleted)
    get baseActor() {
      return game.actors.get(this.actorId);
    }
    // a linked token's actor is the world actor; an unlinked one's its synthetic actor;
    // null (Actor | null, as declared) when its base actor is gone
    get actor() {
      if (this.actorLink) return this.baseActor ?? null;
      if (!this.baseActor) {
        this._actor = null;
        return null;
      }
      this._actor ??= new SyntheticActor(this);
      return this._actor;
    }
  }

  class Scene {
    constructor({ _id, name }) {
      this._id = _id;
      this.name = name;
      this.tokens = new Collection();
    }
    get id() {
      return this._id;
    }
    get uuid() {
      return `Scene.${this.id}`;
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
    // the term's JSON names its class (Roll.fromData reads it back)
    toJSON() {
      const { _evaluated, _root, ...fields } = this;
      if (this.method) fields.method = this.method;
      return { class: this.constructor.name, ...fields, evaluated: _evaluated };
    }
  }
  // A dice term as Foundry v12/v13 evaluates it (the documented DiceTerm#evaluate,
  // #roll, #_roll and the fulfillment contract of CONFIG.Dice.fulfillment): each die
  // is one awaited roll(); its value comes from the configured method's handler
  // (`diceConfiguration[denomination] || CONFIG.Dice.fulfillment.defaultMethod`), or
  // from randomFace() when the handler gives undefined; a method not in
  // CONFIG.Dice.fulfillment.methods is refused by the `method` setter. Modifiers:
  // x (explode max, recursively: all first rolls, then the explosions in order),
  // kh/kl; any other modifier throws (this stand-in does not pretend to know it).
  class DiceTerm extends RollTerm {
    static DENOMINATION = "";
    constructor({ number = 1, faces = 6, method, modifiers = [], results = [], options = {} }) {
      super({ options });
      this.number = number;
      this.faces = faces;
      this.method = method;
      this.modifiers = modifiers;
      this.results = results;
      if (results.length) this._evaluated = true;
    }
    get method() {
      return this.#method;
    }
    set method(method) {
      if (this.#method || !(method in (CONFIG.Dice.fulfillment?.methods ?? {}))) return;
      this.#method = method;
    }
    #method;
    get denomination() {
      return this.constructor.DENOMINATION;
    }
    get expression() {
      return `${this.number}d${this.faces}${this.modifiers.join("")}`;
    }
    // RollTerm#formula: a dice term's is its expression (it has no flavor here)
    get formula() {
      return this.expression;
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
    async evaluate(options = {}) {
      if (this._evaluated) throw new Error(`The ${this.constructor.name} has already been evaluated and is now immutable`);
      this._evaluated = true;
      if (Math.abs(this.number) > 999) throw new Error("You may not evaluate a DiceTerm with more than 999 requested results");
      for (let n = this.results.length; n < Math.abs(this.number); n++) await this.roll(options);
      await this._evaluateModifiers();
      return this;
    }
    async roll({ minimize = false, maximize = false, ...options } = {}) {
      const roll = { result: undefined, active: true };
      roll.result = await this._roll(options);
      if (minimize) roll.result = Math.min(1, this.faces);
      else if (maximize) roll.result = this.faces;
      else if (roll.result === undefined) roll.result = this.randomFace();
      this.results.push(roll);
      return roll;
    }
    async _roll(options = {}) {
      const config = game.settings.get("core", "diceConfiguration");
      const method = config[this.denomination] || CONFIG.Dice.fulfillment.defaultMethod;
      if (method === "manual" && !game.user.isGM) return undefined;
      const { handler, interactive } = CONFIG.Dice.fulfillment.methods[method] ?? {};
      if (interactive && this.resolver) throw new Error("stand-in: no RollResolver is modelled");
      record.fulfilled.push({ denomination: this.denomination, method: method || null });
      return handler?.(this, options);
    }
    mapRandomFace(randomUniform) {
      return Math.ceil((1 - randomUniform) * this.faces);
    }
    randomFace() {
      return this.mapRandomFace(CONFIG.Dice.randomUniform());
    }
    async _evaluateModifiers() {
      for (const modifier of this.modifiers) {
        if (/^x$/i.test(modifier)) await this.#explode();
        else if (/^k[hl]?\d*$/i.test(modifier)) this.#keep(modifier);
        else throw new Error(`stand-in: the modifier ${modifier} of ${this.expression} is not modelled`);
      }
    }
    async #explode() {
      for (let checked = 0; checked < this.results.length; checked++) {
        const r = this.results[checked];
        if (!r.active || r.result !== this.faces) continue;
        r.exploded = true;
        await this.roll();
      }
    }
    #keep(modifier) {
      const count = Number.parseInt(modifier.replace(/^k[hl]?/i, ""), 10) || 1;
      const low = /^kl/i.test(modifier);
      const order = [...this.results].sort((a, b) => (low ? a.result - b.result : b.result - a.result));
      const kept = new Set(order.slice(0, count));
      for (const r of this.results) if (!kept.has(r)) Object.assign(r, { active: false, discarded: true });
    }
  }
  class Die extends DiceTerm {
    static DENOMINATION = "d";
    get denomination() {
      return `d${this.faces}`;
    }
  }
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
  // Roll#evaluate as documented: once only; each term evaluated in order with
  // `_root` set to the roll (a fulfillment handler finds its roll there); the
  // formula parsed first when the roll was built from one (NdF[modifiers],
  // integers, + and -; anything else throws, as an unparsable formula does).
  const TERM_PATTERN = /^\s*(?:(\d*)[dD](\d+)((?:[a-zA-Z]+\d*)*)|(\d+)|([+-]))/;
  function parseFormula(formula) {
    const terms = [];
    let rest = formula;
    while (rest.trim()) {
      const m = TERM_PATTERN.exec(rest);
      if (!m) throw new Error(`Unable to parse roll formula "${formula}"`);
      if (m[2]) {
        const modifiers = m[3] ? m[3].match(/[a-zA-Z]+\d*/g) : [];
        terms.push(new Die({ number: m[1] ? Number(m[1]) : 1, faces: Number(m[2]), modifiers }));
      } else if (m[4]) terms.push(new NumericTerm({ number: m[4] }));
      else terms.push(new OperatorTerm({ operator: m[5] }));
      rest = rest.slice(m[0].length);
    }
    return terms;
  }
  class Roll {
    static parse(formula) {
      return parseFormula(formula);
    }
    async evaluate({ minimize = false, maximize = false, allowStrings = false, allowInteractive = true, ...options } = {}) {
      if (this._evaluated) throw new Error(`The ${this.constructor.name} has already been evaluated and is now immutable`);
      this._evaluated = true;
      if (!this.terms.length) this.terms = parseFormula(this._formula);
      let total = 0;
      let sign = 1;
      for (const term of this.terms) {
        if (term instanceof OperatorTerm) {
          sign = term.operator === "-" ? -1 : 1;
          continue;
        }
        if (term instanceof DiceTerm && !term._evaluated) {
          term._root = this._root ?? this;
          await term.evaluate({ minimize, maximize, allowStrings, allowInteractive, ...options });
        }
        total += sign * Number(term.total);
        sign = 1;
      }
      this._total = total;
      return this;
    }
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
  let headlessPage = false; // install({headless}): Node's tests, no DOM
  const WORLD = "foundry-standin-world";
  let world = null; // the BroadcastChannel standing in for Foundry's server

  // jQuery, as far as v12's render hooks hand it over: the elements by index.
  class StandinJQuery {
    constructor(elements) {
      elements.forEach((element, i) => { this[i] = element; });
      this.length = elements.length;
    }
    get(i) {
      return this[i];
    }
    toArray() {
      return Array.from({ length: this.length }, (_, i) => this[i]);
    }
    find(selector) {
      return new StandinJQuery(this.toArray().flatMap((e) => [...e.querySelectorAll(selector)]));
    }
  }
  const $ = (element) => new StandinJQuery(element ? [element] : []);

  // The fields of the ChatMessage schema (v12 and v13; v12's `type` is v13's `style`,
  // v12's `user` v13's `author`): what ChatMessage#update may change.
  const CHAT_MESSAGE_FIELDS = new Set([
    "_id", "type", "style", "system", "author", "user", "timestamp", "flavor", "title", "content", "speaker", "whisper",
    "blind", "rolls", "sound", "emote", "flags", "_stats",
  ]);
  // Flag scopes Foundry accepts: "core", the world's system, active modules.
  function checkFlagScope(scope) {
    const scopes = ["core", game.system?.id, ...game.modules.contents.filter((m) => m.active).map((m) => m.id)];
    if (!scopes.includes(scope)) throw new Error(`Flag scope "${scope}" is not valid or not currently active`);
  }

  class ChatMessage {
    constructor(data) {
      const { _id, ...rest } = data;
      this._id = _id ?? `msg${String(++messageCount).padStart(4, "0")}${Math.random().toString(36).slice(2, 8)}`;
      this.whisper = [];
      this.blind = false;
      this.flags = {};
      Object.assign(this, rest);
      // ChatMessage#logged: whether the chat log shows it (its postOne and batch set it)
      this.logged = false;
    }
    get id() {
      return this._id;
    }
    getFlag(scope, key) {
      checkFlagScope(scope);
      return getProperty(this.flags?.[scope] ?? {}, key);
    }
    // before it is created (preCreateChatMessage): dotted paths into the source
    updateSource(changes) {
      for (const [path, value] of Object.entries(changes)) {
        if (path.startsWith("flags.")) checkFlagScope(path.split(".")[1]);
        setProperty(this, path, value);
      }
      return changes;
    }
    // Document#update(data, operation) as declared (foundry-vtt-types 12.331/13.340:
    // ChatMessage.UpdateData, its schema's fields; Promise<this | undefined>): dotted keys
    // are paths and "-=" keys delete; a field the ChatMessage schema does not have, a flag
    // of a scope Foundry does not accept, a message no longer in the world, or a user who
    // is neither its author nor a GM (BaseChatMessage's update permission) is refused
    // before anything changes; an update that changes nothing is no update (the client's
    // diff is empty: undefined, no hook). Otherwise updateChatMessage runs on every
    // client, and the chat log draws the message again in place (ChatMessage#_onUpdate).
    async update(data = {}, operation = {}) {
      if (!isPlainObject(data)) throw new Error("stand-in ChatMessage#update: the update data must be an object");
      if (!game.messages.has(this.id)) throw new Error(`ChatMessage [${this.id}] does not exist`);
      if (!(this.isAuthor || game.user.isGM)) throw new Error(`User ${game.user.name} lacks permission to update ChatMessage [${this.id}]`);
      const changes = structuredClone(data);
      delete changes._id;
      // the author (v12's `user` its shim) only a GM changes: v12's BaseChatMessage update
      // permission refuses a player's other author ("Message author is immutable"), v13's
      // DocumentAuthorField is gmOnly
      for (const field of ["author", "user"]) {
        if (field in changes && changes[field] !== this.author && !game.user.isGM) {
          throw new Error(`User ${game.user.name} lacks permission to update ChatMessage [${this.id}]: its author is immutable`);
        }
      }
      for (const path of Object.keys(changes)) {
        const [field, scope] = path.split(".");
        if (!CHAT_MESSAGE_FIELDS.has(field)) throw new Error(`stand-in ChatMessage#update: the ChatMessage schema has no field "${field}"`);
        if (field === "flags") {
          for (const name of scope === undefined ? Object.keys(changes.flags ?? {}) : [scope]) checkFlagScope(name.replace(/^-=/, ""));
        }
      }
      const before = JSON.stringify(this.toObject());
      const after = new ChatMessage(structuredClone(this.toObject()));
      mergeObject(after, changes);
      if (JSON.stringify(after.toObject()) === before) return undefined;
      mergeObject(this, changes);
      record.messageUpdates.push({ message: this.id, data: changes, user: game.user.id });
      world?.postMessage({ type: "updateChatMessage", id: this.id, data: changes, user: game.user.id });
      await this._updated(changes, operation, game.user.id);
      return this;
    }
    // updateChatMessage on this client, and the log's element drawn again
    async _updated(changes, operation, userId) {
      Hooks.callAll("updateChatMessage", this, changes, operation, userId);
      if (this.logged) await ui.chat.updateMessage(this);
    }
    get isRoll() {
      return (this.rolls ?? []).length > 0;
    }
    get isAuthor() {
      return this.author === game.user.id;
    }
    // the documented getters: a whisper is seen by its recipients and its author
    // (a roll's card always shows, its content only as isContentVisible says)
    get visible() {
      if (this.whisper.length) {
        if (this.isRoll) return true;
        return this.isAuthor || this.whisper.includes(game.user.id);
      }
      return true;
    }
    get isContentVisible() {
      if (this.isRoll) {
        if (this.whisper.length) return this.whisper.includes(game.user.id) || (this.isAuthor && !this.blind);
        return true;
      }
      return this.visible;
    }
    toObject() {
      const { rolls, logged, ...data } = this;
      return JSON.parse(JSON.stringify({ ...data, _id: this._id, rolls: rolls ?? [] }));
    }
    #element() {
      // headless (no DOM): the element the test gives for it (FoundryStandin.headlessElement)
      if (headlessPage) return FoundryStandin.headlessElement(this);
      const li = document.createElement("li");
      li.className = "chat-message message flexcol";
      li.dataset.messageId = this.id;
      const sender = document.createElement("h4");
      sender.className = "message-sender";
      sender.textContent = this.speaker?.alias ?? game.users.get(this.author)?.name ?? "";
      const header = document.createElement("header");
      header.className = "message-header";
      header.append(sender);
      if (this.whisper.length) header.insertAdjacentHTML("beforeend", '<span class="whisper-to">(GM only)</span>');
      const content = document.createElement("div");
      content.className = "message-content";
      // a roll whose content this user may not see: Foundry shows its total as "???"
      content.innerHTML = this.isContentVisible
        ? this.content
        : '<div class="dice-roll"><div class="dice-result"><h4 class="dice-total">???</h4></div></div>';
      li.append(header, content);
      return li;
    }
    // Document#delete: gone from game.messages and from the log, then deleteChatMessage
    // on every client (here: this one)
    async delete(options = {}) {
      if (!game.messages.has(this.id)) return undefined;
      if (!(this.isAuthor || game.user.isGM)) throw new Error(`User ${game.user.name} may not delete ChatMessage ${this.id}`);
      game.messages.delete(this.id);
      for (const element of globalThis.document?.querySelectorAll?.(`.message[data-message-id="${this.id}"]`) ?? []) element.remove();
      Hooks.callAll("deleteChatMessage", this, options, game.user.id);
      return this;
    }
    // v12
    async getHTML() {
      if (game.release.generation >= 13) throw new Error("stand-in: ChatMessage#getHTML is v12's; v13 has renderHTML");
      const html = $(this.#element());
      Hooks.callAll("renderChatMessage", this, html, { message: this.toObject() });
      return html;
    }
    // v13
    async renderHTML() {
      if (game.release.generation < 13) throw new Error("stand-in: ChatMessage#renderHTML is v13's");
      const html = this.#element();
      const data = { message: this.toObject() };
      Hooks.callAll("renderChatMessageHTML", this, html, data);
      if ("renderChatMessage" in Hooks.events) {
        record.compatibility.push("The renderChatMessage hook is deprecated");
        Hooks.callAll("renderChatMessage", this, $(html), data);
      }
      return html;
    }
    // ChatMessage.applyRollMode as v12 and v13 define it: "roll" is the creating user's
    // own chat roll mode (core.rollMode), whispers and blind follow the mode
    static applyRollMode(chatData, rollMode) {
      if (rollMode === "roll") rollMode = game.settings.get("core", "rollMode");
      if (["gmroll", "blindroll"].includes(rollMode)) chatData.whisper = ChatMessage.getWhisperRecipients("GM").map((u) => u.id);
      else if (rollMode === "selfroll") chatData.whisper = [game.user.id];
      else if (rollMode === "publicroll") chatData.whisper = [];
      chatData.blind = rollMode === "blindroll";
      return chatData;
    }
    static async create(data, options = {}) {
      // ChatMessage#_preCreate of a message with rolls (before the preCreate hook): v12
      // applies options.rollMode, or without one and without a whisper the creating
      // user's own chat roll mode ("roll"); v13 applies options.rollMode only
      if ((data.rolls ?? []).length) {
        const v12 = game.release.generation < 13;
        if (options.rollMode || (v12 && !(data.whisper?.length > 0))) {
          data = ChatMessage.applyRollMode({ ...data }, options.rollMode || "roll");
        }
      }
      // v12+ `author`: a user may post as itself; only a GM may post as another user
      const author = data.author ?? game.user.id;
      if (!game.users.get(author)) throw new Error(`stand-in ChatMessage.create: no user ${author}`);
      if (author !== game.user.id && !game.user.isGM) {
        throw new Error(`User ${game.user.name} may not create a ChatMessage as another user`);
      }
      for (const id of data.whisper ?? []) {
        if (!game.users.get(id)) throw new Error(`stand-in ChatMessage.create: whisper to no user ${id}`);
      }
      // Foundry serialises a message's rolls with Roll#toJSON, which an unevaluated roll
      // cannot give: it refuses to create the message
      for (const roll of data.rolls ?? []) {
        const evaluated = typeof roll === "string" ? JSON.parse(roll).evaluated : (roll?._evaluated ?? roll?.evaluated);
        if (!evaluated) throw new Error("stand-in ChatMessage.create: a message's rolls must be evaluated");
      }
      const message = new ChatMessage(structuredClone({ ...data, rolls: undefined }));
      message.rolls = data.rolls ?? [];
      message.author = author;
      // Foundry's preCreate hook: a listener may change the source (updateSource) or stop it
      if (Hooks.call("preCreateChatMessage", message, data, options, game.user.id) === false) return undefined;
      ChatMessage.#add(message);
      world?.postMessage({ type: "createChatMessage", data: message.toObject(), user: game.user.id });
      await ChatMessage.#display(message, game.user.id);
      return message;
    }
    // a message another page created, as Foundry's server hands it to this client
    static async _fromWorld({ data, user }) {
      // Foundry's server creates a player's message only as its own (BaseChatMessage
      // create permission): another page's message never names another author
      if (data.author !== undefined && data.author !== user && !game.users.get(user)?.isGM) {
        throw new Error(`stand-in ChatMessage._fromWorld: Foundry refuses ${user}'s message posted as ${data.author}`);
      }
      const rolls = (data.rolls ?? []).map((r) => Roll.fromData(r));
      const message = new ChatMessage({ ...data, rolls: undefined });
      message.rolls = rolls;
      ChatMessage.#add(message);
      await ChatMessage.#display(message, user);
      return message;
    }
    static #add(message) {
      game.messages.set(message.id, message);
      record.messages.push(message);
    }
    // Foundry's ChatMessage#_onCreate starts ui.chat.postOne, whose rendering awaits the
    // message's template, and the createChatMessage hook follows at once: the hook runs
    // before the render hooks (Dice So Nice flags a message there that its render hook hides)
    static async #display(message, userId) {
      const shown = ui.chat.postOne(message);
      Hooks.callAll("createChatMessage", message, {}, userId);
      await shown;
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

  // the chat log: one rendered element per message this user may see
  const chatLog = {
    async postOne(message) {
      if (!message.visible) {
        record.rendered.push({ message: message.id, shown: false });
        return null;
      }
      await null; // the template (renderTemplate) before the render hooks
      message.logged = true;
      const element = await renderMessage(message);
      record.rendered.push({ message: message.id, shown: true });
      document.getElementById("chat-log")?.append(element);
      return element;
    },
    // ChatLog#updateMessage (v12 and v13): the message's element in the log drawn again
    // in place (its render hooks run again); a message the log does not show is posted
    // ("a newly visible message"; Foundry puts it before the next one shown, here last)
    async updateMessage(message) {
      const li = document.querySelector(`#chat-log [data-message-id="${CSS.escape(message.id)}"]`);
      if (!li) return this.postOne(message);
      const element = await renderMessage(message);
      record.rendered.push({ message: message.id, shown: true, updated: true });
      li.replaceWith(element);
      return element;
    },
  };
  // a message's element, its render hooks run: v13's ChatMessage#renderHTML, v12's getHTML
  const renderMessage = async (message) => (game.release.generation >= 13 ? message.renderHTML() : (await message.getHTML())[0]);

  // -- combat ---------------------------------------------------------------------------
  // Combat and Combatant as Foundry v12/v13 have them (foundry-vtt-types 12.331 /
  // 13.340: Combat#turns, round, turn, current/previous (Combat.HistoryData {round,
  // turn, tokenId, combatantId}), started, combatant; Combatant#actor, actorId,
  // tokenId, token). What happens on which client:
  // - combatStart, combatTurn and combatRound fire on the initiating client only,
  //   before the update (Combat#startCombat/nextTurn/nextRound/previous…);
  // - after the update every client records the prior state (Object.assign into the
  //   same `previous` object, so a later change overwrites it) and, when the turn
  //   changed (v12: the round or the combatant; v13: also the turn index) and the
  //   operation's turnEvents is not false, manages the turn events (async, not
  //   awaited: Combat#_manageTurnEvents): nothing unless the combat is started
  //   (`round > 0`, v12 and v13); on the active GM the turn events are awaited
  //   first (FoundryStandin.turnEvents(combat), settable; the system's
  //   _onStartTurn, v13's movement histories) and only then is
  //   combatTurnChange(combat, previous, current) called — v13 with the states it
  //   captured before the await, v12 reading `previous` and `current` after it;
  //   other clients call it at once. updateCombat(combat, changed, options,
  //   userId) follows the update on every client (before the active GM's
  //   combatTurnChange); deleteCombat(combat, options, userId) likewise;
  // - a GM may change anything; a player only the round and turn, only while its
  //   own combatant has the turn (BaseCombat#canUserModify), else it throws;
  // - a combatant added or removed mid-combat keeps the current combatant's turn
  //   (the combatTurn option of _preCreate/_preDeleteDescendantDocuments); removing
  //   the current one gives the turn to the next;
  // - initiative: Combatant#update / Combat#updateEmbeddedDocuments("Combatant")
  //   sort the turns again keeping the current combatant's turn (v12.331/v13
  //   Combatant._preUpdateOperation: combatTurn; v13 also turnEvents false), then
  //   updateCombatant(combatant, changes, options, userId) on every client;
  //   Combat#rollInitiative(ids, {formula, updateTurn}) (the stand-in's "roll" is
  //   the formula read as a number, 10 without one; v12 then updates the turn to
  //   the current combatant's index), setInitiative, resetAll ({updateTurn}: v13
  //   keeps the current combatant's turn without turn events; v12 sets turn 0) as
  //   Foundry's client code has them.
  // - combatants changed through their parent, Combat#update({combatants: [...]})
  //   (resetAll's way, SWADE's too): the Combat's own update workflow only. Foundry
  //   writes the embedded sources (updateSource) and fires updateCombat, whose
  //   `changed` carries `combatants`, and Combat#_onUpdate sorts the turns again
  //   ("combatants" in changed: setupTurns); it fires no updateCombatant, no
  //   Combatant#_onUpdate. Sources: the hook's documentation (foundryvtt.com/api
  //   hookEvents.updateDocument: "fires ... after conclusion of an update workflow",
  //   for the Document updated) and foundry-vtt-types 12.331/13.340
  //   client/hooks.d.mts (UpdateDocument: called by
  //   ClientDatabaseBackend#_postUpdateDocumentCallbacks, one call per document of
  //   the operation); Foundry's client-backend.mjs #handleUpdateDocuments (v12/v13:
  //   `update${type}` for each document of the operation's collection, the
  //   embedded ones only updateSource'd) and Combat#_onUpdate. Only
  //   updateEmbeddedDocuments("Combatant") / Combatant#update fire updateCombatant;
  // - Combat#system (v12+ document subtypes: a system's data, SWADE's
  //   `system.awaitingNextRound`), updated like flags (dotted or nested);
  // - Combat#update's changes expanded (a dotted key nested: the hook's `changed` too)
  //   and, unless {diff: false}, only what differs from the combat: an update that
  //   changes nothing fires no hook (ClientDatabaseBackend #preUpdateDocumentArray:
  //   expandObject, then `if (options.diff && isEmpty(diff)) continue`).
  // FoundryStandin.asUser(userId, fn) runs fn as another user's client would: its
  // permission, the hooks of every client here, none of the initiating client's.
  let initiator = null;
  const actingUser = () => initiator ?? game.user;
  const initiating = () => !initiator || initiator.id === game.user.id;
  async function asUser(userId, fn) {
    const user = game.users.get(userId);
    if (!user) throw new Error(`stand-in: no user ${userId}`);
    initiator = user;
    try {
      return await fn();
    } finally {
      initiator = null;
    }
  }
  let combatCount = 0;
  const COMBAT_FIELDS = ["round", "turn", "active", "scene", "flags", "system", "combatants"];

  class Combatant {
    constructor({ _id, actorId = null, tokenId = null, sceneId = null, name = null, initiative = null, hidden = false, defeated = false }, combat) {
      this._id = _id ?? `standinCbt${String(++combatCount).padStart(5, "0")}`;
      this.actorId = actorId;
      this.tokenId = tokenId;
      this.sceneId = sceneId;
      this._name = name;
      this.initiative = initiative;
      this.hidden = hidden;
      this.defeated = defeated;
      this.parent = combat;
    }
    get id() {
      return this._id;
    }
    get combat() {
      return this.parent;
    }
    // the token it stands for, on its scene (null: a combatant without one)
    get token() {
      if (!this.tokenId) return null;
      return game.scenes.get(this.sceneId)?.tokens.get(this.tokenId) ?? null;
    }
    // Combatant#actor: the token's actor (an unlinked token's synthetic actor), else the world actor
    get actor() {
      const token = this.token;
      if (token) return token.actor;
      return game.actors.get(this.actorId) ?? null;
    }
    get name() {
      return this._name ?? this.token?.name ?? this.actor?.name ?? "";
    }
    get isDefeated() {
      return this.defeated;
    }
    get isOwner() {
      return game.user.isGM || Boolean(this.actor?.isOwner);
    }
    async update(data, options = {}) {
      const [made] = await this.parent.updateEmbeddedDocuments("Combatant", [{ ...data, _id: this.id }], options);
      return made;
    }
  }

  class Combat {
    constructor({ _id, scene = null, active = false, round = 0, turn = null }) {
      this._id = _id ?? `standinCmb${String(++combatCount).padStart(5, "0")}`;
      this.scene = scene;
      this.active = active;
      this.round = round;
      this.turn = turn;
      this.combatants = new Collection();
      this.system = {};
      this.turns = [];
      this.current = this._getCurrentState();
      this.previous = { ...this.current };
    }
    get id() {
      return this._id;
    }
    get started() {
      return this.round > 0;
    }
    get combatant() {
      return this.turn === null ? undefined : this.turns[this.turn];
    }
    get isActive() {
      return this.active;
    }
    static async create(data = {}) {
      if (!actingUser().isGM) throw new Error(`User ${actingUser().name} lacks permission to create Combat`);
      const combat = new Combat({ scene: canvas.scene?.id ?? null, active: true, ...data });
      game.combats.set(combat.id, combat);
      Hooks.callAll("createCombat", combat, {}, actingUser().id);
      return combat;
    }
    _getCurrentState(combatant) {
      const c = combatant ?? this.combatant;
      return { round: this.round, turn: this.turn ?? null, combatantId: c?.id ?? null, tokenId: c?.tokenId ?? null };
    }
    _sortCombatants(a, b) {
      const ia = Number.isFinite(a.initiative) ? a.initiative : -Infinity;
      const ib = Number.isFinite(b.initiative) ? b.initiative : -Infinity;
      return (ib - ia) || (a.id > b.id ? 1 : -1);
    }
    setupTurns() {
      const turns = this.combatants.contents.sort((a, b) => this._sortCombatants(a, b));
      if (this.turn !== null) this.turn = Math.min(Math.max(this.turn, 0), Math.max(turns.length - 1, 0));
      this.turns = turns;
      this.current = this._getCurrentState();
      return turns;
    }
    // every client, after a change: the prior state into `previous` (the same object), turn events
    _recordAndNotify(priorState, options) {
      const { round, turn, combatantId } = this.current;
      const v13 = game.release.generation >= 13;
      const changed = combatantId !== priorState.combatantId || round !== priorState.round
        || (v13 && turn !== priorState.turn);
      Object.assign(this.previous, priorState);
      if (changed && options.turnEvents !== false) this._manageTurnEvents();
      return changed;
    }
    async _manageTurnEvents() {
      if (!this.started) return;
      const { current, previous } = this;
      if (game.users.activeGM?.id === game.user.id) await FoundryStandin.turnEvents(this);
      if (game.release.generation >= 13) Hooks.callAll("combatTurnChange", this, previous, current);
      else Hooks.callAll("combatTurnChange", this, this.previous, this.current);
    }
    async update(data, options = {}) {
      const user = actingUser();
      for (const key of Object.keys(data)) {
        if (!COMBAT_FIELDS.includes(key.split(".")[0])) throw new Error(`stand-in Combat#update: unexpected field ${key}`);
      }
      if (!user.isGM) {
        const turnOnly = Object.keys(data).every((k) => k === "round" || k === "turn");
        const owns = this.combatant?.actor?.testUserPermission?.(user, OWNER);
        if (!turnOnly || !owns) throw new Error(`User ${user.name} lacks permission to update Combat [${this.id}]`);
      }
      // as Foundry's client backend (#preUpdateDocumentArray): the changes expanded (a dotted
      // key nested), and with `diff` (the default) only what differs from the document — none:
      // no update at all, no hook, no turn events
      let changed = mergeObject({}, structuredClone(data));
      if (options.diff !== false) {
        changed = this._diff(changed);
        if (!Object.keys(changed).length) return this;
      }
      for (const [key, value] of Object.entries(changed)) {
        if (key === "flags" || key === "system") mergeObject(this[key] ??= {}, value);
        else if (key === "combatants") {
          for (const source of value) {
            const combatant = this.combatants.get(source._id);
            if (combatant && "initiative" in source) combatant.initiative = source.initiative;
          }
        } else this[key] = value;
      }
      const priorState = structuredClone(this.current);
      if ("combatants" in changed) this.setupTurns();
      else this.current = this._getCurrentState();
      this._recordAndNotify(priorState, options);
      Hooks.callAll("updateCombat", this, changed, options, user.id);
      return this;
    }
    // what of `changes` (expanded) differs from the combat as it stands (Foundry's diff)
    _diff(changes) {
      const differs = (now, value) => {
        if (!isPlainObject(value)) return now !== value;
        return Object.entries(value).some(([k, v]) => differs(isPlainObject(now) ? now[k] : undefined, v));
      };
      const out = {};
      for (const [key, value] of Object.entries(changes)) {
        if (key === "combatants") {
          const kept = value.filter((source) => {
            const combatant = this.combatants.get(source._id);
            return combatant && Object.entries(source).some(([k, v]) => k !== "_id" && combatant[k] !== v);
          });
          if (kept.length) out.combatants = kept;
        } else if (differs(this[key], value)) out[key] = value;
      }
      return out;
    }
    async startCombat() {
      const updateData = { round: 1, turn: 0 };
      if (initiating()) Hooks.callAll("combatStart", this, updateData);
      return this.update(updateData);
    }
    async nextRound() {
      const turn = this.turn === null || (game.release.generation >= 13 && this.turns.length === 0) ? null : 0;
      const updateData = { round: this.round + 1, turn };
      const updateOptions = { direction: 1, worldTime: { delta: 0 } };
      if (initiating()) Hooks.callAll("combatRound", this, updateData, updateOptions);
      return this.update(updateData, updateOptions);
    }
    async previousRound() {
      const v13 = game.release.generation >= 13;
      if (v13 && this.round === 0) return this;
      let turn = this.round === 0 ? 0 : Math.max(this.turns.length - 1, 0);
      if (this.turn === null || (v13 && (this.round === 1 || this.turns.length === 0))) turn = null;
      const round = Math.max(this.round - 1, 0);
      if (round === 0) turn = null;
      const updateData = { round, turn };
      const updateOptions = { direction: -1, worldTime: { delta: 0 } };
      if (initiating()) Hooks.callAll("combatRound", this, updateData, updateOptions);
      return this.update(updateData, updateOptions);
    }
    async nextTurn() {
      const next = (this.turn ?? -1) + 1;
      if (this.round === 0 || next >= this.turns.length) return this.nextRound();
      const updateData = { round: this.round, turn: next };
      const updateOptions = { direction: 1, worldTime: { delta: 0 } };
      if (initiating()) Hooks.callAll("combatTurn", this, updateData, updateOptions);
      return this.update(updateData, updateOptions);
    }
    async previousTurn() {
      if (this.turn === 0 && this.round === 0) return this;
      if (game.release.generation >= 13 && this.round === 0) return this;
      if (this.turn !== null && this.turn <= 0) return this.previousRound();
      const updateData = { round: this.round, turn: (this.turn ?? this.turns.length) - 1 };
      const updateOptions = { direction: -1, worldTime: { delta: 0 } };
      if (initiating()) Hooks.callAll("combatTurn", this, updateData, updateOptions);
      return this.update(updateData, updateOptions);
    }
    // v12 asks with Dialog.confirm, v13 with DialogV2.confirm; the stand-in's GM says yes
    async endCombat() {
      record.confirmations.push({ combat: this.id, generation: game.release.generation });
      return this.delete();
    }
    async delete(options = {}) {
      if (!actingUser().isGM) throw new Error(`User ${actingUser().name} lacks permission to delete Combat [${this.id}]`);
      game.combats.delete(this.id);
      Hooks.callAll("deleteCombat", this, options, actingUser().id);
      return this;
    }
    async activate() {
      for (const combat of game.combats.contents) combat.active = combat === this;
      return [this];
    }
    async createEmbeddedDocuments(embeddedName, list, options = {}) {
      if (embeddedName !== "Combatant") throw new Error(`stand-in Combat: no embedded ${embeddedName}`);
      const user = actingUser();
      const made = list.map((data) => new Combatant(data, this));
      for (const combatant of made) {
        if (!user.isGM && !combatant.actor?.testUserPermission?.(user, OWNER)) {
          throw new Error(`User ${user.name} lacks permission to create Combatant in Combat [${this.id}]`);
        }
      }
      const currentId = this.combatant?.id ?? null;
      for (const combatant of made) this.combatants.set(combatant.id, combatant);
      this._onModifyCombatants(currentId, options);
      for (const combatant of made) Hooks.callAll("createCombatant", combatant, options, user.id);
      return made;
    }
    async deleteEmbeddedDocuments(embeddedName, ids, options = {}) {
      if (embeddedName !== "Combatant") throw new Error(`stand-in Combat: no embedded ${embeddedName}`);
      if (!actingUser().isGM) throw new Error(`User ${actingUser().name} lacks permission to delete Combatant`);
      const currentId = this.combatant?.id ?? null;
      const gone = ids.map((id) => this.combatants.get(id)).filter(Boolean);
      // the current combatant removed: the turn stays at its index (the next one's turn)
      const keep = gone.some((c) => c.id === currentId) ? null : currentId;
      for (const combatant of gone) this.combatants.delete(combatant.id);
      this._onModifyCombatants(keep, options);
      for (const combatant of gone) Hooks.callAll("deleteCombatant", combatant, options, actingUser().id);
      return gone;
    }
    // initiative (and other combatant fields): the turn stays with the current combatant
    // (Combatant._preUpdateOperation's combatTurn; v13: no turn events), then updateCombatant
    async updateEmbeddedDocuments(embeddedName, updates, options = {}) {
      if (embeddedName !== "Combatant") throw new Error(`stand-in Combat: no embedded ${embeddedName}`);
      const user = actingUser();
      const changed = [];
      for (const update of updates) {
        const combatant = this.combatants.get(update._id);
        if (!combatant) continue;
        if (!user.isGM && !combatant.actor?.testUserPermission?.(user, OWNER)) {
          throw new Error(`User ${user.name} lacks permission to update Combatant [${combatant.id}]`);
        }
        for (const key of ["initiative", "hidden", "defeated"]) if (key in update) combatant[key] = update[key];
        changed.push([combatant, update]);
      }
      options = { ...options };
      const currentId = this.combatant?.id ?? null;
      if (options.combatTurn === undefined && currentId && this.turn !== null) {
        const sorted = this.combatants.contents.sort((a, b) => this._sortCombatants(a, b));
        options.combatTurn = Math.max(sorted.findIndex((c) => c.id === currentId), 0);
        if (game.release.generation >= 13) options.turnEvents = false;
      }
      const priorState = structuredClone(this.current);
      if (typeof options.combatTurn === "number" && this.turn !== null) this.turn = options.combatTurn;
      this.setupTurns();
      this._recordAndNotify(priorState, options);
      for (const [combatant, update] of changed) Hooks.callAll("updateCombatant", combatant, update, options, user.id);
      return changed.map(([combatant]) => combatant);
    }
    async setInitiative(id, value) {
      return this.combatants.get(id).update({ initiative: value });
    }
    async rollInitiative(ids, { formula = null, updateTurn = true } = {}) {
      ids = typeof ids === "string" ? [ids] : ids;
      const currentId = this.combatant?.id ?? null;
      const value = formula === null ? 10 : Number(formula);
      const updates = ids.filter((id) => this.combatants.get(id)?.isOwner).map((id) => ({ _id: id, initiative: value }));
      if (!updates.length) return this;
      if (game.release.generation >= 13) {
        const options = { turnEvents: false };
        if (!updateTurn) options.combatTurn = this.turn;
        await this.updateEmbeddedDocuments("Combatant", updates, options);
      } else {
        await this.updateEmbeddedDocuments("Combatant", updates);
        if (updateTurn && currentId) await this.update({ turn: this.turns.findIndex((t) => t.id === currentId) });
      }
      return this;
    }
    async resetAll({ updateTurn = true } = {}) {
      const currentId = this.combatant?.id;
      const combatants = this.combatants.contents.map((c) => ({ _id: c.id, initiative: null }));
      if (game.release.generation >= 13) {
        for (const c of this.combatants.contents) c.initiative = null;
        this.setupTurns();
        const update = { combatants };
        if (updateTurn && currentId) update.turn = this.turns.findIndex((t) => t.id === currentId);
        return this.update(update, { turnEvents: false, diff: false });
      }
      return this.update({ turn: this.started ? 0 : null, combatants }, { diff: false });
    }
    // the turn stays with `keepId` (combatTurn), the turns sorted again, then turn events
    _onModifyCombatants(keepId, options) {
      const priorState = structuredClone(this.current);
      this.turns = this.combatants.contents.sort((a, b) => this._sortCombatants(a, b));
      if (keepId && this.turn !== null) this.turn = this.turns.findIndex((c) => c.id === keepId);
      this.setupTurns();
      this._recordAndNotify(priorState, options);
    }
  }

  class CombatEncounters extends Collection {
    // the combat active on the viewed scene (or on none)
    get active() {
      return this.contents.find((c) => c.active && (!c.scene || c.scene === canvas.scene?.id)) ?? null;
    }
    get viewed() {
      return this.active ?? this.contents.find((c) => !c.scene || c.scene === canvas.scene?.id) ?? null;
    }
  }

  // -- ui ------------------------------------------------------------------------------------
  const HTML_ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;" };
  const escapeHTML = (text) => String(text).replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);
  const ENTITIES = { amp: "&", lt: "<", gt: ">", quot: '"', "#x27": "'", "#39": "'", nbsp: "\u00a0" };
  // foundry.utils.cleanHTML, as far as a notification needs it (headless: no DOM to parse with)
  // (elements only: text, escaped markup among it, stays as it is)
  const cleanHTML = (html) => String(html)
    .replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, "")
    .replace(/<[a-z][^>]*>/gi, (tag) => tag
      .replace(/\s+on[a-z]+\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)/gi, "")
      .replace(/javascript:/gi, ""));
  // the words an HTML fragment shows (its elements' text, entities read)
  const textOf = (html) => String(html).replace(/<[^>]*>/g, "")
    .replace(/&(amp|lt|gt|quot|#x27|#39|nbsp);/g, (_, name) => ENTITIES[name]);
  function notificationHtml(message, options) {
    let text = String(message);
    if (game.release.generation < 13) return options.localize ? game.i18n.localize(text) : text;
    const { localize = false, format = null, escape = true, clean = true } = options;
    if (format) {
      const values = Object.fromEntries(Object.entries(format).map(([k, v]) => [k, escape ? escapeHTML(v) : v]));
      text = game.i18n.format(text, values);
    } else if (localize) {
      text = game.i18n.localize(text);
    }
    const exempt = (format && escape) || (localize && !format);
    return clean && !exempt ? cleanHTML(text) : text;
  }
  const notifyAs = (level, message, options = {}) => {
    const html = notificationHtml(message, options ?? {});
    const entry = { level, text: String(message), html, shown: textOf(html), markup: /<[a-z]/i.test(html) };
    record.notifications.push(entry);
    const box = globalThis.document?.getElementById("notifications");
    if (box) {
      const li = document.createElement("li");
      li.className = `notification ${level}`;
      li.innerHTML = html;
      entry.shown = li.textContent;
      entry.markup = li.children.length > 0;
      box.append(li);
    }
    return record.notifications.length;
  };
  const notify = (level) => (message, options) => notifyAs(level, message, options);

  // -- the game ---------------------------------------------------------------------------------
  // language: the user's Foundry language (core.language); manifest: the module's module.json;
  // moduleRoot: where the page serves the module's folder; coreLanguages: languages a core
  // translation module adds ({lang: name}) without rollbridge strings of its own;
  // settingsBy: the user whose write of a world setting given the server took last
  // ({id: userId}; else the world's first GM)
  function install({
    system = "shadowrun5e", generation = 13, settings = {}, user = "gm", language = "en",
    manifest = { languages: [] }, moduleRoot = "/adapters/foundry/module/", coreLanguages = {}, users = null,
    headless = false, load = null, statusEffects = null, random = null, settingsBy = {},
  } = {}) {
    // the world's users: a GM and a player, or `users` [{_id, name, isGM}] (the same on
    // every page of one world); `user` is "gm", "player" or a user's id
    for (const list of Object.values(record)) if (Array.isArray(list)) list.length = 0; // a fresh world
    // a fresh page: the hooks of the page before (a module booted there, a test's listeners)
    // are gone with it, as a reload leaves none of them in the browser
    Hooks.events = {};
    if (globalThis.FoundryStandin) {
      FoundryStandin.queryClient = null;
      FoundryStandin.headlessElement = null;
      FoundryStandin.turnEvents = async () => {};
    }
    const people = (users ?? [
      { _id: "standinGM000001", name: "Gamemaster", isGM: true }, { _id: "standinPlr00001", name: "Player" },
    ]).map((u) => new User(u));
    const gm = people.find((u) => u.isGM) ?? null;
    const player = people.find((u) => !u.isGM) ?? null;
    const me = user === "gm" ? gm : user === "player" ? player : people.find((u) => u.id === user);
    if (!me) throw new Error(`stand-in: no user ${user}`);
    globalThis.CONFIG = {
      Dice: {
        rolls: [Roll],
        termTypes: { DiceTerm, Die, OperatorTerm, NumericTerm, PoolTerm, ParentheticalTerm, FunctionTerm },
        terms: { d: Die },
        randomUniform: random ?? Math.random,
        // CONFIG.Dice.fulfillment as v12/v13 ship it: the die sizes of Dice Configuration,
        // the methods (Foundry's own: its PRNG and manual entry) and the default method
        fulfillment: {
          dice: Object.fromEntries([4, 6, 8, 10, 12, 20, 100].map((f) => [`d${f}`, { label: `d${f}`, icon: "" }])),
          methods: {
            mersenne: {
              label: "DICE.FULFILLMENT.Mersenne", interactive: false,
              handler: (term) => term.mapRandomFace(CONFIG.Dice.randomUniform()),
            },
            manual: { label: "DICE.FULFILLMENT.Manual", icon: '<i class="fa-solid fa-keyboard"></i>', interactive: true },
          },
          defaultMethod: "",
        },
      },
      // v13's query handlers, by name (v12 has none)
      ...(generation >= 13 ? { queries: {} } : {}),
      // the world's system's status effects ({id, name, img}); SWADE's include shaken
      statusEffects: structuredClone(statusEffects ?? STATUS_EFFECTS[system] ?? []),
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
        if (load) return load(path); // Node's tests read the files themselves
        const response = await fetch(`${moduleRoot}${path}`);
        if (response.status !== 200) throw new Error(`stand-in: cannot load ${path} (${response.status})`);
        return response.json();
      },
    });
    record.language = language;
    headlessPage = headless;
    const socketHandlers = {};
    globalThis.game = {
      ready: false,
      release: { generation, version: `${generation}.standin` },
      system: { id: system },
      // the world (its id names it among the worlds one Foundry server hosts: game.world.id)
      world: { id: "standin-world" },
      user: me,
      users: new Users(people.map((u) => [u.id, u])),
      actors: new Collection(),
      scenes: new Collection(),
      combats: new CombatEncounters(),
      messages: new Collection(),
      modules: new Collection([["rollbridge", module]]),
      settings: new ClientSettings(settings, { writtenBy: settingsBy, firstWriter: gm?.id ?? null }),
      i18n,
      // a module's socket: an emitted message reaches the other clients of the world
      // (the other pages, through the world's channel), not the sender
      socket: {
        on: (name, fn) => { (socketHandlers[name] ??= []).push(fn); },
        emit: (name, message) => {
          record.socket.push({ name, message });
          world?.postMessage({ type: "socket", name, message: structuredClone(message), user: game.user.id });
        },
      },
    };
    // game.combat: the combat this client views (CombatEncounters#viewed)
    Object.defineProperty(game, "combat", { get: () => game.combats.viewed, configurable: true });
    game.settings.register("core", "rollMode", { scope: "client", config: false, type: String, default: "publicroll" });
    // the roles of each permission (Permission Configuration): SETTINGS_MODIFY's default
    // role is ASSISTANT (CONST.USER_PERMISSIONS), so an assistant and a full gamemaster
    game.settings.register("core", "permissions", {
      scope: "world", config: false, type: Object, default: { SETTINGS_MODIFY: [USER_ROLES.ASSISTANT, USER_ROLES.GAMEMASTER] },
    });
    Object.defineProperty(game, "permissions", { get: () => game.settings.get("core", "permissions"), configurable: true });
    // the user's Dice Configuration: a method per die size ("" or absent: the default method)
    game.settings.register("core", "diceConfiguration", { scope: "client", config: false, type: Object, default: {} });
    // headless (Node's tests): no DOM, so the chat log records what it would render
    const chat = { ...(headless ? headlessChatLog : chatLog), ...chatLogViews() };
    // the sidebar: v13's `expanded` (collapsed: new messages are notified over the board),
    // its pop-outs (none here)
    const sidebar = { popouts: {}, ...(generation >= 13 ? { expanded: true } : {}) };
    const notifications = {
      info: notify("info"), warn: notify("warn"), error: notify("error"),
      notify: (message, type = "info", options = {}) => notifyAs(type === "warning" ? "warn" : type, message, options),
    };
    globalThis.ui = { notifications, chat, sidebar };
    world?.close();
    world = null;
    if (globalThis.BroadcastChannel && !headless) {
      world = new BroadcastChannel(WORLD);
      world.onmessage = (e) => {
        if (e.data?.type === "createChatMessage") ChatMessage._fromWorld(e.data);
        if (e.data?.type === "updateChatMessage") {
          const message = game.messages.get(e.data.id);
          if (message) mergeObject(message, e.data.data);
          message?._updated(e.data.data, {}, e.data.user);
        }
        // Foundry's server adds the sending user's id after the sender's own arguments
        if (e.data?.type === "socket") for (const fn of socketHandlers[e.data.name] ?? []) fn(e.data.message, e.data.user);
        if (e.data?.type === "query") answerQuery(e.data);
        if (e.data?.type === "queryReply" && pendingQueries.has(e.data.id)) {
          const { resolve, reject } = pendingQueries.get(e.data.id);
          pendingQueries.delete(e.data.id);
          if (e.data.error) reject(new Error(e.data.error));
          else resolve(e.data.value);
        }
      };
    }
    globalThis.canvas = { scene: null, tokens: { controlled: [] } };
    return { gm, player, module };
  }

  // a system's status effects as its CONFIG.statusEffects lists them (the ids only matter)
  const STATUS_EFFECTS = {
    swade: [
      { id: "shaken", name: "SWADE.Shaken", img: "systems/swade/assets/icons/status/status_shaken.svg" },
      { id: "incapacitated", name: "SWADE.Incap", img: "systems/swade/assets/icons/status/status_incapacitated.svg" },
      { id: "dead", name: "EFFECT.StatusDead", img: "icons/svg/skull.svg" },
    ],
    shadowrun5e: [{ id: "dead", name: "EFFECT.StatusDead", img: "icons/svg/skull.svg" }],
  };

  // the chat log's scrolling and notifications (v12/v13 ChatLog): isAtBottom (whether it
  // is scrolled to the bottom: yes here, settable), scrollBottom(options) and
  // notify(message, {existing, newMessage}) (v13: a message shown over the board while
  // the sidebar is collapsed, a copy of `existing`, the log's element) — recorded
  function chatLogViews() {
    return {
      isAtBottom: true,
      element: globalThis.document?.getElementById?.("sidebar") ?? null,
      async scrollBottom(options = {}) {
        record.scrolled.push(options);
      },
      notify(message, { existing = null, newMessage = false } = {}) {
        record.notified.push({ message: message.id, existing: existing?.dataset?.messageId ?? null, newMessage });
        const box = globalThis.document?.getElementById?.("chat-notifications");
        if (box && existing) box.append(existing.cloneNode(true));
      },
    };
  }

  // Node's tests have no DOM: the chat log decides visibility as the real one and records it
  // (and draws it, its render hooks run, when the test gives its element: headlessElement)
  const headlessChatLog = {
    async postOne(message) {
      record.rendered.push({ message: message.id, shown: Boolean(message.visible), content: message.isContentVisible });
      if (!message.visible) return null;
      await null; // the template before the render hooks
      message.logged = true;
      return FoundryStandin.headlessElement ? renderMessage(message) : null;
    },
    // ChatLog#updateMessage: a message the log shows is drawn again in place; another is posted
    async updateMessage(message) {
      if (!message.logged) return this.postOne(message);
      record.rendered.push({ message: message.id, shown: true, content: message.isContentVisible, updated: true });
      return FoundryStandin.headlessElement ? renderMessage(message) : null;
    },
  };

  function addScene(data) {
    const scene = new Scene(data);
    game.scenes.set(scene.id, scene);
    canvas.scene ??= scene;
    return scene;
  }

  // a token on a scene: linked (actorLink: its actor is the world actor) or not (a synthetic actor)
  function addToken(scene, data) {
    const token = new TokenDocument(data, scene);
    scene.tokens.set(token.id, token);
    return token;
  }

  function uninstall() {
    world?.close();
    world = null;
  }

  // Dice So Nice's Dice3D#show (5.x and 6.x): blind for the caller, no animation here
  // (false at once); else, while the tab is hidden (document.hidden), the animation is
  // parked and its promise resolves only when the tab is visible again (its
  // "visibilitychange" handler); `hidden` starts the stand-in's tab hidden. An
  // animation takes its time: at once by default, or, installDiceSoNice({manual:
  // true}), only when the test lands the dice (landDice), as a real throw ends later
  let parked = [];
  let throwing = [];
  function setTabHidden(hidden) {
    diceSoNiceTab.hidden = hidden;
    if (hidden) return;
    const waiting = parked;
    parked = [];
    for (const start of waiting) start();
  }
  // the dice thrown so far land: their animations resolve true
  function landDice() {
    const landing = throwing;
    throwing = [];
    for (const resolve of landing) resolve(true);
  }
  const diceSoNiceTab = { hidden: false, manual: false };
  let diceSoNiceHooks = [];
  function animate() {
    const thrown = () => (diceSoNiceTab.manual ? new Promise((resolve) => throwing.push(resolve)) : Promise.resolve(true));
    if (diceSoNiceTab.hidden) return new Promise((resolve) => parked.push(() => thrown().then(resolve)));
    return thrown();
  }
  function installDiceSoNice({ version = 6, hidden = false, manual = false } = {}) {
    parked = [];
    throwing = [];
    diceSoNiceTab.hidden = hidden;
    diceSoNiceTab.manual = manual;
    // Dice3D#show: `synchronize` sends the dice over Dice So Nice's socket to `users`
    // (everyone when null), where they are shown tied to no message; the calling client
    // animates them unless `blind`
    function show(blind) {
      if (blind) return Promise.resolve(false);
      return animate();
    }
    game.dice3d = {
      showForRoll(roll, user, synchronize, users = null, blind = false, messageID = null, speaker = null) {
        const call = {
          formula: roll.formula, user: user?.id, synchronize, users, blind, messageID, speaker,
          results: roll.dice.flatMap((d) => d.results.map((r) => r.result)),
        };
        // Dice So Nice 5 (Dice3D.js showForRoll): the CALLING user's "Only show my dice"
        // returns before show(), so nothing is sent to anyone, for another user's roll
        if (game.user?.flags?.["dice-so-nice"]?.settings?.onlyShowOwnDice && user !== game.user) {
          record.showForRoll.push({ ...call, dropped: "onlyShowOwnDice" });
          return Promise.resolve(false);
        }
        record.showForRoll.push(call);
        return show(blind).then((shown) => {
          call.landed = true;
          return shown;
        });
      },
    };
    // its chat-message path: on createChatMessage (before Foundry renders the message),
    // a message with rolls whose content this user may see is animated (renderRolls:
    // the message flagged _dice3danimating, its rolls shown in order) unless a module
    // turned willTrigger3DRoll off; its render hook hides a message while it animates
    // (`dsn-hide` on the message's element: renderChatMessageHTML on v13,
    // renderChatMessage on v12), and once the dice landed the class goes and
    // diceSoNiceRollComplete(messageId) fires
    const hideAnimating = (message, html) => {
      const element = html instanceof (globalThis.HTMLElement ?? class {}) ? html : html?.[0];
      if (!message._dice3danimating || !element?.classList) return;
      element.classList.add("dsn-hide");
      (message._dsnHidden ??= new Set()).add(element); // headless: no DOM to find it in
    };
    // installed again (another test's world): its hooks once, not twice
    for (const [name, fn] of diceSoNiceHooks) Hooks.off(name, fn);
    const renderHook = game.release.generation >= 13 ? "renderChatMessageHTML" : "renderChatMessage";
    const onCreate = (message) => {
      if (!message.isRoll || !message.isContentVisible) return;
      const interception = { willTrigger3DRoll: true };
      if (version >= 6) Hooks.callAll("diceSoNiceMessagePreProcess", message.id, interception);
      const decided = interception.willTrigger3DRoll;
      Hooks.callAll("diceSoNiceMessageProcessed", message.id, interception);
      if (version >= 6 && interception.willTrigger3DRoll !== decided) {
        record.compatibility.push("A module mutated willTrigger3DRoll from the 'diceSoNiceMessageProcessed' hook");
      }
      const entry = {
        message: message.id,
        user: game.user.id,
        animated: interception.willTrigger3DRoll,
        whisper: [...message.whisper],
        blind: message.blind,
        rolls: message.rolls.map((roll) => ({
          formula: roll.formula,
          total: roll.total,
          results: roll.dice.flatMap((d) => d.results.map((r) => r.result)),
        })),
        landed: false,
      };
      record.dice3d.push(entry);
      if (!entry.animated) return;
      message._dice3danimating = true;
      // renderRolls: the dice of all the message's rolls in one throw (its world setting
      // enabledSimultaneousRollForMessage, on by default; a term's options.rollOrder
      // would split them otherwise, and the rolls here have none), then showMessage
      entry.throws = 1;
      (async () => {
        await show(false);
        delete message._dice3danimating;
        entry.landed = true;
        showMessage(message);
      })();
    };
    // Dice3D#renderRolls' showMessage: the class goes from the message's elements; v13's
    // hidden copy among the chat notifications goes and, the sidebar collapsed, the
    // message is notified again from the log's element; diceSoNiceRollComplete; the log
    // scrolled to the bottom when it was there or the message is this user's
    const showMessage = (message) => {
      const selector = `.message[data-message-id="${message.id}"]`;
      const shown = [...(globalThis.document?.querySelectorAll?.(selector) ?? []), ...(message._dsnHidden ?? [])];
      for (const element of shown) element.classList.remove("dsn-hide");
      delete message._dsnHidden;
      globalThis.document?.querySelector?.(`#chat-notifications ${selector}`)?.remove();
      if (ui.sidebar.expanded === false) {
        ui.chat.notify(message, { newMessage: true, existing: ui.chat.element?.querySelector(`[data-message-id="${message.id}"]`) ?? null });
      }
      Hooks.callAll("diceSoNiceRollComplete", message.id);
      if (ui.chat.isAtBottom || message.author === game.user.id) ui.chat.scrollBottom({ popout: false });
    };
    diceSoNiceHooks = [[renderHook, hideAnimating], ["createChatMessage", onCreate]];
    for (const [name, fn] of diceSoNiceHooks) Hooks.on(name, fn);
  }

  function addActor(data) {
    const actor = new Actor(data);
    game.actors.set(actor.id, actor);
    return actor;
  }

  // -- DialogV2 (v12, v13) ----------------------------------------------------------------
  // foundry.applications.api.DialogV2.wait as the foundry-vtt-types declarations
  // (v12.331, v13.340) describe it: `buttons` required, each with a string `action`
  // and `label`, at most one `default`; `content` a string (v13: cleaned with
  // cleanHTML, or a <div> element); a button's callback called with (event,
  // button, dialog) — `button.form` the dialog's form — its value (else the button's
  // action) what wait resolves to; dismissed, wait resolves null with rejectClose
  // false and rejects with it true, the default on v12 (v13's default is false);
  // `render(event, dialog)` after it is drawn, `close(event, dialog)` when it closes.
  // The `dialog` a button's callback and `render` are handed is the dialog's element
  // on v12 and the DialogV2 itself on v13 (its `element` the element: Foundry's v13
  // release notes, "DialogV2ButtonCallback and DialogV2RenderCallback now expect a
  // DialogV2 instance in the dialog argument, rather than a DialogV2#element").
  // Headless (no DOM): the open dialogs are in FoundryStandin.log.dialogs, and the
  // test works one as a user would: submit(action, values) presses a button with
  // the form's controls holding `values` (a name the content has no control of
  // throws), enter(values) submits with the default button (Enter), escape()
  // dismisses it. In a page it is drawn as a modal <dialog> (draw) that a user (the
  // browser test) works with the keyboard and the mouse.
  const ATTRIBUTES = /([a-zA-Z][\w-]*)(?:\s*=\s*"([^"]*)")?/g;
  const attributesOf = (tag) => Object.fromEntries([...tag.matchAll(ATTRIBUTES)].slice(1)
    .map(([, name, value]) => [name.toLowerCase(), value === undefined ? "" : textOf(value)]));
  // the named controls of a dialog's content, each with the value it shows
  function controlsOf(content) {
    const controls = [];
    for (const match of content.matchAll(/<select\b([^>]*)>([\s\S]*?)<\/select>|<(input|textarea)\b([^>]*)>/gi)) {
      const tag = (match[3] ?? "select").toLowerCase();
      const attrs = attributesOf(`${tag} ${match[1] ?? match[4]}`);
      if (!attrs.name) continue;
      const control = { name: attrs.name, tagName: tag.toUpperCase(), type: tag === "input" ? (attrs.type || "text") : tag, value: attrs.value ?? "", checked: "checked" in attrs, attrs };
      if (tag === "select") {
        const options = [...match[2].matchAll(/<option\b([^>]*)>/gi)].map(([, a]) => attributesOf(`option ${a}`));
        control.options = options.map((o) => o.value ?? "");
        control.value = (options.find((o) => "selected" in o) ?? options[0])?.value ?? "";
      }
      controls.push(control);
    }
    return controls;
  }
  class DialogV2 {
    constructor(options) {
      const { buttons, content = "", window: frame = {} } = options ?? {};
      if (!Array.isArray(buttons) || !buttons.length) throw new Error("stand-in DialogV2: `buttons` is required (DialogV2.Configuration)");
      for (const button of buttons) {
        if (typeof button?.action !== "string" || typeof button?.label !== "string") {
          throw new Error("stand-in DialogV2: each button needs a string action and label");
        }
        if (button.callback !== undefined && typeof button.callback !== "function") throw new Error("stand-in DialogV2: a button's callback is a function");
      }
      if (buttons.filter((b) => b.default).length > 1) throw new Error("stand-in DialogV2: one default button at most");
      if (typeof content !== "string") throw new Error("stand-in DialogV2: the content is a string here");
      this.options = options;
      this.title = String(frame.title ?? "");
      this.buttons = buttons;
      this.content = game.release.generation >= 13 ? cleanHTML(content) : content;
      if (headlessPage) {
        this.form = { elements: controlsOf(this.content), noValidate: false };
        this.element = { tagName: "DIALOG", querySelector: (selector) => (selector === "form" ? this.form : null), form: this.form };
      } else this.draw();
    }
    // In a page: a modal <dialog> holding the form (the content, then the buttons,
    // each labelled by its `label`); a click presses a button, Enter in a field
    // presses the default one, Escape (the dialog's cancel) dismisses it
    draw() {
      const element = document.createElement("dialog");
      element.className = "standin-dialog";
      const heading = document.createElement("h1");
      heading.id = `standin-dialog-${record.dialogs.length + 1}`;
      heading.textContent = this.title;
      element.setAttribute("aria-labelledby", heading.id);
      const form = document.createElement("form");
      form.innerHTML = `<div class="dialog-content">${this.content}</div>`;
      const footer = document.createElement("footer");
      for (const button of this.buttons) {
        const node = document.createElement("button");
        node.type = "button";
        node.dataset.action = button.action;
        // v12 writes the localized label into the button's HTML, v13 sets it as text
        if (game.release.generation >= 13) node.textContent = game.i18n.localize(button.label);
        else node.innerHTML = game.i18n.localize(button.label);
        // Foundry's DialogV2#_renderButtons gives the default button `autofocus`, so
        // showModal focuses it unless a render callback moves the focus on
        if (button.default) {
          node.classList.add("default");
          node.autofocus = true;
        }
        node.addEventListener("click", () => this.press(button));
        footer.append(node);
      }
      form.append(footer);
      form.addEventListener("submit", (event) => event.preventDefault());
      element.addEventListener("keydown", (event) => {
        const field = event.target.closest?.("input, select");
        if (event.key !== "Enter" || !field) return;
        event.preventDefault();
        const button = this.buttons.find((b) => b.default);
        if (button) this.press(button);
      });
      element.addEventListener("cancel", (event) => {
        event.preventDefault();
        this.dismiss();
      });
      element.append(heading, form);
      this.form = form;
      this.element = element;
    }
    static wait(config = {}) {
      const { rejectClose = game.release.generation < 13, render = null, close = null, ...options } = config;
      return new Promise((resolve, reject) => {
        const dialog = new this(options);
        const finish = (settle) => {
          record.dialogs.splice(record.dialogs.indexOf(dialog), 1);
          dialog.closed = true;
          if (!headlessPage) dialog.element.remove();
          settle();
        };
        dialog.dismiss = () => finish(() => {
          close?.({ type: "close" }, dialog);
          if (rejectClose) reject(new Error("Dialog was dismissed without pressing a button."));
          else resolve(null);
        });
        dialog.press = async (button) => {
          const target = headlessPage
            ? { dataset: { action: button.action }, form: dialog.form, type: "submit" }
            : dialog.element.querySelector(`footer button[data-action="${CSS.escape(button.action)}"]`);
          const result = (await button.callback?.({ type: "submit", target }, target, dialog.handedOver())) ?? button.action;
          finish(() => {
            close?.({ type: "close" }, dialog);
            resolve(result);
          });
        };
        record.dialogs.push(dialog);
        if (!headlessPage) {
          document.body.append(dialog.element);
          dialog.element.showModal();
        }
        render?.({ type: "render" }, dialog.handedOver());
      });
    }
    /** What a callback is handed as the dialog: v12 its element, v13 the DialogV2. */
    handedOver() {
      return game.release.generation >= 13 ? this : this.element;
    }
    /** The words a user reads on a button: v12 renders its label as HTML
     * (`<span>${game.i18n.localize(label)}</span>`), v13 as text (`span.innerText`). */
    shownLabel(action) {
      const button = this.buttons.find((b) => b.action === action);
      if (!button) throw new Error(`stand-in DialogV2: no button ${action}`);
      const label = game.i18n.localize(button.label);
      return game.release.generation >= 13 ? label : textOf(label);
    }
    /** Put `values` into the form's controls (as a user types or picks them). */
    fill(values = {}) {
      for (const [name, value] of Object.entries(values)) {
        const control = this.form.elements.find((c) => c.name === name);
        if (!control) throw new Error(`stand-in DialogV2: the dialog has no control named ${name}`);
        if (control.type === "checkbox") control.checked = Boolean(value);
        else if (control.type === "select" && !control.options.includes(String(value))) {
          throw new Error(`stand-in DialogV2: ${name} offers no ${value} (${control.options.join(", ")})`);
        } else if (control.type === "number") {
          // a browser's number input keeps only a valid floating-point number (HTML's
          // value sanitization): anything else typed reads "" with validity.badInput
          const text = String(value);
          const valid = /^-?(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?$/.test(text);
          control.value = valid ? text : "";
          control.validity = { badInput: !valid && text !== "" };
        } else control.value = String(value);
      }
    }
    /** Press the button of `action` with the form holding `values`. */
    submit(action, values = {}) {
      const button = this.buttons.find((b) => b.action === action);
      if (!button) throw new Error(`stand-in DialogV2: no button ${action}`);
      this.fill(values);
      return this.press(button);
    }
    /** Enter in a field: the form is submitted with the default button. */
    enter(values = {}) {
      const button = this.buttons.find((b) => b.default);
      if (!button) throw new Error("stand-in DialogV2: Enter submits nothing without a default button");
      this.fill(values);
      return this.press(button);
    }
    /** Escape (or the close button): dismissed. */
    escape() {
      return this.dismiss();
    }
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
    FunctionTerm, ChatMessage, Actor, TokenDocument, Scene, Combat, Combatant,
  });
  globalThis.foundry = {
    utils: { mergeObject, setProperty, getProperty, deepClone: structuredClone },
    applications: { api: { DialogV2 } },
  };
  globalThis.FoundryStandin = {
    install, uninstall, installDiceSoNice, setTabHidden, landDice, addActor, addScene, addToken, boot, log: record, isStandin: true, StandinJQuery,
    asUser, setUserActive, USER_ROLES,
    // the active GM's turn events, awaited before its combatTurnChange (Combat#_manageTurnEvents)
    turnEvents: async () => {},
    // headless: (user, name, data) => answer, standing for the queried user's client
    queryClient: null,
    // headless: (message) => the element the chat log draws it into (ChatMessage#renderHTML,
    // v12's getHTML), handed to its render hooks; null: the log draws nothing, no hook runs
    headlessElement: null,
  };
})();
