// Foundry glue: one rollbridge connection per Foundry client, and what the
// module does with what arrives. The rules live in core/ (tested without
// Foundry); this file only reads settings, talks to Foundry's documents and
// shows notices.
//
// Every notice is a key of lang/*.json, shown with game.i18n. The hello asks
// the server for the user's Foundry language (game.i18n.lang), so what the
// server sends (narrations, steps, dice labels, conditions, error messages)
// arrives in it; when the server has no such locale, its welcome says so in a
// `locale_unavailable` note, which is shown once as a warning.

import { localizeRenderedCards, postCard } from "./chat.mjs";
import { setting } from "./settings.mjs";
import { Connection } from "../core/connection.mjs";
import { labelOf, ROLE_LABELS } from "../core/i18n.mjs";
import { localeNotice, newRequestId, resolveMessage, ROLL_MODES, rollMessage } from "../core/protocol.mjs";
import {
  actorUpdate,
  chooseMapping,
  connectPlan,
  EventCache,
  findActor,
  MODULE_ID,
  rollbridgeIdOf,
  shouldPostCard,
} from "../core/state.mjs";
import { checkServerUrl, redact } from "../core/url.mjs";

const SOCKET = `module.${MODULE_ID}`;

export class FoundryClient {
  constructor() {
    this.connection = null;
    this.plan = null;
    this.check = null;
    this.table = null;
    this.welcome = null;
    this.ownRequests = new Set();
    this.queue = Promise.resolve();
    this.lastNotice = null;
    this.gmStatus = null;
    this.localeNoted = false;
    // the cards' events as this client's own connection received them (its
    // user's language, its audience's view), to draw cards again in it
    this.events = new EventCache();
  }

  /** Read the settings and (re)connect as the rules say. */
  start() {
    this.stop();
    this.localeNoted = false;
    const url = setting("serverUrl");
    const token = setting("token");
    const user = game.user;
    this.plan = connectPlan({ user, activeGM: game.users.activeGM, token, url });
    if (!this.plan.connect) {
      // players who do not use rollbridge are not nagged: only GMs get a notice
      const key = { "no-token": "ROLLBRIDGE.Notice.NoToken", "not-active-gm": "ROLLBRIDGE.Notice.NotActiveGM" }[this.plan.reason];
      if (key && url && user?.isGM) this.notify("info", key);
      else if (key && url) console.info(`rollbridge | ${game.i18n.localize(key)}`);
      return;
    }
    this.check = checkServerUrl(url, { pageProtocol: globalThis.location?.protocol ?? "https:", i18n: game.i18n });
    if (!this.check.ok) {
      this.notify("error", this.check.message, { raw: true, permanent: true });
      return;
    }
    if (this.check.warning) this.notify("warn", this.check.warning, { raw: true });
    this.table = this.check.table;
    const saved = this.plan.writer ? setting("cursor") : null;
    const cursor = saved?.table === this.table ? { epoch: saved.epoch, seq: saved.seq } : null;
    this.connection = new Connection({
      url: this.check.url,
      table: this.table,
      token,
      cursor,
      locale: game.i18n.lang,
      client: `foundry/${game.release?.version ?? "?"} rollbridge/${game.modules.get(MODULE_ID)?.version ?? "?"}`,
      onWelcome: (welcome) => this.#welcomed(welcome),
      onSnapshot: (welcome) => this.#enqueue(() => this.#applySnapshot(welcome)),
      onEvent: (event) => {
        this.#keep(event);
        this.#enqueue(() => this.#handle(event));
      },
      onCursor: (c) => this.#enqueue(() => this.#saveCursor(c)),
      onStatus: (status, detail) => this.#status(status, detail),
      log: (level, text) => (console[level] ?? console.log)(`rollbridge | ${redact(text, [token])}`),
    });
    this.connection.start();
  }

  /** Start again only if who connects (or writes) changed, e.g. the active GM left. */
  reconsider() {
    const plan = connectPlan({
      user: game.user, activeGM: game.users.activeGM, token: setting("token"), url: setting("serverUrl"),
    });
    if (!this.plan || plan.connect !== this.plan.connect || plan.writer !== this.plan.writer) this.start();
  }

  stop() {
    this.connection?.stop();
    this.connection = null;
  }

  get writer() {
    return Boolean(this.plan?.writer);
  }

  status() {
    const c = this.connection;
    return {
      status: c?.status ?? "off",
      reason: this.plan?.reason ?? (this.check && !this.check.ok ? this.check.reason : null),
      role: c?.welcome?.role ?? null,
      table: this.table,
      writer: this.writer,
      cursor: c?.cursor ?? null,
      stats: c ? { ...c.stats } : null,
      gm: this.gmStatus,
    };
  }

  notify(level, key, { raw = false, permanent = false, data } = {}) {
    const text = raw ? key : data ? game.i18n.format(key, data) : game.i18n.localize(key);
    if (text === this.lastNotice) return;
    this.lastNotice = text;
    ui.notifications?.[level]?.(`rollbridge: ${text}`, { permanent });
  }

  // -- requests --------------------------------------------------------------

  async request(message) {
    if (!this.connection) throw new Error(game.i18n.localize("ROLLBRIDGE.Notice.NotConnected"));
    const id = message.id ?? newRequestId();
    this.ownRequests.add(id);
    const reply = await this.connection.request({ ...message, id });
    return reply;
  }

