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

import { flagUndoneByRestore, missedSinceRestore } from "./restored.mjs";
import { flagUndone, noteUndone } from "./undone.mjs";
import { localizeRenderedCards, postApprovalCard, postCard, setRulesetActions } from "./chat.mjs";
import { gmRecord, setting } from "./settings.mjs";
import { addMarks, markKey, readMarks, writeMarks } from "./marks.mjs";
import { PlayersViews } from "../core/playersviews.mjs";
import { Connection } from "../client/connection.mjs";
import { CONNECTION_LABELS, labelOf, ROLE_LABELS } from "../client/i18n.mjs";
import {
  DIALECT, errorFromReply, localeNotice, noticeData, noticeText, resolveMessage, RollbridgeError, ROLL_MODES,
  namingRequestId, rollMessage, shownError, userRequestId,
} from "../core/protocol.mjs";
import {
  cardAudience, refusesRequesterSees, requesterCard, RollModeNotes, SECRET_MODES, withoutRequesterSees,
} from "../core/rollmode.mjs";
import { applyRequestId, buttonRequest, UndoTracker } from "../core/buttons.mjs";
import { hookCards } from "../core/hooks.mjs";
import { approvalPosted, Approvals, rejectionReason, settledBy, welcomeSettled } from "../core/approvals.mjs";
import { withOutcome } from "../core/outcomes.mjs";
import { validReason } from "../core/rejection.mjs";
import { heldKey, HeldRequests, logMovedOn, notRemembered, refusedForNow, repeatOf, repeatUnknown, tokenMark } from "../core/held.mjs";
import { askGM } from "./relay.mjs";
import { authoredByGM, followUndoButtons, redrawSettled, redrawUndoButtons } from "./buttons.mjs";
import { oddsMessage, oddsResult } from "../core/odds.mjs";
import {
  ActorViews,
  actorUpdate,
  blindLeftovers,
  chosenLeftovers,
  cardEvent,
  cardPosted,
  cardTrusted,
  chooseMapping,
  connectPlan,
  EventCache,
  findActor,
  flagEpochs,
  isOnTable,
  mappingChosen,
  mappingsById,
  MODULE_ID,
  playersActors,
  publicFlags,
  rollbridgeIdOf,
  shouldPostCard,
  STATUS_PATHS,
  statusChanges,
  tableIdFor,
} from "../core/state.mjs";
import { foundryActors, speakerActor } from "./actors.mjs";
import { writeActors } from "./writes.mjs";
import { checkServerUrl, redact } from "../client/url.mjs";

const SOCKET = `module.${MODULE_ID}`;
/** What the GM's undo and redo take, as a string: when it changes, some card's Undo or Redo moves. */
const undoTargets = (tracker) => `${tracker.latestUndo()} ${tracker.latestRedo()}`;
/** The notice of a GM whose client does not connect: another GM is the active GM. */
const NOT_ACTIVE_GM = "ROLLBRIDGE.Notice.NotActiveGM";
/** How long the GM's client waits for the server to give it a card's event (a relayed apply). */
export const READ_EVENT_MS = 8000;
/** The most times one read of the NPCs' players' view (#readPlayersView) connects again
 * after its connection was lost or its hello refused for now (`busy`, `rate_limited`:
 * a refusal that can pass), and the most times a page asks again for an NPC still
 * withheld at its connection's recovered resumes (#askWithheld): never a loop on a
 * server that keeps refusing. */
export const PLAYERS_READS = 3;
/** Hello refusals after which a read of the players' view connects again (the
 * Connection waits their `retry_after`, or its backoff): they can pass. Any other
 * (`too_many_connections`: the reader is one connection too many; a refused token)
 * ends it. */
const READ_AGAIN = new Set(["busy", "rate_limited"]);
/** The longest a read of the players' view waits on a `rate_limited` hello's
 * `retry_after` (the Connection's own wait, HELLO_WAIT_CAP_MS at most): a longer one
 * (the wrong-token throttle's minute and more) ends the read, its NPCs withheld until
 * their next event or the next recovered resume (#askWithheld) — no connection held
 * open-ended for a read. Within it, a nudge (the network back) does not cut the wait. */
export const PLAYERS_WAIT_MS = 30_000;


/** The Actor#update data that drops the `mapped` mark (and a `mappedAt`) a module from
 * before 7 December 2026, night, wrote into `flags` (the GM's record keeps marks now). */
function legacyUnmarked(flags) {
  const data = {};
  for (const name of ["mapped", "mappedAt"]) {
    if (name in (flags ?? {})) data[`flags.${MODULE_ID}.-=${name}`] = null;
  }
  return data;
}

/** Whether a user who is not a GM owns `actor` (OWNER, as Foundry's Actor#hasPlayerOwner
 * tells): that user may write its flags. */
function ownedByPlayer(actor) {
  return (game.users?.contents ?? []).some((user) => !user.isGM && Boolean(actor?.testUserPermission?.(user, 3)));
}

/** The GM client's own failures before the server answered a request (no connection,
 * a connection stopped or refused, a request too large): a relayed apply failing so
 * is sent its player as the key and its data, which the player's client words in the
 * player's language (#applied); no other key is read from the socket. */
const GM_SIDE_KEYS = new Set([
  "ROLLBRIDGE.Notice.NotConnected", "ROLLBRIDGE.Error.ConnectionStopped", "ROLLBRIDGE.Error.ConnectionRefused",
  "ROLLBRIDGE.Error.StoppedUnanswered", "ROLLBRIDGE.Error.RefusedUnanswered", "ROLLBRIDGE.Error.RequestTooLarge",
]);

/** A GM-side failure's data as the socket carries it: its words' numbers and ids only. */
function gmSideData(data) {
  const plain = {};
  for (const name of ["id", "size", "limit"]) {
    const value = data?.[name];
    if (typeof value === "string" || Number.isFinite(value)) plain[name] = value;
  }
  return plain;
}

/** A GM-side failure in English, as a player's client older than its key shows it (the
 * connection's errors carry their English words; "not connected" is worded in the GM's
 * language where it is thrown, so its English is here). */
function gmSideEnglish(error) {
  if (error.key === "ROLLBRIDGE.Notice.NotConnected") return "not connected to a rollbridge table";
  return String(error.message ?? "");
}

/** The browser's `localStorage`, where the held requests are kept for a reload (core/held.mjs);
 * null where there is none, or the browser refuses it (storage turned off). */
function webStorage() {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null;
  }
}

/** The browser's Web Locks (`navigator.locks`), which order the tabs of one browser
 * acting on the held requests (core/held.mjs); null where there are none (an older
 * browser, a page that is not a secure context: plain HTTP to another host than
 * localhost). */
function webLocks() {
  try {
    return globalThis.navigator?.locks ?? null;
  } catch {
    return null;
  }
}

/** The page's window, whose `storage` event tells of another tab's write (in a browser
 * globalThis is the window), or null where it has no events. */
function pageWindow() {
  const page = globalThis.window ?? globalThis;
  return typeof page?.addEventListener === "function" ? page : null;
}

/**
 * What every connection of this module opens with (Connection's options): the
 * server's `url`, the `table`, the `token` and where to resume (`cursor`, null: a
 * snapshot), this user's language, the Foundry dialect, `fvtt` request ids, and the
 * client's name — Foundry's and the module's versions, with `suffix` (" read": a
 * connection that reads once).
 */
function openedWith(url, table, token, cursor, suffix = "") {
  const versions = `foundry/${game.release?.version ?? "?"} rollbridge/${game.modules.get(MODULE_ID)?.version ?? "?"}`;
  return { url, table, token, cursor, locale: game.i18n.lang, dialect: DIALECT, idPrefix: "fvtt", client: versions + suffix };
}

export class FoundryClient {
  constructor() {
    this.connection = null;
    /** @type {Connection | null} the connection reading the NPCs' players' view once (#readPlayersView) */
    this.playersReader = null;
    this.playersTimer = null;
    /** the epoch and the NPCs' ids the reader reads for */
    this.playersEpoch = null;
    this.playersIds = new Set();
    /** @type {Map<number, Set<string>>} NPCs asked for under another epoch while the
     * reader was open, by epoch: read for once it ends */
    this.playersLater = new Map();
    /** @type {Map<string, number>} how often this page asked for an NPC ("epoch:id")
     * withheld at its recovered resumes (#askWithheld; PLAYERS_READS at most) */
    this.withheldAsked = new Map();
    /** @type {Set<string>} the NPCs ("epoch:id") a read answered (a snapshot came, with
     * their players' view or without: an older server's) or a refused token ended: not
     * asked for again at a recovered resume */
    this.withheldSettled = new Set();
    this.plan = null;
    /** @type {{epoch: number, seq: number} | null} where the writer's client left the
     * table (its saved cursor, a world setting), until the page's first welcome reads it */
    this.leftAt = null;
    this.check = null;
    this.table = null;
    this.welcome = null;
    this.ownRequests = new Set();
    // the roll mode and roller of requests (this client's, and players' notes to the GM)
    this.modes = new RollModeNotes();
    // the table's undo and redo stacks as this client's events show them (card buttons)
    this.undo = new UndoTracker();
    /** The writer's flags of undone cards not written yet: the seq an undo or redo
     * moved → the undo's seq (null: a redo's), until its event is handled
     * (foundry/undone.mjs); the buttons' redraw leaves those cards to the flag's. */
    this.undoneFlags = new Map();
    // the requests waiting for the GM's approval, and how the others were settled
    // (their cards: Approve and Reject, or the line saying how): the welcome's, then
    // each event's
    this.approvals = new Approvals();
    // this user's GM and self rolls the table holds for the GM's approval: id →
    // {message: the request as sent, epoch: the epoch it was held in, floor: the seq
    // seen before it was sent}, asked again (the same id) until the server's reply
    // carries the roller's view (#askHeld); kept for a reload (core/held.mjs)
    this.held = new HeldRequests();
    this.asking = null;
    // the connection whose server refused `repeat` (an older server): asked as before
    this.repeatRefusedBy = null;
    // the marks of the requests made while the connection was not up: each is given
    // the epoch and seq of the welcome it waits for (#floorOf)
    this.welcomeWaiters = [];
    // the mark of the join token this client connects with (core/held.mjs tokenMark)
    this.tokenMark = null;
    // this user's requests whose rejection it was told of (told once)
    this.rejectionsTold = new Set();
    this.queue = Promise.resolve();
    this.lastNotice = null;
    this.gmStatus = null;
    this.localeNoted = false;
    // false once the server refused `requester_sees` (older than it): not asked again
    this.requesterSees = true;
    // the cards' events as this client's own connection received them (its
    // user's language, its audience's view), to draw cards again in it
    this.events = new EventCache();
    // the latest view of each actor as this client's connection received it, drawn
    // by the panels (core/state.mjs ActorViews): the GM's full view on the GM's client
    this.views = new ActorViews();
    /** the players' view of the table's actors, kept whole while nothing was missed
     * (core/playersviews.mjs): a link's NPC written from it, no reading connection */
    this.playersViews = new PlayersViews();
    // the table's encounter as the server last said ({order, round, turn, current},
    // null: none runs; undefined: not known yet): the welcome's, then each event's
    this.encounter = undefined;
    // the latest cursor save asked for: only it is written (#saveCursor)
    this.cursorTicket = 0;
    // reads of a card's event from the server (a relayed apply), one at a time
    this.reads = Promise.resolve();
    // who waits for it to be known (encounterKnown): released by the welcome, or
    // when this client does not connect
    this.encounterWaiters = [];
  }

  /**
   * Resolves once the table's encounter is known (the welcome came), at once when
   * it is; after `ms` regardless, or when this client does not connect (then
   * `encounter` may still be undefined).
   */
  encounterKnown(ms = 15000) {
    if (this.encounter !== undefined) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.encounterWaiters.push(done);
    });
  }

  #releaseEncounterWaiters() {
    const waiters = this.encounterWaiters;
    this.encounterWaiters = [];
    for (const done of waiters) done();
  }

  /** Read the settings and (re)connect as the rules say. */
  start() {
    this.stop();
    this.localeNoted = false;
    this.welcomeWaiters = []; // a new connection: its welcome is still to come
    this.requesterSees = true; // another server, or the same one upgraded
    this.encounter = undefined;
    const url = setting("serverUrl");
    const token = setting("token");
    // the held requests sent with another token are not asked again (#forgetHeld)
    this.tokenMark = tokenMark(token);
    const user = game.user;
    this.plan = connectPlan({ user, activeGM: game.users.activeGM, token, url });
    if (!this.plan.connect) {
      // players who do not use rollbridge are not nagged: only GMs get a notice
      const key = { "no-token": "ROLLBRIDGE.Notice.NoToken", "not-active-gm": NOT_ACTIVE_GM }[this.plan.reason];
      if (key && url && user?.isGM) this.notify("info", key);
      else if (key && url) console.info(`rollbridge | ${game.i18n.localize(key)}`);
      this.#releaseEncounterWaiters();
      // a GM no longer the active GM: the cards it drew lose the GM buttons it cannot send
      if (user?.isGM) this.#enqueue(() => redrawUndoButtons(this));
      return;
    }
    this.check = checkServerUrl(url, { pageProtocol: globalThis.location?.protocol ?? "https:", i18n: game.i18n });
    if (!this.check.ok) {
      const refused = /** @type {any} */ (this.check);
      // its words with the URL as the GM typed it, as text (noticeData): never markup
      this.notify("error", refused.key, { data: refused.data, permanent: true });
      this.#releaseEncounterWaiters();
      return;
    }
    if (this.check.warning) this.notify("warn", this.check.warning, { raw: true });
    if (this.check.table !== this.table) { // another table's requests (or the page's first start)
      this.approvals.reset();
      // this user's held requests of this table, as a reload left them
      // (shared with this browser's other tabs of the table: core/held.mjs)
      this.held.open({
        storage: webStorage(), key: heldKey({ world: game.world?.id, user: game.user?.id }), table: this.check.table,
        locks: webLocks(), window: pageWindow(),
      });
    }
    this.table = this.check.table;
    const saved = this.plan.writer ? setting("cursor") : null;
    const cursor = saved?.table === this.table ? { epoch: saved.epoch, seq: saved.seq } : null;
    // where the writer's client left the table (a world setting: no player writes it),
    // the GM's view a reset of a chosen mapping's leftovers reads (#resetMappedAway)
    this.leftAt = cursor;
    this.connection = new Connection({
      ...openedWith(this.check.url, this.table, token, cursor),
      onWelcome: (welcome) => {
        // the requests made while the connection was not up go out after this welcome
        for (const mark of this.welcomeWaiters.splice(0)) Object.assign(mark, { epoch: welcome.epoch, seq: welcome.seq });
        // the ruleset's actions in this user's language: their labels title the cards
        setRulesetActions(welcome.ruleset?.actions);
        // a resume the server recovered (a reload from the saved cursor) has no
        // snapshot, but the GM's welcome still says what undo and redo take: the
        // missed events after it are in it already (their seqs are up to its seq)
        if (welcome.table?.undo_redo) this.undo.reset(welcome.table.undo_redo);
        // the table's actors as they are now: the panels' live views (a resume's
        // replayed events are older, and are not taken); the flags of another epoch
        // the actors hold now are of an earlier one, whatever its number
        this.views.reset(welcome.table?.actors, welcome.epoch, flagEpochs(foundryActors()));
        this.playersViews.welcome(welcome);
        // an older module's flags (the GM's view of an NPC) go at the writer's connection
        if (this.writer) this.#enqueue(() => this.#replaceOldFlags(welcome));
        // an NPC still withheld at a recovered resume (a reload cut the read of its
        // players' view): read for now, not left until its next event
        if (this.writer && welcome.resume?.recovered === true) this.#enqueue(() => this.#askWithheld(welcome));
        // a mapping chosen by hand switched back to `auto` while this client was away:
        // what it wrote of the NPCs is reset now (as mappingChanged does when connected;
        // after a snapshot done already, before its writes, which drop the marks)
        if (this.writer) this.#enqueue(() => this.#resetMappedAway(welcome));
        // under a mapping chosen by hand: what a module from before the `mapped` mark wrote
        // is marked now, so a switch to `auto` while this client is away is found too
        if (this.writer) this.#enqueue(() => this.#markChosenWrites(welcome));
        // the requests waiting as of the welcome (a reload's, a reconnect's): a card of one
        // settled meanwhile loses Approve and Reject, one still waiting gets them
        // and, after a snapshot, how the server's log says requests were settled: kept in
        // the GM's record as an event's outcome would be
        const settled = welcomeSettled(welcome);
        this.approvals.welcome(welcome.table, welcome.epoch, settled);
        if (this.writer && settled.length) this.#enqueue(() => this.#keepSettled(welcome.epoch, settled));
        this.#forgetHeld(welcome.epoch);
        // what was held may have been settled while this client was away (a reload, an
        // outage): asked again now, not only at the next placeholder
        if (this.held.size) this.#askHeld();
        // a snapshot of a new epoch (a restored backup): the cards of the events it undid
        // are flagged so, on every client (foundry/restored.mjs)
        if (this.writer && welcome.resume?.recovered !== true) this.#enqueue(() => flagUndoneByRestore(welcome, this.table ?? null));
        // and the cards of the restored epoch's events that happened while no GM's
        // client posted them (the GM away), read from the server, before the live ones:
        // a request still waiting gets its approval card there, at its event
        if (this.writer && welcome.resume?.recovered !== true) this.#enqueue(() => this.#postMissedSinceRestore(welcome));
        // a request that began waiting while this client was away, whose event no resume
        // brings (a snapshot, a first connection) nor the backfill above: its card is
        // posted from the welcome
        if (welcome.resume?.recovered !== true) this.#enqueue(() => this.#postWaitingCards(welcome));
        this.#welcomed(welcome);
        // the cards Foundry drew before the welcome (a reload) get their Undo or Redo,
        // Approve and Reject now
        this.#enqueue(() => redrawUndoButtons(this));
      },
      onSnapshot: (welcome) => {
        // the table as it stands: the GM's says what undo and redo take (a player's nothing)
        this.undo.reset(welcome.table?.undo_redo);
        if (this.writer) this.#enqueue(() => this.#resetMappedAway(welcome));
        this.#enqueue(() => this.#applySnapshot(welcome));
      },
      onEvent: (event, info) => {
        // a GM-only event (a placeholder here) may be a held request's, approved
        if (event.kind === "hidden" && this.held.size) this.#askHeld();
        const targets = undoTargets(this.undo);
        this.undo.see(event);
        if (this.writer) noteUndone(this.undoneFlags, event);
        // a pending request approved (its event names it) or rejected, here or elsewhere:
        // its card, drawn here, loses Approve and Reject (after the event's own card)
        const settled = this.approvals.see(event, { replayed: Boolean(info?.replayed) });
        // the welcome's table is the latest: a replayed event's encounter is an older one
        if (!info?.replayed && event.table_after && "encounter" in event.table_after) {
          this.encounter = event.table_after.encounter ?? null;
        }
        this.#keep(event);
        if (!info?.replayed) this.views.see(event.actors, event.epoch);
        this.playersViews.see(event);
        // a settings change at a table of too many NPCs to carry their new views: this
        // connection's views of them are read again (docs/foundry.md)
        if (!info?.replayed && event.reread === true) this.#rereadViews();
        this.#enqueue(() => this.#handle(event, info));
        // what undo and redo take moved: the cards it moved from and to are drawn again,
        // after the event's own card (drawn with the buttons it has now)
        if (undoTargets(this.undo) !== targets) this.#enqueue(() => followUndoButtons(this));
        if (settled.length) this.#enqueue(() => redrawSettled(this, settled));
      },
      onCursor: (c) => {
        // saved after the events before it are handled; a save a later one supersedes
        // (a burst of events, a resume's missed ones) is not written
        const ticket = ++this.cursorTicket;
        this.#enqueue(() => (ticket === this.cursorTicket ? this.#saveCursor(c) : undefined));
      },
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
    globalThis.clearTimeout(this.playersTimer);
    this.playersReader?.stop();
    this.playersReader = null;
    this.playersLater.clear();
    this.views.clear(); // without a connection the panels draw the flags
    this.playersViews.clear();
  }

  /** The network or the page came back: reconnect now, or ping now (foundry/network.mjs). */
  nudge() {
    this.connection?.nudge();
    // a read of the NPCs' players' view waiting to connect again (a `rate_limited`
    // refusal's retry_after the Connection waits out whatever the nudge)
    this.playersReader?.nudge();
  }

  get writer() {
    return Boolean(this.plan?.writer);
  }

  status() {
    const c = this.connection;
    return {
      status: c?.status ?? "off",
      reason: this.plan?.reason ?? (this.check && !this.check.ok ? /** @type {any} */ (this.check).reason : null),
      role: c?.welcome?.role ?? null,
      table: this.table,
      writer: this.writer,
      cursor: c?.cursor ?? null,
      stats: c ? { ...c.stats } : null,
      gm: this.gmStatus,
    };
  }

  /**
   * Show a notification: the words of `key` (lang/*.json) with `data`, each value as
   * text (noticeData: escaped here, so callers pass them as they are), or with `raw`
   * a finished text not the module's own (the server's words), escaped whole. Foundry
   * gets the finished text alone, no `format`, `localize` or `escape` (v13 escapes only
   * `format`'s values, and its cleaning leaves escaped text as text): escaped once.
   * @param {string} level
   * @param {string} key
   * @param {{raw?: boolean, permanent?: boolean, data?: object}} [options]
   */
  notify(level, key, { raw = false, permanent = false, data } = {}) {
    const text = raw ? noticeText(key) : data ? game.i18n.format(key, noticeData(data)) : game.i18n.localize(key);
    if (text === this.lastNotice) return;
    this.lastNotice = text;
    ui.notifications?.[level]?.(`rollbridge: ${text}`, { permanent });
  }

  // -- requests --------------------------------------------------------------

  /**
   * A request a macro sends (`api.request`): its own id, if it gave one, sent naming
   * this user (core/protocol.mjs namingRequestId), as the module's own ids do, so the
   * user's card of it posted while no GM is active counts as its card. The reply's
   * `id` is the macro's own, as the protocol promises (every reply names its request's
   * id); the event of the request names the id sent (its `request`, `api.sentId`).
   * @param {any} message
   */
  async ask(message) {
    const own = message?.id;
    const id = typeof own === "string" ? namingRequestId(own, game.user?.id) : own;
    if (id === own) return this.request(message);
    const reply = await this.request({ ...message, id });
    return reply && typeof reply === "object" && reply.id === id ? { ...reply, id: own } : reply;
  }

  async request(message) {
    if (!this.connection) {
      // no code (not the server's answer); its key words it in each reader's language:
      // a GM who is not the active GM reads why its client has no connection
      const key = this.#notConnectedKey();
      throw Object.assign(new Error(game.i18n.localize(key)), { key, data: {} });
    }
    // the id names this user: a player's card of the request is trusted only as its author's (cardTrusted)
    const id = message.id ?? userRequestId(game.user?.id);
    this.ownRequests.add(id);
    if (message.rollMode) await this.#noteMode(id, message.rollMode);
    const sent = { ...message, id };
    // where the table stood before the request went out (#floorOf)
    const seen = this.#seenNow();
    const reply = await this.#send(sent);
    // a player's request the table holds for the GM's approval: said, not silent
    if (reply?.status === "pending") {
      ui.notifications?.info?.(`rollbridge: ${game.i18n.localize("ROLLBRIDGE.Notice.AwaitingApproval")}`);
      const epoch = this.connection?.welcome?.epoch;
      if (sent.requester_sees && this.requesterSees && Number.isSafeInteger(epoch)) {
        this.held.set(id, { message: sent, epoch, floor: this.#floorOf(seen, epoch), token: this.tokenMark });
      }
    }
    await this.#postRequesterCard(reply);
    return reply;
  }

  /** Send a request; a server older than `requester_sees` refuses the field (its
   * Foundry dialect does not know it), so it goes again without it, as secret as
   * before, and is not asked for again on this connection. */
  async #send(message) {
    const asked = Boolean(message.requester_sees);
    const outgoing = asked && !this.requesterSees ? withoutRequesterSees(message) : message;
    try {
      return await this.connection.request(outgoing);
    } catch (error) {
      if (outgoing === message && asked && refusesRequesterSees(error)) {
        this.requesterSees = false;
        console.info("rollbridge | the server does not take requester_sees: a GM or self roll of a resolution is shown to its roller blind");
        return this.connection.request(withoutRequesterSees(message));
      }
      throw error;
    }
  }

  /**
   * Where the table stands as a request is made, {epoch, seq}: connected, the seq this
   * connection has seen (the request goes out now). Not connected (the page still
   * connecting, the connection down), the request waits for the next welcome and goes
   * out after it, so the mark is given that welcome's epoch and seq when it comes: the
   * seq seen before the outage (or none, 0) may be one a table that went on past its
   * retained log meanwhile no longer reaches, and the request, seconds old, would be
   * dropped as held too long ago.
   * @returns {{epoch: number | null, seq: number | null}}
   */
  #seenNow() {
    const cursor = this.connection?.connected ? this.connection.cursor : null;
    if (cursor) return { epoch: cursor.epoch, seq: cursor.seq };
    const mark = { epoch: null, seq: null };
    this.welcomeWaiters.push(mark);
    return mark;
  }

  /**
   * The floor of a request held in `epoch` (core/held.mjs): a seq its reply is stored
   * after, where the table stood before it went out (#seenNow). Seen in another epoch
   * than the one it was held in (the table moved meanwhile), that seq says nothing of
   * it: 0, which at worst drops it as held too long ago.
   * @param {{epoch: number | null, seq: number | null}} seen
   * @param {number} epoch
   */
  #floorOf(seen, epoch) {
    return seen.epoch === epoch && Number.isSafeInteger(seen.seq) ? seen.seq : 0;
  }

  /** The card of this user's own GM or self roll, when the reply carries the
   * players' view of its secret event (core/rollmode.mjs requesterCard):
   * whispered to this user alone. The event's own frame reached this client as
   * a `hidden` placeholder, which posts nothing, so the card is posted once. */
  async #postRequesterCard(reply, heldMode = undefined) {
    // a request held since before a reload: its mode as it was sent
    const card = requesterCard({ reply, user: game.user?.id, mode: this.modes.get(reply?.id)?.mode ?? heldMode });
    if (!card) return;
    const welcome = this.connection?.welcome;
    await this.#enqueue(() => postCard(card.event, {
      locale: welcome?.locale ?? null, role: welcome?.role ?? null, audience: card.audience, requester: true,
    }));
  }

  /**
   * A `draw` for the server's dice fulfillment (core/fulfillment.mjs): sent only
   * on a live connection — a roll does not wait for a reconnect, it takes
   * Foundry's own dice — and never queued.
   */
  draw(message) {
    if (!this.connection?.connected) {
      const key = this.#notConnectedKey();
      const english = key === NOT_ACTIVE_GM ? "another GM is the active GM" : "not connected to a rollbridge table";
      return Promise.reject(new RollbridgeError("not_connected", english, undefined, { key }));
    }
    return this.connection.request(message);
  }

  /** Why this client has no connection to send on, as a key of lang/*.json. */
  #notConnectedKey() {
    return !this.connection && this.plan?.reason === "not-active-gm" ? NOT_ACTIVE_GM : "ROLLBRIDGE.Notice.NotConnected";
  }

  /** Drop a draw that timed out (it is not sent again after a reconnect). */
  forget(id) {
    this.connection?.forget(id);
  }

  /**
   * The rollbridge actor a Foundry speaker or actor stands for. An actor given
   * explicitly is taken at its word (its link, else its id; an unlinked
   * token's actor its token's UUID); the speaker (the selected token, its
   * synthetic actor when unlinked) counts only when its actor is linked to the
   * table, so a plain roll with some other token selected still works.
   * @param {{actor?: any, speaker?: any}} [from]
   */
  actorFor({ actor, speaker } = {}) {
    if (typeof actor === "string") return actor;
    if (actor) return rollbridgeIdOf(actor);
    const fvtt = speakerActor(speaker);
    return fvtt && isOnTable(fvtt) ? rollbridgeIdOf(fvtt) : null;
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

  /**
   * The odds of an action (for the speaker's actor at the user's targets, as
   * resolve takes them) or of a dice formula, before rolling: {kind: "odds",
   * odds} or {kind: "hidden", actor}; null when the server has none to give
   * (no odds for that action, a server older than odds, any other refusal).
   */
  async odds(actionOrFormula, options = {}) {
    const speaker = options.speaker ?? ChatMessage.getSpeaker();
    const message = options.formula || options.isFormula
      ? oddsMessage({ formula: options.formula ?? actionOrFormula })
      : oddsMessage({
        action: actionOrFormula,
        actor: this.actorFor({ actor: options.actor, speaker }),
        targets: this.targetsFor(options.targets),
        params: options.params ?? {},
        assume: options.assume,
      });
    try {
      return oddsResult({ reply: await this.request(message) });
    } catch (error) {
      if (!error?.code) throw error; // not connected: not the server's answer
      console.info(`rollbridge | no odds: ${error.code}`);
      return oddsResult({ error });
    }
  }

  /** Put a Foundry actor on the table (GM): its rollbridge id is its Foundry id,
   * an unlinked token's actor's its token's UUID (a separate actor per token). */
  async addActor(actor, sheet, { controllers = [] } = {}) {
    const id = tableIdFor(actor);
    const reply = await this.request({
      type: "actor.create",
      actor: { id, name: actor.name, sheet, controllers },
    });
    // its state comes with the `actor.created` event (found by its id: findActor)
    await actor.update({ [`flags.${MODULE_ID}.actorId`]: id });
    return reply.event ?? reply;
  }

  /** Link a Foundry actor to an existing rollbridge actor (a synthetic actor's
   * link goes in its token's delta, as every update of it does). The writer (the
   * active GM's client) then writes its state at once (#writeLinked), rather than at
   * the actor's next change; with its connection down the link is made and the call
   * returns, the state written once the connection is back (its read waits for it).
   * Another GM's client (no connection of its own) hands it to the writer (relay.mjs
   * askGM, `linked`, on the module's socket: whichever GM's client is the writer when
   * it comes), which writes it at once; with no active GM, at its next change. */
  async linkActor(actor, rollbridgeId) {
    await actor.update({ [`flags.${MODULE_ID}.actorId`]: rollbridgeId });
    if (!this.writer && game.user?.isGM) {
      try {
        await askGM({ type: "linked", id: rollbridgeId });
      } catch (error) {
        console.warn(`rollbridge | the active GM's client was not told of the link: ${redact(error?.message ?? error)}`);
      }
      return;
    }
    if (!this.writer || !this.connection?.welcome) return;
    const written = this.#enqueue(() => this.#writeLinked(rollbridgeId));
    if (this.connection.connected) await written;
  }

  /**
   * The state of the table's actor `id`, just linked to a Foundry actor, written as an
   * event's would be — a player's character in full, an NPC withheld, a mapping chosen
   * by hand its GM's values — then an NPC's players' view read once from a snapshot
   * (#readPlayersView: a GM's `state` is the GM's view), which fills its flags. The
   * GM's view is the one this connection holds (ActorViews: the welcome's table, then
   * each event's, as received): nothing is read for it. Only without one (the
   * connection down, or it never saw that actor) is the table read (`state`) — while
   * the connection is down the read waits for it. Nothing when the table has no such
   * actor or cannot be read (the connection refused or stopped: its next event writes it).
   * @param {string} id
   */
  async #writeLinked(id) {
    const held = this.connection?.connected ? this.views.get(id) : null;
    if (held?.removed) return;
    const { view, epoch, seq = null } = held?.view ? held : await this.#readLinked(id);
    if (!view) return;
    // its players' view kept from a read or the events since (PlayersViews), of the
    // table as the GM's view was taken (the connection's latest, or a `state` of the
    // same seq): no reading connection for it; else withheld until the read answers
    const current = held?.view ? true : seq !== null && seq === this.playersViews.seq;
    const known = current ? this.playersViews.get(id, epoch) : null;
    await this.#applyActors([view], known ? new Map([[id, known]]) : new Map(), epoch);
    const withheld = foundryActors().some((actor) => actor.flags?.[MODULE_ID]?.actorId === id && actor.flags[MODULE_ID].withheld === true);
    if (withheld) this.#readPlayersView(epoch, new Set([id]));
  }

  /** The GM's view of the table's actor `id` read with `state` (#writeLinked without a
   * view of its connection's), and its epoch; `{view: null}` when the table has none or
   * cannot be read. */
  async #readLinked(id) {
    let table = null;
    try {
      table = (await this.connection?.request({ type: "state" }))?.table ?? null;
    } catch (error) {
      console.warn(`rollbridge | the table could not be read for ${id}: ${redact(error?.message ?? error)}`);
    }
    const view = (table?.actors ?? []).find((candidate) => candidate?.id === id) ?? null;
    return { view, epoch: table?.epoch ?? this.connection?.welcome?.epoch ?? null, seq: Number.isInteger(table?.seq) ? table.seq : null };
  }

  /** Keep the roll mode of this user's request; a player's client tells the GM's
   * client first (relay.mjs: a v13 query, else the socket), which posts the card
   * (core/rollmode.mjs). */
  async #noteMode(request, mode) {
    const note = { user: game.user.id, mode, gm: Boolean(game.user.isGM) };
    this.modes.note(request, note);
    if (this.writer || !SECRET_MODES.includes(mode)) return;
    try {
      // v13: a query, answered before the request goes out; v12: the socket
      await askGM({ type: "rollMode", request, mode, gm: note.gm });
    } catch (error) {
      console.warn(`rollbridge | the GM's client did not get the roll mode: ${error?.message ?? error}`);
    }
  }

  /**
   * The GM's client: a player's client asks (relay.mjs, v13 query or the socket).
   * `sender`: the user Foundry says sent it (the socket), null when Foundry does
   * not say (a v13 query); a `user` the message names is only the sender's word.
   * `rollMode`: the roll mode of the player's coming request. `linked`: a GM's
   * client that is not the writer linked an actor (linkActor) to the table's actor
   * `id`, written at once here (#writeLinked) — only from a GM the socket vouches for. `apply`: a card's
   * follow-up for the targets the player selected — only from a sender Foundry
   * vouches for, rebuilt from the GM's own event of the card (its action, params
   * and acting actor: this connection's, or read from the server after a reload),
   * and only when the sender owns every target (the module's own rule).
   * Returns what the query answers (null: refused).
   */
  async relayed(message, { sender = null } = {}) {
    if (!this.writer || !message) return null;
    if (message.type === "apply") {
      const outcome = await this.applyRelayed(message, { sender });
      return outcome?.ok ? { seq: outcome.seq } : null;
    }
    const claimed = message.user ?? null;
    if (sender && claimed && claimed !== sender) return this.#refuse(message, sender, "names another user");
    const user = game.users.get(sender ?? claimed);
    if (!user) return null;
    if (message.type === "rollMode") {
      if (user.isGM) return null;
      this.modes.note(message.request, { user: user.id, mode: message.mode, gm: false });
      return { noted: true };
    }
    // another GM linked an actor (linkActor): its state written now, from the table as
    // the server has it — from a GM Foundry vouches for (the socket's sender), never on
    // the word of a query (no sender: a player's could name a GM); it writes nothing
    // but the server's view
    if (message.type === "linked") {
      if (!sender || !user.isGM || typeof message.id !== "string" || !message.id) return null;
      this.#enqueue(() => this.#writeLinked(message.id));
      return { linked: true };
    }
    return null;
  }

  /**
   * The GM's client: a player's relayed apply (see relayed). Resolves with null
   * when it is not this client's to answer (not the writer; no sender Foundry
   * vouches for; a message naming another user than its sender), {ok: true, seq}
   * when the follow-up was done, {ok: false, key} when this client refused it
   * (key: the player's notice); rejects with the server's refusal.
   */
  async applyRelayed(message, { sender = null } = {}) {
    if (!this.writer || message?.type !== "apply") return null;
    const claimed = message.user ?? null;
    // GM authority: never on the sender's word about who it is
    if (!sender) return this.#refuse(message, claimed, "no sender Foundry vouches for");
    if (claimed && claimed !== sender) return this.#refuse(message, sender, "names another user");
    const user = game.users.get(sender);
    if (!user) return null;
    const ref = message.card ?? {};
    const received = await this.#cardEventOf(ref);
    const event = received ? cardEvent(received) : null;
    const apply = event?.kind === "resolution" ? event.data?.apply : null;
    if (!apply?.action) {
      this.#refuse(message, sender, "no such card with a follow-up here");
      return { ok: false, key: "ROLLBRIDGE.Button.ApplyNoCard" };
    }
    const targets = Array.isArray(message.targets) ? message.targets : [];
    const actors = foundryActors();
    const owned = (id) => typeof id === "string" && Boolean(findActor(id, actors)?.testUserPermission?.(user, 3));
    if (!targets.length || !targets.every(owned)) {
      this.#refuse(message, sender, "targets not all the sender's");
      return { ok: false, key: "ROLLBRIDGE.Button.ApplyNotOwner" };
    }
    const request = buttonRequest("apply", { card: { apply, actor: event.data?.actor ?? null }, targets });
    // a repeated press is the same request: the server does it once (core/buttons.mjs)
    request.id = applyRequestId({ table: ref.table ?? null, epoch: ref.epoch, seq: ref.seq, user: sender, targets });
    const reply = await this.request(request);
    return { ok: true, seq: reply?.seq ?? reply?.event?.seq ?? null };
  }

  /** The GM's client: tell a relayed apply's sender that it was not applied (the
   * module's socket reaches every client; only `to`'s shows it). */
  #answerApply(message, sender, outcome) {
    if (!sender || !outcome || outcome.ok) return;
    const card = message?.card ?? {};
    game.socket?.emit(SOCKET, {
      type: "applied", to: sender, ok: false,
      card: { table: card.table ?? null, epoch: card.epoch ?? null, seq: card.seq ?? null },
      ...(outcome.key ? { key: outcome.key } : {}),
      ...(outcome.error ? { error: outcome.error } : {}),
    });
  }

  /** A player's client: the GM's client's answer to this user's relayed apply. */
  #applied(message, sender) {
    if (message.to !== game.user?.id || message.ok !== false) return;
    if (!game.users.get(sender)?.isGM) return; // only the GM's client answers
    const keys = ["ROLLBRIDGE.Button.ApplyNoCard", "ROLLBRIDGE.Button.ApplyNotOwner"];
    const error = message.error ?? {};
    const gmSide = GM_SIDE_KEYS.has(error.key)
      ? new RollbridgeError(String(error.code ?? "error"), "", undefined, { key: error.key, data: gmSideData(error.data) })
      : null;
    const text = keys.includes(message.key)
      ? game.i18n.localize(message.key)
      : gmSide
        // the GM's client failed before the server answered: its words, in this player's language
        ? game.i18n.format("ROLLBRIDGE.Button.ApplyNotSent", {
          reason: shownError(gmSide, game.i18n, { context: "the GM's client could not send it" }),
        })
        : game.i18n.format("ROLLBRIDGE.Button.ApplyRefused", {
        // the server's message, or (none) the module's words naming the code (errorFromReply)
        reason: shownError(errorFromReply({ code: String(error.code ?? "error"), message: String(error.message ?? "") }), game.i18n, {
          context: "the GM's client could not apply it",
        }),
      });
    ui.notifications?.error?.(`rollbridge: ${text}`);
  }

  /**
   * The GM's event of a card (table, epoch, seq), never the player's word for it:
   * this client's connection's, when it still holds it (one of the last
   * CARD_EVENTS), else read from the server (a card from before this page's
   * reload, or older). Null when neither has it.
   */
  async #cardEventOf(ref) {
    const table = ref?.table ?? null;
    const cached = this.events.get(table, ref?.epoch, ref?.seq);
    if (cached) return cached;
    if (table !== (this.table ?? null) || !Number.isSafeInteger(ref?.epoch) || !Number.isSafeInteger(ref?.seq) || ref.seq < 1) {
      return null;
    }
    // the server resumes only in the table's current epoch, up to its latest seq
    const now = this.connection?.cursor;
    if (!now || ref.epoch !== now.epoch || ref.seq > now.seq) return null;
    // one read at a time: a burst of presses opens no burst of connections
    const read = this.reads.then(() => this.events.get(table, ref.epoch, ref.seq) ?? this.#readEvent(ref.epoch, ref.seq));
    this.reads = read.catch(() => null);
    const event = await read;
    if (event) this.events.add(event);
    return event;
  }

  /**
   * Read one event from the server (docs/protocol.md: a `hello` whose `resume` is
   * the seq before it is answered with the missed events, in order, from it on):
   * a connection of this client's own (its token, the GM's view), closed once the
   * event came, or the welcome says the server cannot give it (another epoch, a
   * snapshot instead of the missed events, a seq the table has not reached), or
   * after READ_EVENT_MS. Resolves with the event or null.
   */
  #readEvent(epoch, seq) {
    const url = this.check?.ok ? this.check.url : null;
    const token = setting("token");
    if (!url || !token || !this.connection) return Promise.resolve(null);
    return new Promise((resolve) => {
      let done = false;
      let reader = null;
      let timer = null;
      const finish = (event) => {
        if (done) return;
        done = true;
        globalThis.clearTimeout(timer);
        resolve(event);
        // after the Connection's own handling of this frame is over
        Promise.resolve().then(() => reader?.stop());
      };
      reader = this.#reader(url, token, { epoch, seq: seq - 1 }, {
        onWelcome: (welcome) => {
          if (welcome.epoch !== epoch || !(welcome.seq >= seq) || welcome.resume?.recovered !== true) finish(null);
        },
        onSnapshot: () => finish(null),
        onEvent: (event) => finish(event.epoch === epoch && event.seq === seq ? event : null),
        onStatus: (status) => {
          if (status === "refused" || status === "waiting") finish(null);
        },
        log: (level, text) => (level === "error" || level === "warn") && console.warn(`rollbridge | reading event ${seq}: ${redact(text, [token])}`),
      });
      timer = globalThis.setTimeout(() => finish(null), READ_EVENT_MS);
      reader.start();
    });
  }

  /**
   * Post the cards the chat lacks of a restored epoch's events that happened while
   * no GM's client posted cards (restored.mjs missedSinceRestore): read from the
   * server as a resume from the first of them (as #readEvent), each posted once as
   * a replayed event's; nothing else of them is taken (the welcome's table is newer).
   * A request the welcome lists as still waiting gets its approval card at its
   * `approval.requested` event (with its seq, among the others), once: the GM acts on
   * it; one settled since gets none (its outcome's event has its card).
   */
  async #postMissedSinceRestore(welcome) {
    const table = this.table ?? null;
    const missed = missedSinceRestore(game.messages?.contents ?? [], { table, epoch: welcome.epoch, seq: welcome.seq, epochs: welcome.epochs }, authoredByGM);
    if (!missed) return;
    const waiting = new Set((Array.isArray(welcome.table?.pending) ? welcome.table.pending : []).map((entry) => entry?.pending));
    for (const event of await this.#readEvents(welcome.epoch, missed.from, missed.to)) {
      this.events.add(event);
      const pending = event.kind === "approval.requested" ? event.data?.pending : null;
      if (typeof pending === "string" && waiting.has(pending) && !this.#approvalPosted(event.epoch, pending)) {
        await postApprovalCard(event);
      }
      if (shouldPostCard({ event, writer: this.writer, gmPresent: true, ownRequests: this.ownRequests })) {
        await this.#postOnce(event, { note: this.modes.get(event.request), replayed: true });
      }
      for (const card of hookCards(event, { role: this.connection?.welcome?.role ?? null })) await this.#postOnce(card, { replayed: true });
    }
  }

  /**
   * Read the events of epoch `epoch` after seq `from` up to `to` from the server (a
   * connection of this client's own resuming from `from`, as #readEvent), closed once
   * they came, or with what came when the server cannot give them all (another epoch,
   * a snapshot) or after READ_EVENT_MS. Resolves with them, in order.
   */
  #readEvents(epoch, from, to) {
    const url = this.check?.ok ? this.check.url : null;
    const token = setting("token");
    if (!url || !token || !this.connection) return Promise.resolve([]);
    return new Promise((resolve) => {
      const events = [];
      let done = false;
      let reader = null;
      let timer = null;
      const finish = () => {
        if (done) return;
        done = true;
        globalThis.clearTimeout(timer);
        resolve(events);
        Promise.resolve().then(() => reader?.stop());
      };
      reader = this.#reader(url, token, { epoch, seq: from }, {
        onWelcome: (welcome) => {
          if (welcome.epoch !== epoch || welcome.resume?.recovered !== true) finish();
        },
        onSnapshot: () => finish(),
        onEvent: (event) => {
          if (event.epoch === epoch && event.seq > from && event.seq <= to) events.push(event);
          if (event.epoch !== epoch || event.seq >= to) finish();
        },
        onStatus: (status) => {
          if (status === "refused" || status === "waiting") finish();
        },
        log: (level, text) => (level === "error" || level === "warn") && console.warn(`rollbridge | reading events ${from + 1}-${to}: ${redact(text, [token])}`),
      });
      timer = globalThis.setTimeout(finish, READ_EVENT_MS);
      reader.start();
    });
  }

  /** A connection of this client's own that reads once (its token, the GM's view; no
   * pings), from `cursor` (null: a snapshot), with `handlers` (Connection's). */
  #reader(url, token, cursor, handlers) {
    return new Connection({
      ...openedWith(url, this.table, token, cursor, " read"),
      pingInterval: 0,
      ...handlers,
    });
  }

  #refuse(message, user, why) {
    console.warn(`rollbridge | refused a relayed ${String(message?.type)} from ${String(user)}: ${why}`);
    return null;
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
    this.encounter = welcome.table?.encounter ?? null;
    this.#releaseEncounterWaiters();
    const notice = localeNotice(welcome, game.i18n.lang);
    if (notice && !this.localeNoted) {
      this.localeNoted = true; // once per start, not on every reconnect
      console.warn(`rollbridge | ${redact(notice.message)}`);
      this.notify("warn", notice.key, { data: notice.data });
    }
  }

  #status(status, detail) {
    // a reconnect to resume past a gap in the events (the client's own, at once) is no
    // outage: the GM is told of neither the drop nor the connection back (the log is)
    if (status === "connected" && !detail?.gap) {
      this.lastNotice = null;
      const role = labelOf(game.i18n, ROLE_LABELS, detail?.role ?? "?");
      this.notify("info", "ROLLBRIDGE.Notice.Connected", { data: { table: this.table, role } });
    } else if (status === "refused") {
      this.notify("error", "ROLLBRIDGE.Notice.Refused", { permanent: true });
    } else if (status === "waiting" && detail?.refusal?.code === "rate_limited" && detail.refusal.message) {
      // a hello refused for now (too many wrong tokens from this address): the server's words
      this.notify("warn", detail.refusal.message, { raw: true });
    } else if (status === "waiting" && detail?.attempt === 1 && detail.reason !== "gap") {
      this.notify("warn", "ROLLBRIDGE.Notice.Reconnecting");
    }
    if (this.writer) game.socket?.emit(SOCKET, { type: "status", status, table: this.table });
    Hooks.callAll("rollbridge.status", status, detail);
  }

  #mapping() {
    return chooseMapping(setting("systemMapping"), game.system?.id);
  }

  /**
   * Write the actors' new state (foundry/writes.mjs): the world actors' updates (linked
   * tokens' too) in one batch, each unlinked token's through its own synthetic actor,
   * all at once; then each actor's status effects. A write Foundry refuses (a system's
   * data model rejecting a value, an actor deleted meanwhile) is that actor's alone:
   * the others are written, the event's card is posted, and the GM is told which
   * actors' state Foundry did not take.
   */
  async #applyActors(views, players = new Map(), epoch = null, { playersOnly = false, reset = true } = {}) {
    if (!this.writer) return;
    const chosen = mappingChosen(setting("systemMapping"));
    // players' views alone (a settings change): a mapping the GM chose writes the GM's
    // view, which did not change
    const mapping = playersOnly && chosen ? "none" : this.#mapping();
    // what `auto` resets where a players' view no longer fills a mapping's paths
    const mappings = mappingsById(this.connection?.welcome);
    const actors = foundryActors();
    const writes = [];
    const written = []; // {actor, actorId, view}: the actor each view is written into
    for (const view of views ?? []) {
      const actor = findActor(view.id, actors);
      if (!actor) continue;
      written.push({ actor, actorId: view.id, view });
      // every client reads the flags: they get the players' view (core/state.mjs); the
      // flags as they were before the update say what `auto` wrote from them, and the
      // actor whether it still holds that (else the GM set it by hand: left)
      const options = { players: players.get(view.id) ?? null, chosen, epoch, mappings, reset, current: null, actor };
      writes.push({
        actor, name: actor.name ?? view.name ?? view.id,
        update: () => {
          options.current = actor.flags?.[MODULE_ID] ?? null;
          return actorUpdate(view, mapping, options.current, options);
        },
        statuses: () => this.#setStatuses(actor, statusChanges(view, mapping, options)),
      });
    }
    await this.#write(writes);
    // a mapping chosen by hand wrote the GM's values: kept in the GM's record
    // (foundry/marks.mjs), not the flags; never for an actor a player owns (its flags
    // are that player's, and it is never reset against the GM's view)
    if (chosen && mapping !== "none") {
      const marked = written.filter(({ actor, view }) => !ownedByPlayer(actor) && !view.removed);
      if (marked.length) await this.#marking(() => addMarks(this.table ?? null, mapping, marked));
    }
  }

  /** Write the GM's record of marks (`change`), a failure told in the console alone:
   * a mark not kept leaves an actor's values at a switch made while away, as before. */
  async #marking(change) {
    try {
      await change();
    } catch (error) {
      console.warn(`rollbridge | the record of what the chosen mapping wrote was not kept: ${redact(error?.message ?? error)}`);
    }
  }

  /** Write `writes` (writeActors); the GM is told which actors' state Foundry did not take. */
  async #write(writes) {
    const failed = await writeActors(writes);
    if (!failed.length) return;
    for (const { name, error } of failed) {
      console.error(`rollbridge | Foundry did not take the new state of ${name}: ${redact(error?.message ?? error)}`);
    }
    // names a player wrote, and Foundry's words quoting a value: text, never markup
    this.notify("error", "ROLLBRIDGE.Notice.WriteFailed", {
      data: { actors: failed.map((f) => f.name).join(", "), reason: String(failed[0].error?.message ?? failed[0].error) },
    });
  }

  /**
   * The system mapping setting changed (settings.mjs). Switched to `auto` from a mapping
   * the GM chose by hand, which wrote the GM's values of every NPC into the system's
   * data (every client's): `auto` writes of an NPC only what players see, so what the
   * chosen mapping left there is reset where an NPC's players' view fills none of the
   * paths and the actor still holds the GM's values from this connection's view
   * (chosenLeftovers). Only the writer's client, and only with a view from its
   * connection: values it has no GM's view of stay (docs/foundry.md).
   */
  async mappingChanged() {
    if (!this.writer || mappingChosen(setting("systemMapping"))) return;
    const mapping = this.#mapping();
    const described = mappingsById(this.connection?.welcome)[mapping];
    if (!described) return;
    const writes = [];
    for (const actor of foundryActors()) {
      const flags = actor.flags?.[MODULE_ID];
      if (!isOnTable(actor) || !flags?.actorId || (flags.table ?? null) !== this.table) continue;
      const write = this.#leftoversWrite(actor, described, this.views.get(flags.actorId));
      if (write) writes.push(write);
    }
    await this.#enqueue(async () => {
      if (writes.length) await this.#write(writes);
      // reset as far as this client's views go: the record's marks of the table are done
      await this.#marking(() => writeMarks(this.table ?? null, new Map()));
    });
  }

  /**
   * The write that resets what a mapping chosen by hand (`described`) left of `actor`'s
   * system data (chosenLeftovers: the paths still holding the GM's values `gm`) and
   * drops a `mapped` mark an older module left in its flags; null: nothing to write.
   */
  #leftoversWrite(actor, described, gm, { blind = false } = {}) {
    const flags = actor.flags?.[MODULE_ID];
    // an actor a player owns: its flags are that player's to write (another actor's id,
    // a mark, a seq), and which of its values a reset took would tell the player whether
    // they were the GM's values of the actor those flags name. `blind`: a mark no GM's
    // record vouches for, reset compared with no GM's view (blindLeftovers)
    const leftovers = blind ? blindLeftovers(described, flags, actor) : chosenLeftovers(described, flags, gm, actor);
    const paths = ownedByPlayer(actor) ? {} : leftovers ?? {};
    const statuses = STATUS_PATHS[described.id] ?? {};
    const data = Object.fromEntries(Object.entries(paths).filter(([path]) => !(path in statuses)));
    Object.assign(data, legacyUnmarked(flags));
    if (!Object.keys(data).length && !Object.keys(paths).length) return null;
    const off = Object.entries(statuses).filter(([path]) => path in paths).map(([, status]) => ({ status, active: false }));
    return { actor, name: actor.name ?? flags?.name ?? flags?.actorId, update: () => data, statuses: () => this.#setStatuses(actor, off) };
  }

  /**
   * At the writer's welcome under `auto`: the actors of the table the GM's record says
   * a mapping chosen by hand wrote the GM's values into (foundry/marks.mjs: a world
   * setting a GM wrote last; the switch back to `auto` was made while this client was
   * away, so mappingChanged could not reset them). Each is reset as mappingChanged
   * resets one, while its flags still name the table's actor it was marked for, against
   * the GM's view that mapping wrote — the table where the writer's client left it (its
   * saved cursor, `leftAt`: a world setting, which no player can write; every event up
   * to it was written), read once with `state` `at` at the page's first welcome — so a
   * value the GM typed since stays; where that is not read (no saved cursor, another
   * epoch, a seq past the retained log, a refusal, a later welcome of the page), against
   * the welcome's. Then the record's marks of the table are dropped.
   *
   * A `mapped` flag (a module from before 7 December 2026, night, marked so; a player
   * who owned the actor once could have written one, naming an NPC) is no mark of the
   * GM's: an actor it alone marks is reset blind (blindLeftovers: every path holding a
   * value other than an undamaged actor's, compared with no GM's view), and the flag
   * (with a `mappedAt` of that time) dropped. An actor a player owns is not reset
   * (#leftoversWrite).
   */
  async #resetMappedAway(welcome) {
    // the page's first welcome alone: later ones come after writes of this page's own
    const at = this.leftAt;
    this.leftAt = null;
    if (!this.writer || mappingChosen(setting("systemMapping"))) return;
    const mappings = mappingsById(welcome);
    const described = (id) => (typeof id === "string" && Object.hasOwn(mappings, id) ? mappings[id] : null);
    const marks = readMarks(this.table ?? null);
    let left; // the table at `at`, read once, for the first actor that needs it
    const writes = [];
    for (const actor of foundryActors()) {
      const flags = actor.flags?.[MODULE_ID];
      if (!isOnTable(actor) || !flags?.actorId || (flags.table ?? null) !== this.table) continue;
      const mark = marks.get(markKey(actor));
      const legacy = "mapped" in flags || "mappedAt" in flags;
      if (mark && mark.actorId === flags.actorId && described(mark.mapping)) {
        let gm = this.views.get(flags.actorId);
        if (!ownedByPlayer(actor) && at && at.epoch === welcome.epoch && Number.isInteger(at.seq) && at.seq < welcome.seq) {
          if (left === undefined) left = await this.#tableAt(at.seq);
          gm = (left?.actors ?? []).find((view) => view?.id === flags.actorId) ?? gm;
        }
        const write = this.#leftoversWrite(actor, described(mark.mapping), gm);
        if (write) writes.push(write);
      } else if (legacy && described(flags.mapped)) {
        const write = this.#leftoversWrite(actor, described(flags.mapped), null, { blind: true });
        if (write) writes.push(write);
      } else if (legacy) {
        writes.push({ actor, name: actor.name ?? flags.actorId, update: () => legacyUnmarked(flags) });
      }
    }
    if (writes.length) await this.#write(writes);
    if (marks.size) await this.#marking(() => writeMarks(this.table ?? null, new Map()));
  }

  /**
   * At the writer's welcome under a mapping chosen by hand (`sr5`, `swade`): the actors
   * of the table the GM's record does not mark yet are marked with it (its id and the
   * table's actor each stands for). A module from before the record wrote the GM's
   * values there under that mapping all the same, and without a mark a switch back to
   * `auto` made while this client is away was found only once the mapping had written
   * the actor again. A mark on an actor the mapping left alone resets nothing
   * (chosenLeftovers resets only paths holding the GM's values). An actor a player owns
   * is not marked: its flags are that player's to write, and it is never reset against
   * the GM's view (#leftoversWrite), nor one whose flags name a table's actor the
   * mapping writes into another actor (findActor). A `mapped` flag an older module wrote
   * is dropped (the record says it now). Once marked, nothing is written here again.
   */
  async #markChosenWrites(welcome) {
    if (!this.writer || !mappingChosen(setting("systemMapping"))) return;
    const mapping = this.#mapping();
    if (!Object.hasOwn(mappingsById(welcome), mapping)) return;
    const onTable = foundryActors().filter((actor) => {
      const flags = actor.flags?.[MODULE_ID];
      return isOnTable(actor) && flags?.actorId && (flags.table ?? null) === this.table;
    });
    // only the actor the mapping writes the view of its flags' actor into (findActor: the
    // first whose flags name it), so a player's old flags naming an NPC that has its own
    // actor mark nothing; where they are the only ones naming it, the mapping wrote that
    // NPC's GM's values into them, for every client, all the same
    const all = foundryActors();
    const marked = onTable.filter((actor) => !actor.flags[MODULE_ID].removed && !ownedByPlayer(actor)
      && findActor(actor.flags[MODULE_ID].actorId, all) === actor)
      .map((actor) => ({ actor, actorId: actor.flags[MODULE_ID].actorId }));
    if (marked.length) await this.#marking(() => addMarks(this.table ?? null, mapping, marked));
    const legacy = onTable.filter((actor) => "mapped" in actor.flags[MODULE_ID] || "mappedAt" in actor.flags[MODULE_ID]);
    const writes = legacy.map((actor) => ({
      actor, name: actor.name ?? actor.flags[MODULE_ID].actorId, update: () => legacyUnmarked(actor.flags[MODULE_ID]), statuses: async () => {},
    }));
    if (writes.length) await this.#write(writes);
  }

  /** The table as it stood at `seq` in this connection's view (`state` with `at`), or
   * null when the server cannot tell (past the retained log) or the request fails. */
  async #tableAt(seq) {
    try {
      const reply = await this.connection?.request({ type: "state", at: seq });
      return reply?.table ?? null;
    } catch (error) {
      console.warn(`rollbridge | the table at #${seq} could not be read: ${redact(error?.message ?? error)}`);
      return null;
    }
  }

  /** SWADE's Shaken and Incapacitated through the system's status effects. */
  async #setStatuses(actor, changes) {
    for (const { status, active } of changes) {
      if (Boolean(actor.statuses?.has(status)) === active) continue;
      if (!(CONFIG.statusEffects ?? []).some((e) => e.id === status)) {
        console.warn(`rollbridge | the system has no status effect "${status}"`);
        continue;
      }
      await actor.toggleStatusEffect(status, { active });
    }
  }

  /** This connection's views of the table's actors read again with `state` (an event
   * marked `reread`); a refusal or a lost connection leaves them (the next welcome
   * brings the table). */
  async #rereadViews() {
    try {
      const reply = await this.connection?.request({ type: "state" });
      if (Array.isArray(reply?.table?.actors)) this.views.see(reply.table.actors, reply.table.epoch ?? null);
    } catch (error) {
      console.warn(`rollbridge | the table could not be read again: ${redact(error?.message ?? error)}`);
    }
  }

  /**
   * A settings change whose players' copy says `reread` (it changed how players see
   * more NPCs than the event could carry): the server's Foundry dialect lists in that
   * copy the players' view of every NPC of the table as it stands (written as any
   * settings change's, #handle); an NPC it does not list (an older server's copy lists
   * none: the protocol has no request that answers the players' view to a GM) is
   * withheld, as after a snapshot, until an event brings its players' view. An NPC is
   * an actor of the table whose flags are a limited view; a player's character
   * (players see it in full) keeps its flags.
   */
  async #withholdNpcs(event) {
    const listed = playersActors(event);
    const views = [];
    for (const actor of foundryActors()) {
      const flags = actor.flags?.[MODULE_ID];
      if (!isOnTable(actor) || !flags?.actorId || flags.removed || !flags.limited) continue;
      if (listed.has(flags.actorId)) continue;
      if ((flags.table ?? null) !== (event.table ?? null)) continue;
      const own = { ...flags, seq: event.seq, limited: false };
      views.push({ id: flags.actorId, name: flags.name, foundry: { flags: { [MODULE_ID]: own }, systems: {} } });
    }
    if (views.length) await this.#applyActors(views, new Map(), event.epoch, { playersOnly: true });
  }

  /** A snapshot welcome's table, in the GM's view: each NPC's flags from its players'
   * view in the welcome's `players` (the server's Foundry dialect sends it a GM), else
   * withheld (an older server's welcome has none). */
  async #applySnapshot(welcome) {
    await this.#applyActors(welcome.table?.actors, playersActors(welcome), welcome.epoch);
  }

  /**
   * The flags an older module wrote (the GM's view, unmarked: core/state.mjs
   * publicFlags), on any actor of the world, replaced at the writer's connection: an
   * actor of the welcome's table from its view there (a player's character in full,
   * an NPC withheld until an event brings its players' view), any other (another
   * table's) with no common state (withheld).
   */
  async #replaceOldFlags(welcome) {
    const table = new Map((welcome.table?.actors ?? []).map((view) => [view?.id, view]));
    const views = [];
    const others = [];
    for (const actor of foundryActors()) {
      const flags = actor.flags?.[MODULE_ID];
      // a synthetic actor's flags inherited from its base actor are written there
      if (!flags?.actorId || !flags.common || publicFlags(flags) || !isOnTable(actor)) continue;
      // a removed mark an older module left beside old tracks keeps only the mark
      const old = flags.removed ? { actorId: flags.actorId, table: flags.table, seq: flags.seq, removed: true } : flags;
      const view = flags.removed ? null : table.get(flags.actorId);
      if (view) views.push(view);
      else others.push({ id: flags.actorId, foundry: { flags: { [MODULE_ID]: old }, systems: {} } });
    }
    // the welcome's epoch is that of its table's views only, not of what an older module left
    if (views.length) await this.#applyActors(views, playersActors(welcome), welcome.epoch);
    // another table's actor may be a player's character: its system values are left
    if (others.length) await this.#applyActors(others, new Map(), null, { reset: false });
    // a recovered resume's welcome has no players' view: the NPCs just withheld get theirs
    // from a snapshot read once (#readPlayersView)
    const players = playersActors(welcome);
    const withheld = views.filter((view) => !players.has(view.id) && !(view.controllers ?? []).length).map((view) => view.id);
    if (welcome.resume?.recovered === true && withheld.length) this.#readPlayersView(welcome.epoch, new Set(withheld));
  }

  /**
   * The players' view of the NPCs `ids` (of epoch `epoch`), withheld at an upgraded
   * world's recovered resume or just linked by hand (#writeLinked), read once: a connection of this client's own with no
   * resume, whose snapshot welcome carries the NPCs as players see them (`players`:
   * the protocol has no request that answers it to a GM, and a GM's `state` is the GM's
   * view). Each NPC still withheld when it comes (no event brought its view meanwhile)
   * is written from it; the connection closes at its welcome, a refusal, or
   * READ_EVENT_MS after its last try, and a failure leaves them withheld until their
   * next event or the next recovered resume (#askWithheld). Its connection lost, or its
   * hello refused for now (`busy`, `rate_limited`), it connects again after the
   * Connection's wait, PLAYERS_READS times at most, keeping every NPC asked for; any
   * other refusal ends it. One reader at a time: NPCs asked for meanwhile under its
   * epoch are written from its snapshot; under another epoch (a restore while it was
   * open) from its snapshot when that is of their epoch, else read for once it ends
   * (not after a refused token, which another connection would get too).
   * @param {number} epoch
   * @param {Set<string>} ids
   */
  #readPlayersView(epoch, ids) {
    const url = this.check?.ok ? this.check.url : null;
    const token = setting("token");
    if (!url || !token) return;
    if (this.playersReader) {
      const asked = epoch === this.playersEpoch ? this.playersIds : this.playersLater.get(epoch) ?? new Set();
      for (const id of ids) asked.add(id);
      if (epoch !== this.playersEpoch) this.playersLater.set(epoch, asked);
      return;
    }
    this.playersEpoch = epoch;
    this.playersIds = new Set(ids);
    let tries = 0;
    const finish = ({ again = true, written = null } = {}) => {
      globalThis.clearTimeout(this.playersTimer);
      const reader = this.playersReader;
      this.playersReader = null;
      Promise.resolve().then(() => reader?.stop()); // after its own handling of the frame
      const later = [...this.playersLater].filter(([asked]) => asked !== written);
      this.playersLater.clear();
      if (again) for (const [asked, wanted] of later) this.#readPlayersView(asked, wanted);
    };
    this.playersReader = this.#reader(url, token, null, {
      onSnapshot: (snapshot) => {
        this.playersViews.fill(snapshot);
        const wanted = new Set(snapshot.epoch === epoch ? this.playersIds : []);
        for (const id of this.playersLater.get(snapshot.epoch) ?? []) wanted.add(id);
        for (const id of wanted) this.withheldSettled.add(`${snapshot.epoch}:${id}`);
        finish({ written: snapshot.epoch });
        if (wanted.size) this.#enqueue(() => this.#writeWithheld(snapshot, wanted));
      },
      onStatus: (status, detail) => {
        if (status === "refused") {
          for (const id of this.playersIds) this.withheldSettled.add(`${epoch}:${id}`);
          finish({ again: false });
        } else if (status === "waiting") {
          const passing = !detail?.refusal || READ_AGAIN.has(detail.refusal.code);
          if (!passing || ++tries > PLAYERS_READS) return finish();
          // it connects again by itself after `delay` (a refusal's retry_after at least,
          // which no nudge cuts: the Connection's); a `rate_limited` refusal asking for
          // longer than PLAYERS_WAIT_MS ends the read
          const delay = Number(detail?.delay) || 0;
          if (detail?.refusal?.code === "rate_limited" && delay > PLAYERS_WAIT_MS) return finish();
          globalThis.clearTimeout(this.playersTimer);
          this.playersTimer = globalThis.setTimeout(finish, delay + READ_EVENT_MS);
        }
      },
      log: (level, text) => (level === "error" || level === "warn") && console.warn(`rollbridge | reading the players' view: ${redact(text, [token])}`),
    });
    this.playersTimer = globalThis.setTimeout(finish, READ_EVENT_MS);
    this.playersReader.start();
  }

  /**
   * The writer's NPCs of the welcome's table and epoch still withheld at a recovered
   * resume — a reload (or the page's close) cut the read of their players' view
   * (#readPlayersView), whose reader was this page's, or the read ended unanswered
   * (its tries spent, `too_many_connections`, no welcome in time) — read for again, at
   * each recovered resume, PLAYERS_READS times a page at most for each; not once a read
   * answered it (a snapshot came: an older server's has no players' view, not asked at
   * every reconnect) or a refused token ended it.
   */
  #askWithheld(welcome) {
    const ids = new Set();
    for (const actor of foundryActors()) {
      const flags = actor.flags?.[MODULE_ID];
      if (flags?.withheld !== true || !flags.actorId || flags.removed || !isOnTable(actor)) continue;
      if ((flags.table ?? null) !== (this.table ?? null) || flags.epoch !== welcome.epoch) continue;
      const key = `${welcome.epoch}:${flags.actorId}`;
      const asked = this.withheldAsked.get(key) ?? 0;
      if (this.withheldSettled.has(key) || asked >= PLAYERS_READS) continue;
      this.withheldAsked.set(key, asked + 1);
      ids.add(flags.actorId);
    }
    if (ids.size) this.#readPlayersView(welcome.epoch, ids);
  }

  /** The NPCs of `ids` still withheld written from a snapshot's players' view (#readPlayersView). */
  async #writeWithheld(snapshot, ids) {
    const still = new Set();
    for (const actor of foundryActors()) {
      const flags = actor.flags?.[MODULE_ID];
      if (ids.has(flags?.actorId) && flags.withheld === true) still.add(flags.actorId);
    }
    const players = playersActors(snapshot);
    const views = (snapshot.table?.actors ?? []).filter((view) => still.has(view?.id) && players.has(view.id));
    if (views.length) await this.#applyActors(views, players, snapshot.epoch);
  }

  async #handle(event, { replayed = false } = {}) {
    await this.#applyActors(event.actors, playersActors(event), event.epoch);
    // an undo's or redo's card is the undone change's own: flagged for every client to
    // draw faded, or the flag taken off (foundry/undone.mjs)
    if (this.writer && (event.kind === "undo" || event.kind === "redo")) await flagUndone(event, this.table ?? null, this);
    // a settings change (or its undo or redo) that shows or hides NPCs' details: the GM's
    // view of them did not change, so its players' copy alone lists them (docs/foundry.md)
    if (["settings", "undo", "redo"].includes(event.kind)) {
      const listed = new Set((event.actors ?? []).map((view) => view?.id));
      const reshown = [...playersActors(event).values()].filter((view) => !listed.has(view.id));
      if (reshown.length) await this.#applyActors(reshown, new Map(), event.epoch, { playersOnly: true });
      if (event.players?.reread === true) await this.#withholdNpcs(event);
    }
    const gmPresent = Boolean(game.users.activeGM);
    // a card already in the world's chat is not posted again: a player's client posted
    // it while no GM was active, or this client did before a reload it resumes from
    // (a GM's card, or the requester's own posted while no GM was active: cardTrusted)
    const posted = () => this.#cardPosted(event, replayed);
    // an approval card: a GM's of the same request, whatever its seq (a player may post
    // a message flagged as any card: theirs does not count)
    if (this.writer && event.kind === "approval.requested" && !this.#approvalPosted(event.epoch, event.data?.pending)) {
      await postApprovalCard(event);
    }
    if (shouldPostCard({ event, writer: this.writer, gmPresent, ownRequests: this.ownRequests }) && !posted()) {
      // a secret event's readers depend on its roll mode: a player's note may still be on
      // its way — but not for one that happened while this client was away (its note, if
      // any, is long gone: waiting would hold every later event up)
      const note = event.gm_only && !replayed
        ? await this.modes.wait(event.request)
        : this.modes.get(event.request);
      await this.#postOnce(event, { note, replayed });
    }
    // the writer's cards of an encounter event's turn hooks, one per hook that shows
    // something (core/hooks.mjs): public from the players' view, GM-only ones whispered
    // to the GMs in the GM's view (core/rollmode.mjs)
    if (this.writer) {
      for (const card of hookCards(event, { role: this.connection?.welcome?.role ?? null })) await this.#postOnce(card, { replayed });
    }
    if (event.kind === "approval.rejected") this.#toldRejected(event);
    if (this.writer) await this.#keepOutcomes(event);
    Hooks.callAll("rollbridge.event", event, { replayed });
  }

  /**
   * Ask again for this user's GM and self rolls held for approval. Approved, such a
   * request's event reaches this client as a `hidden` placeholder that does not say
   * whose it is, and the roller's view of it comes only in the reply to its request:
   * the server answers a repeated id with the reply as it stands (docs/protocol.md,
   * "Approval") — `pending` still, `secret` with the roller's view once approved (its
   * card posted, as for a roll that did not wait), `rejected`. One round at a time;
   * a placeholder during one asks again after it.
   *
   * The server keeps a reply for repeats only for ten times its retained log, counted
   * in seqs (docs/engine.md, "Idempotency"); an id it no longer remembers is a new
   * request — held a second time, or rolled at once with approval since turned off.
   * So a request is asked again only to repeat (`"repeat": true`, core/held.mjs
   * repeatOf): the server answers it as any repeat while it remembers the id, and
   * refuses it `not_remembered` when it does not — then the request is dropped and the
   * user told. An older server refuses the field (repeatUnknown): that connection is
   * asked the way it was before, a `state` with `at` the request's floor (the seq seen
   * before it was sent) first, which the server answers while its log reaches back
   * there, so the reply, stored at a later seq, is well within the window
   * (#stillRemembered); when it does not, the request is not asked again and the user
   * is told.
   */
  #askHeld() {
    if (this.asking) {
      this.asking.again = true;
      return;
    }
    const round = { again: false };
    this.asking = round;
    const ask = async () => {
      do {
        round.again = false;
        // the oldest first: once the log reaches back to one floor, it reaches the later ones;
        // all of them under the lock, else this tab's own (core/held.mjs actable)
        const entries = this.held.actable().sort(([, a], [, b]) => a.floor - b.floor);
        let reached = null;
        for (const [id, { message, floor }] of entries) {
          // stopped, or not connected (a round that waited for another tab's): asked again
          // by the next welcome or placeholder, not queued on a connection that is down
          // while this tab holds the lock the other tabs wait for (core/held.mjs acting)
          if (!this.connection?.connected) return;
          if (!this.held.has(id)) continue; // settled or forgotten meanwhile (#forgetHeld)
          try {
            const connection = this.connection;
            let reply = null;
            let asked = false;
            if (this.repeatRefusedBy !== connection) {
              try {
                reply = await connection?.request(repeatOf(message));
                asked = true;
              } catch (error) {
                if (!repeatUnknown(error)) throw error;
                this.repeatRefusedBy = connection; // an older server: asked as before
              }
            }
            if (!asked) {
              if (reached === null || floor < reached) {
                if (!(await this.#stillRemembered(id, floor))) continue;
                reached = floor;
              }
              reply = await this.connection?.request(message);
            }
            if (reply?.status === "pending") continue;
            this.held.delete(id);
            // rejected: its event may not have come here (a snapshot after an outage)
            if (reply?.status === "rejected") this.#tellRejected(id, reply.reason);
            else await this.#postRequesterCard(reply, message.rollMode);
          } catch (error) {
            // the connection stopped under it (client.start(): a reconnect) or was refused:
            // not the server's answer, so still held, asked again on the next connection
            if (error?.code === "stopped" || error?.code === "refused") continue;
            // the probe or the request refused for now: still held, asked again next time
            if (refusedForNow(error)) {
              console.warn(`rollbridge | held request ${id} is asked again later: ${error.code}: ${redact(error?.message ?? "")}`);
              continue;
            }
            // the server does not remember its id (answered too long ago): it ran nothing,
            // which the player is told as such (HeldTooOld is the older server's guess)
            if (notRemembered(error)) {
              this.held.delete(id);
              console.warn(`rollbridge | held request ${id} is not asked again: the server no longer remembers it`);
              ui.notifications?.warn?.(`rollbridge: ${game.i18n.localize("ROLLBRIDGE.Notice.HeldNotRemembered")}`);
              continue;
            }
            this.held.delete(id);
            console.warn(`rollbridge | a held request ${id}: ${redact(error?.message ?? error)}`);
          }
        }
      } while (round.again && this.held.size);
    };
    // one tab of this browser at a time (core/held.mjs acting): another tab's round
    // first, whose settled requests are gone when this one reads the list again
    this.held
      .acting(ask)
      .catch((error) => console.warn(`rollbridge | the held requests: ${redact(error?.message ?? error)}`))
      .finally(() => {
        this.asking = null;
      });
  }

  /**
   * Whether the server still remembers the reply of held request `id`, as far as a
   * client can tell: its `state` at `floor` answers while the retained log holds every
   * event after `floor` (the reply is stored at a later seq, and kept for ten times
   * that log). Refused as older than the log: the request is dropped, the user told,
   * and false returned. Other failures reject (the caller's as for the request).
   */
  async #stillRemembered(id, floor) {
    try {
      await this.connection?.request({ type: "state", at: floor });
      return true;
    } catch (error) {
      if (!logMovedOn(error)) throw error;
      this.held.delete(id);
      console.warn(`rollbridge | held request ${id} is not asked again: the table's log no longer reaches back to seq ${floor}`);
      ui.notifications?.warn?.(`rollbridge: ${game.i18n.localize("ROLLBRIDGE.Notice.HeldTooOld")}`);
      return false;
    }
  }

  /**
   * Forget the held requests of an epoch other than the welcome's (`epoch`): the table
   * went on in a new one (Redis went back in time, a restored backup), whose log may not
   * hold them nor their ids' replies, so asking again by the same id could make the
   * request anew — held a second time, or applied with no GM's approval. The user is
   * told that they no longer wait (sent again, they are new requests). So are those
   * sent with another join token than this connection's (the player pasted a new one,
   * a revoked token replaced): the server scopes a request id by its token, so this
   * one would not find it and would make it anew.
   */
  #forgetHeld(epoch) {
    const told = new Set();
    for (const [id, entry] of this.held) {
      const key = entry.epoch !== epoch ? "ROLLBRIDGE.Notice.HeldForgotten"
        : entry.token !== this.tokenMark ? "ROLLBRIDGE.Notice.HeldOtherToken" : null;
      if (!key) continue;
      this.held.delete(id);
      told.add(key);
    }
    for (const key of told) ui.notifications?.warn?.(`rollbridge: ${game.i18n.localize(key)}`);
  }

  /** A request of this client's that the GM rejected: its user is told, with the GM's
   * reason as text (the GM wrote it: never markup). */
  #toldRejected(event) {
    const request = event.data?.request;
    // a held one too: sent before a reload, it is not among this page's own requests
    if (typeof request !== "string" || !(this.ownRequests.has(request) || this.held.has(request))) return;
    this.held.delete(request);
    this.#tellRejected(request, event.data?.reason);
  }

  /** Tell this user the GM rejected its request `id`, once: its event and the reply to
   * asking for a held request again (#askHeld) may both say so. */
  #tellRejected(id, why) {
    if (this.rejectionsTold.has(id)) return;
    this.rejectionsTold.add(id);
    // the GM's words as the server sends them: one of zero-width characters alone (a
    // rejection logged before the server blanked them) shows nothing, so none
    const reason = validReason(why)?.trim() ?? "";
    const text = reason
      ? game.i18n.format("ROLLBRIDGE.Notice.RequestRejectedReason", { reason: noticeText(reason) })
      : game.i18n.localize("ROLLBRIDGE.Notice.RequestRejected");
    ui.notifications?.warn?.(`rollbridge: ${text}`);
  }

  /**
   * The writer's: an event that settles pending requests (approved, rejected: here, by
   * another GM, in the web view; live or among a resume's missed events) writes how in
   * the GM's record, the world setting `outcomes` (core/outcomes.mjs), with a
   * rejection's reason, the GM's words. Only a GM may write a world setting, so a page
   * loaded later — a GM's, or the player's whose own card it is — reads Approved, or
   * Rejected with the GM's reason, from what a GM's client wrote, where the welcome
   * tells it only that the request no longer waits; its onChange draws the approval
   * cards again on every client. A record that says so already is left alone; a write
   * Foundry refuses is logged, and the cards drawn from what this page knows.
   */
  async #keepOutcomes(event) {
    const settled = settledBy(event).map(([pending, outcome]) => ({
      pending, outcome, reason: outcome === "rejected" ? rejectionReason(event) : null,
    }));
    await this.#keepSettled(event.epoch, settled);
  }

  /** Keep how requests of `epoch` were settled ([{pending, outcome, reason}]: an event's,
   * or a snapshot welcome's `settled`) in the GM's record, in one write, or none when the
   * record comes out as it was. */
  async #keepSettled(epoch, settled) {
    // built on what a GM wrote only: a record a player wrote (one the GM let modify the
    // world's settings) is started again, not made a GM's by this write
    const was = gmRecord();
    let record = was;
    const kept = [];
    for (const { pending, outcome, reason } of settled) {
      const next = withOutcome(record, { table: this.table ?? null, epoch, pending, outcome, reason });
      if (!next) continue;
      record = next;
      kept.push(pending);
    }
    // a snapshot's list goes past what the record keeps (its 200 against the record's
    // 100, reasons past its bytes): each is written and dropped again, the record the
    // same, which Foundry would send every client at each of the GM's long drops
    if (!kept.length || JSON.stringify(record) === JSON.stringify(was)) return;
    try {
      await game.settings.set(MODULE_ID, "outcomes", record);
    } catch (error) {
      console.warn(`rollbridge | the outcome of ${kept.join(", ")} is not kept: ${redact(error?.message ?? error)}`);
    }
  }

  /** Whether the world's chat holds a GM's approval card of this table's request `pending`
   * (core/approvals.mjs): a card a player posted is not one. */
  #approvalPosted(epoch, pending) {
    return approvalPosted(game.messages?.contents ?? [], { table: this.table ?? null, epoch, pending }, authoredByGM);
  }

  /**
   * The writer's approval cards of the requests a welcome lists as waiting that have
   * none in the world's chat: they began waiting while no GM's client took their
   * event (this one away, and its welcome a snapshot, or its first connection to the
   * table). Posted from the welcome's entry ({pending, type, id, fields, who}, as the
   * event's `data.request`), without a seq: the welcome does not say which event it
   * was.
   */
  async #postWaitingCards(welcome) {
    if (!this.writer || !Array.isArray(welcome.table?.pending)) return;
    for (const entry of welcome.table.pending) {
      const pending = entry?.pending;
      if (typeof pending !== "string" || this.#approvalPosted(welcome.epoch, pending)) continue;
      const { pending: _, ...request } = entry;
      await postApprovalCard({
        table: this.table ?? null, epoch: welcome.epoch, seq: null, kind: "approval.requested", data: { pending, request },
      });
    }
  }

  /** Whether the world's chat holds the card of `event` (an event's, or a turn hook's)
   * from an author who could have posted it (core/state.mjs cardTrusted); `replayed`:
   * the event happened while this client was away. */
  #cardPosted(event, replayed) {
    const live = Boolean(this.writer) && !replayed;
    const trusted = (message) => cardTrusted(message, event, { gmAuthored: authoredByGM(message), live });
    return cardPosted(game.messages?.contents ?? [], event, trusted);
  }

  /** Post the card of `event` (an event's, or a turn hook's) to its readers
   * (core/rollmode.mjs cardAudience) unless the world's chat has it already. */
  async #postOnce(event, { note = null, replayed = false } = {}) {
    if (this.#cardPosted(event, replayed)) return;
    const welcome = this.connection?.welcome;
    const gms = ChatMessage.getWhisperRecipients("GM").map((u) => u.id);
    const audience = cardAudience({ event, note, writer: game.user.id, gms });
    // null: a player's self roll, whose card the roller's own client posts
    const undoneAt = this.undoneFlags.get(event.seq) ?? null;
    if (audience) await postCard(event, { locale: welcome?.locale ?? null, role: welcome?.role ?? null, audience, replayed, undoneAt });
  }

  async #saveCursor(cursor) {
    if (!this.writer) return;
    await game.settings.set(MODULE_ID, "cursor", { table: this.table, ...cursor });
  }

  /** A module socket message; `sender` the user Foundry's server says sent it (relay.mjs socketSender). */
  onSocket(message, sender = null) {
    // the writing GM's connection status (status().gm): a GM's word only, one of the
    // connection's statuses, never a player's forged "connected" or free text
    if (message?.type === "status" && game.users?.get(sender)?.isGM
      && typeof message.status === "string" && Object.hasOwn(CONNECTION_LABELS, message.status)) {
      this.gmStatus = message.status;
    }
    // a player's client asking the GM's (relay.mjs): roll-mode notes on v12, another
    // GM's links and applies always
    if (message?.type === "rollMode" || message?.type === "linked") {
      this.relayed(message, { sender }).catch((error) => console.warn(`rollbridge | ${redact(error?.message ?? error)}`));
    }
    // an apply refused (here, or by the server) is told its sender; it never rejects unhandled
    if (message?.type === "apply") {
      this.applyRelayed(message, { sender })
        .catch((error) => {
          console.warn(`rollbridge | a relayed apply from ${String(sender)} was refused: ${redact(error?.message ?? error)}`);
          // a server's reply without a message (the module's own words, `key`): none is
          // sent, so the player's client words it in the player's language (#applied)
          const gmSide = GM_SIDE_KEYS.has(error?.key);
          // the GM's client's own failure before the server answered (not connected):
          // its key, for the player's client to word in the player's language; and, for
          // a player's client older than the key (it reads the code and the message
          // alone), its English words, never the GM's language
          const message = gmSide ? gmSideEnglish(error) : error?.key ? "" : String(error?.message ?? error);
          const own = gmSide ? { key: error.key, data: gmSideData(error.data) } : {};
          return { ok: false, error: { code: error?.code ?? null, message, ...own } };
        })
        .then((outcome) => this.#answerApply(message, sender, outcome))
        .catch((error) => console.warn(`rollbridge | ${redact(error?.message ?? error)}`));
    }
    if (message?.type === "applied") this.#applied(message, sender);
  }
}