  /**
   * The rollbridge actor a Foundry speaker or actor stands for. An actor given
   * explicitly is taken at its word (its link, else its id); the speaker (the
   * selected token) counts only when its actor is linked to the table, so a
   * plain roll with some other token selected still works.
   */
  actorFor({ actor, speaker } = {}) {
    if (typeof actor === "string") return actor;
    if (actor) return rollbridgeIdOf(actor);
    const fvtt = speaker?.actor ? game.actors.get(speaker.actor) : null;
    return fvtt?.flags?.[MODULE_ID]?.actorId ?? null;
  }

  rollMode(mode) {
    const wanted = mode ?? game.settings.get("core", "rollMode");
    return ROLL_MODES.includes(wanted) ? wanted : undefined;
  }

  targetsFor(targets) {
    const list = targets ?? Array.from(game.user.targets ?? []).map((t) => t.actor ?? t.document?.actor);
    return list.map((t) => (typeof t === "string" ? t : rollbridgeIdOf(t))).filter(Boolean);
  }

  async roll(formulaOrRoll, options = {}) {
    const speaker = options.speaker ?? ChatMessage.getSpeaker();
    const evaluated = typeof formulaOrRoll === "object" && formulaOrRoll !== null;
    const reply = await this.request(rollMessage({
      formula: evaluated ? undefined : String(formulaOrRoll),
      roll: evaluated ? (formulaOrRoll.toJSON?.() ?? formulaOrRoll) : undefined,
      speaker,
      actor: this.actorFor({ actor: options.actor, speaker }),
      flavor: options.flavor,
      rollMode: this.rollMode(options.rollMode),
      source: options.source,
    }));
    return reply.event ?? reply;
  }

  async resolve(action, options = {}) {
    const speaker = options.speaker ?? ChatMessage.getSpeaker();
    const reply = await this.request(resolveMessage({
      action,
      speaker,
      actor: this.actorFor({ actor: options.actor, speaker }),
      targets: this.targetsFor(options.targets),
      params: options.params ?? {},
      rollMode: this.rollMode(options.rollMode),
      dice: options.dice,
    }));
    return reply.event ?? reply;
  }

  /** Put a Foundry actor on the table (GM): its rollbridge id is its Foundry id. */
  async addActor(actor, sheet, { controllers = [] } = {}) {
    const reply = await this.request({
      type: "actor.create",
      actor: { id: actor.id, name: actor.name, sheet, controllers },
    });
    await this.linkActor(actor, actor.id);
    return reply.event ?? reply;
  }

  /** Link a Foundry actor to an existing rollbridge actor. */
  async linkActor(actor, rollbridgeId) {
    await actor.update({ [`flags.${MODULE_ID}.actorId`]: rollbridgeId });
  }

  // -- what arrives ---------------------------------------------------------------

  #enqueue(task) {
    this.queue = this.queue.then(task).catch((error) => {
      console.error(`rollbridge | ${redact(error?.message ?? error)}`);
    });
    return this.queue;
  }

  #keep(event) {
    if (!this.events.add(event)) return;
    try {
      localizeRenderedCards(event, this.events); // a message that came before its event
    } catch (error) {
      console.error(`rollbridge | ${redact(error?.message ?? error)}`);
    }
  }

  /** The event of a card as this client's connection received it, or null. */
  cachedEvent(table, epoch, seq) {
    return this.events.get(table, epoch, seq);
  }

  #welcomed(welcome) {
    this.welcome = welcome;
    const notice = localeNotice(welcome, game.i18n.lang);
    if (notice && !this.localeNoted) {
      this.localeNoted = true; // once per start, not on every reconnect
      console.warn(`rollbridge | ${redact(notice.message)}`);
      this.notify("warn", notice.key, { data: notice.data });
    }
  }

  #status(status, detail) {
    if (status === "connected") {
      this.lastNotice = null;
      const role = labelOf(game.i18n, ROLE_LABELS, detail?.role ?? "?");
      this.notify("info", "ROLLBRIDGE.Notice.Connected", { data: { table: this.table, role } });
    } else if (status === "refused") {
      this.notify("error", "ROLLBRIDGE.Notice.Refused", { permanent: true });
    } else if (status === "waiting" && detail?.attempt === 1) {
      this.notify("warn", "ROLLBRIDGE.Notice.Reconnecting");
    }
    if (this.writer) game.socket?.emit(SOCKET, { type: "status", status, table: this.table });
    Hooks.callAll("rollbridge.status", status, detail);
  }

  #mapping() {
    return chooseMapping(setting("systemMapping"), game.system?.id);
  }

  async #applyActors(views) {
    if (!this.writer) return;
    const mapping = this.#mapping();
    const actors = game.actors?.contents ?? [];
    for (const view of views ?? []) {
      const update = actorUpdate(view, mapping);
      const actor = update ? findActor(view.id, actors) : null;
      if (actor) await actor.update(update);
    }
  }

  async #applySnapshot(welcome) {
    await this.#applyActors(welcome.table?.actors);
  }

  async #handle(event) {
    await this.#applyActors(event.actors);
    const gmPresent = Boolean(game.users.activeGM);
    if (shouldPostCard({ event, writer: this.writer, gmPresent, ownRequests: this.ownRequests })) {
      const welcome = this.connection?.welcome;
      await postCard(event, { locale: welcome?.locale ?? null, role: welcome?.role ?? null });
    }
    Hooks.callAll("rollbridge.event", event);
  }

  async #saveCursor(cursor) {
    if (!this.writer) return;
    await game.settings.set(MODULE_ID, "cursor", { table: this.table, ...cursor });
  }

  onSocket(message) {
    if (message?.type === "status") this.gmStatus = message.status;
  }
}
