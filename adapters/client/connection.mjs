// One connection to a rollbridge table, kept alive: hello, requests and their
// replies, events in seq order, an application-level ping, exponential backoff
// capped at 30 s, and resume with (epoch, seq) after a drop.
//
// Shared by rollbridge's browser clients (the Foundry module bundles it as its
// scripts/client/), VTT-independent (tests/foundry/js/connection.test.mjs
// drives it with a fake WebSocket and fake timers). Everything it needs from the page is passed
// in: the WebSocket class, the timers, the random source, a logger.
//
// Guarantees:
// - the token is sent only inside `hello`, and never logged or put in an error;
// - the hello asks for the user's language (`locale`): the server's texts come in it;
// - every request keeps its id until it is answered: after a drop it is sent
//   again with the same id, which the server treats as the same request (it
//   never applies a request twice), so a roll made while the connection was
//   down is made exactly once when it comes back;
// - events reach `onEvent` once each, in seq order: after a drop the hello
//   carries the last (epoch, seq) seen and the server sends what was missed,
//   or a fresh snapshot (`onSnapshot`) when it cannot; an event after a gap in
//   seq (or of another epoch) is not handed on: the client reconnects and resumes
//   from before the gap;
// - a refused token (its hello's refusal, or close 1008 once joined) stops
//   retrying; a 1008 before the hello was answered (the server had not read it
//   within its hello timeout) and everything else retries, with a
//   backoff that starts over once a connection has answered a ping, and a socket
//   not open, or a hello unanswered, for a ping's time is given up; a hello refused as `rate_limited`
//   (its address sent too many wrong tokens) waits the server's `retry_after` at
//   least; the status `waiting` after any hello refused for now carries the
//   refusal (`detail.refusal`: its code and message, in the hello's language)
//   for the page to show;
// - nudge() skips the backoff's wait (the page calls it when the network or the
//   page comes back) and, connected, pings at once; never a `rate_limited` hello's
//   `retry_after` (the server's wait, which the network coming back does not end);
// - a request made again with an id still waiting is the same request; one larger
//   than the server's 64 KiB frame is refused at once, never sent; a brief result
//   gets its event however many events came between them (a resume's backlog);
// - a request the server refuses as `busy` (too many changes waiting for its
//   disk; nothing was done) is sent again, same id, after a growing pause, up
//   to BUSY_RETRIES times before its promise is rejected; one refused as
//   `rate_limited` (too many requests per second; nothing was done) is sent
//   again, same id, after the server's `retry_after` — the two counted together,
//   BUSY_RETRIES resends in all before the promise is rejected.

import {
  decodeFrame,
  encodeFrame,
  errorFromReply,
  helloMessage,
  NATIVE_DIALECT,
  newRequestId,
  RollbridgeError,
} from "./protocol.mjs";
import { redact } from "./url.mjs";

export const BACKOFF_BASE_MS = 500;
export const BACKOFF_CAP_MS = 30_000;
export const PING_INTERVAL_MS = 15_000;
export const PING_TIMEOUT_MS = 10_000;
export const BUSY_RETRIES = 5;
export const BUSY_BASE_MS = 250;
export const BUSY_CAP_MS = 4_000;
/** The longest `retry_after` of a refused hello the client waits (the server's
 * wrong-token throttle asks for a minute by default, ten at its strictest). */
export const HELLO_WAIT_CAP_MS = 600_000;
/** Refusals after which nothing was done and the same request is sent again. */
const RETRIED = new Set(["busy", "rate_limited"]);
/** Hello errors that do not refuse the token: the client reconnects with backoff
 * (a server that failed building the table, or lacks its ruleset, may not later). */
const TRANSIENT_HELLO = new Set([
  "too_many_connections", "rate_limited", "busy", "store_error", "internal", "ruleset_unavailable",
]);
/** The largest frame the server takes (docs/protocol.md): a larger one closes the
 * connection (1009), and sent again after each reconnect it would close every one. */
export const MAX_FRAME_BYTES = 64 * 1024;
const UTF8 = new TextEncoder();
/** Close code of a server that cannot take the connection now (too many, too far behind). */
const CLOSE_TRY_LATER = 1013;

/** Events kept by seq to complete brief results (the hello asks for them). */
export const RECENT_EVENTS = 64;

const CLOSE_AUTH = 1008;
const CLOSE_NO_PONG = 4000;
const CLOSE_STOPPED = 1000;

/** The wait before reconnect attempt `attempt` (0-based): exponential from
 * `base`, capped at `cap`, with jitter in its upper half. Never more than `cap`. */
export function backoffDelay(attempt, random = Math.random, base = BACKOFF_BASE_MS, cap = BACKOFF_CAP_MS) {
  const ceiling = Math.min(cap, base * 2 ** Math.min(attempt, 30));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

const defaultTimers = {
  setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle),
};

export class Connection {
  /**
   * @param {object} options
   * @param {string} options.url        ws:// or wss:// URL (checked with checkServerUrl first)
   * @param {string} options.table      the table id
   * @param {string} options.token      the join token (never logged)
   * @param {new (url: string) => any} [options.WebSocket]  the WebSocket class (default: the page's)
   * @param {object} [options.timers]   {setTimeout, clearTimeout}
   * @param {() => number} [options.random] a random source in [0, 1)
   * @param {object} [options.cursor]   {epoch, seq} to resume from
   * @param {string} [options.client]   a name for the server's logs
   * @param {string} [options.dialect]  the hello's dialect (default: the protocol's own, `rollbridge`)
   * @param {string} [options.idPrefix] the prefix of request ids made here (default `rb`)
   * @param {string} [options.locale]   the user's language (game.i18n.lang) for the server's texts
   * @param {Function} [options.onWelcome]  (welcome) after each successful hello
   * @param {Function} [options.onSnapshot] (welcome) when the table must be taken afresh
   * @param {Function} [options.onEvent]    (event, {replayed}) each new event, once, in order;
   *   `replayed`: it happened while this client was away (a resume's missed events)
   * @param {Function} [options.onCursor]   ({epoch, seq}) after each event (persist it)
   * @param {Function} [options.onStatus]   (status, detail) on every status change
   * @param {Function} [options.log]        (level, text) — texts are token-free
   * @param {number} [options.pingInterval] ms between pings (default PING_INTERVAL_MS)
   * @param {number} [options.pingTimeout]  ms to wait for a pong (default PING_TIMEOUT_MS)
   */
  constructor(options) {
    this.url = options.url;
    this.table = options.table;
    this.#token = options.token;
    this.WebSocket = options.WebSocket ?? globalThis.WebSocket;
    this.timers = options.timers ?? defaultTimers;
    this.random = options.random ?? Math.random;
    this.client = options.client ?? "rollbridge-client";
    this.dialect = options.dialect ?? NATIVE_DIALECT;
    this.idPrefix = options.idPrefix ?? "rb";
    this.locale = options.locale ?? null;
    this.cursor = options.cursor ? { ...options.cursor } : null;
    this.pingInterval = options.pingInterval ?? PING_INTERVAL_MS;
    this.pingTimeout = options.pingTimeout ?? PING_TIMEOUT_MS;
    this.handlers = {
      onWelcome: options.onWelcome ?? (() => {}),
      onSnapshot: options.onSnapshot ?? (() => {}),
      onEvent: options.onEvent ?? (() => {}),
      onCursor: options.onCursor ?? (() => {}),
      onStatus: options.onStatus ?? (() => {}),
    };
    this.logger = options.log ?? (() => {});
    this.status = "idle";
    this.attempt = 0;
    this.welcome = null;
    this.stats = { connects: 0, resumes: 0, recovered: 0, snapshots: 0, missed: 0, drops: 0, gaps: 0 };
    this.pending = new Map();
    /** The latest events by seq: a brief result gets its event from here. */
    this.recent = new Map();
    /** The events of requests still waiting, by request id, however many came since
     * (a resume's backlog comes before the results of the requests sent again). */
    this.own = new Map();
    this.socket = null;
    this.#helloId = null;
    this.#timer = null;
    this.#serversWait = null;
    this.#pingTimer = null;
    this.#pongTimer = null;
    this.#pingCount = 0;
    this.#gapSeen = null;
    this.#liveFrom = null;
  }

  #token;
  /** The seq of the event that showed a gap, until the next welcome. */
  #gapSeen;
  /** From this seq on, a resume's events had come live before (the event that showed
   * the gap and after): they are handed on as live, not as missed. */
  #liveFrom;
  #helloId;
  #timer;
  /** The timer of a `rate_limited` hello's `retry_after` (the server's wait), while it
   * runs: a nudge does not cut it — only the backoff's wait past it (null: none). */
  #serversWait;
  #pingTimer;
  #pongTimer;
  #pingCount;

  log(level, text) {
    this.logger(level, redact(text, [this.#token]));
  }

  #setStatus(status, detail = null) {
    this.status = status;
    this.handlers.onStatus(status, detail);
  }

  /** Connect (and keep reconnecting until stop()). */
  start() {
    if (this.status !== "idle" && this.status !== "stopped") return;
    this.#open();
  }

  /** Close for good; pending requests are rejected. */
  stop() {
    this.#clearTimers();
    const socket = this.socket;
    this.socket = null;
    this.#setStatus("stopped");
    if (socket) {
      try { socket.close(CLOSE_STOPPED, "client stopped"); } catch { /* already closed */ }
    }
    this.#rejectPending("stopped", "ROLLBRIDGE.Error.StoppedUnanswered",
      (id) => `the connection was stopped before request ${id} was answered`);
  }

  /** Whether requests go out now (they are queued otherwise). */
  get connected() {
    return this.status === "connected";
  }

  /**
   * Send a request; resolves with the `result` reply, rejects with a
   * RollbridgeError for an `error` reply. Queued while disconnected and sent
   * again (same id) after a reconnect until answered.
   */
  request(message) {
    const id = message.id ?? newRequestId(this.idPrefix);
    const request = { ...message, id };
    if (this.status === "stopped" || this.status === "refused") {
      const key = this.status === "stopped" ? "ROLLBRIDGE.Error.ConnectionStopped" : "ROLLBRIDGE.Error.ConnectionRefused";
      return Promise.reject(new RollbridgeError(this.status, `the connection is ${this.status}`, undefined, { key }));
    }
    // the same id again is the same request: its answer, not a second entry
    const waiting = this.pending.get(id);
    if (waiting) return waiting.promise;
    const frame = encodeFrame(request); // made once: sent as it is, again too
    const size = UTF8.encode(frame).length;
    if (size > MAX_FRAME_BYTES) {
      return Promise.reject(new RollbridgeError("request_too_large",
        `request ${id} is ${size} bytes; the server takes at most ${MAX_FRAME_BYTES}`, undefined,
        { key: "ROLLBRIDGE.Error.RequestTooLarge", data: { id, size, limit: MAX_FRAME_BYTES } }));
    }
    const entry = { request, frame };
    entry.promise = new Promise((resolve, reject) => {
      entry.resolve = resolve;
      entry.reject = reject;
    });
    this.pending.set(id, entry);
    if (this.connected) this.#sendFrame(frame);
    return entry.promise;
  }

  /**
   * Try now instead of at the backoff's next step (the network or the page came
   * back: the browser's `online`, a page shown again): waiting to reconnect, it
   * connects at once and the backoff starts over; connected, it pings at once,
   * so a line that died meanwhile is noticed within a ping's timeout instead of
   * at the next ping. Connecting, joining, refused or stopped: nothing.
   */
  nudge() {
    // a `rate_limited` hello's retry_after is the server's: the network coming back does
    // not end it (until 7 December 2026, late, a nudge opened at once, into the refusal)
    if (this.status === "waiting" && this.#serversWait !== null) return;
    if (this.status === "waiting") {
      this.attempt = 0;
      this.log("info", "trying to reconnect now");
      this.#open();
    } else if (this.status === "connected" && this.pingInterval && this.#pongTimer === null) {
      if (this.#pingTimer !== null) this.timers.clearTimeout(this.#pingTimer);
      this.#pingTimer = null;
      this.#ping();
    }
  }

  /**
   * Give up on a request (a roll that stopped waiting for it): it is not sent
   * again after a reconnect, and its reply, if one still comes, is ignored.
   * One already sent may still have been done at the server.
   */
  forget(id) {
    const entry = this.pending.get(id);
    if (!entry) return false;
    this.#cancelRetry(entry);
    this.pending.delete(id);
    this.own.delete(id);
    return true;
  }

  #open() {
    this.#clearTimers();
    this.#setStatus("connecting");
    this.log("info", `connecting to ${this.url} (table ${this.table})`);
    let socket;
    try {
      socket = new this.WebSocket(this.url);
    } catch (error) {
      this.log("warn", `could not open ${this.url}: ${error.message}`);
      this.#retry();
      return;
    }
    this.socket = socket;
    // not open as long as a ping may take: given up and tried again (a handshake never
    // answered — a half-open line, a proxy that swallows the upgrade — brings no
    // close for minutes, and the page said *connecting* all that while)
    if (this.pingInterval) {
      this.#pongTimer = this.timers.setTimeout(() => {
        this.#pongTimer = null;
        this.log("warn", `socket not open within ${this.pingInterval + this.pingTimeout} ms; reconnecting`);
        this.socket = null;
        try { socket.close(); } catch { /* closed */ }
        this.#closed(CLOSE_NO_PONG, "not open");
      }, this.pingInterval + this.pingTimeout);
    }
    socket.onopen = () => {
      if (socket !== this.socket) return;
      if (this.#pongTimer !== null) {
        this.timers.clearTimeout(this.#pongTimer);
        this.#pongTimer = null;
      }
      this.#setStatus("joining");
      this.#helloId = newRequestId("hello");
      this.#sendRaw(socket, helloMessage({
        id: this.#helloId, table: this.table, token: this.#token, cursor: this.cursor, client: this.client,
        locale: this.locale, dialect: this.dialect,
      }));
      // no welcome as long as a ping may take: the network or the server stalled
      if (this.pingInterval) {
        this.#pongTimer = this.timers.setTimeout(() => {
          this.#pongTimer = null;
          this.log("warn", `no welcome within ${this.pingInterval + this.pingTimeout} ms; reconnecting`);
          this.socket = null;
          try { socket.close(CLOSE_NO_PONG, "no welcome"); } catch { /* closed */ }
          this.#closed(CLOSE_NO_PONG, "no welcome");
        }, this.pingInterval + this.pingTimeout);
      }
    };
    socket.onmessage = (event) => {
      if (socket !== this.socket) return;
      this.#receive(event.data);
    };
    socket.onclose = (event) => {
      if (socket !== this.socket) return;
      this.#closed(event.code, event.reason);
    };
    socket.onerror = () => {
      /* a close event follows */
    };
  }

  #sendRaw(socket, message) {
    this.#write(socket, encodeFrame(message));
  }

  #write(socket, frame) {
    try {
      socket.send(frame);
    } catch (error) {
      this.log("warn", `send failed: ${error.message}`);
    }
  }

  #send(message) {
    if (this.socket) this.#sendRaw(this.socket, message);
  }

  /** A request's frame, as encoded when it was made. */
  #sendFrame(frame) {
    if (this.socket) this.#write(this.socket, frame);
  }

  #receive(data) {
    let message;
    try {
      message = decodeFrame(data);
    } catch (error) {
      this.log("warn", `ignored a frame: ${error.message}`);
      return;
    }
    this.#alive();
    switch (message.type) {
      case "welcome":
        this.#welcomed(message);
        break;
      case "event":
        this.#event(message);
        break;
      case "result":
      case "error":
        this.#reply(message);
        break;
      case "pong":
        this.attempt = 0; // up a ping's time: a good connection
        break;
      default:
        // a reply of its own type (`odds`) to a request this connection made
        if (message.id !== undefined && this.pending.has(message.id)) this.#reply(message);
        else this.log("debug", `ignored a ${message.type} message`);
    }
  }

  #welcomed(welcome) {
    this.welcome = welcome;
    if (this.#pongTimer !== null) { // the hello was answered
      this.timers.clearTimeout(this.#pongTimer);
      this.#pongTimer = null;
    }
    // the backoff starts over once the connection has lived through a ping (a
    // server that closes it at once, every time, is not hammered); without pings, now
    if (!this.pingInterval) this.attempt = 0;
    this.stats.connects += 1;
    const resumed = Boolean(welcome.resume);
    const recovered = resumed && welcome.resume.recovered === true;
    const sameEpoch = this.cursor && this.cursor.epoch === welcome.epoch;
    if (resumed) this.stats.resumes += 1;
    // a resume's missed events come next, up to the seq the welcome reports
    this.replayTo = recovered && sameEpoch ? { epoch: welcome.epoch, seq: welcome.seq } : null;
    const gap = this.#gapSeen !== null;
    this.#liveFrom = this.replayTo ? this.#gapSeen : null;
    this.#gapSeen = null;
    if (recovered && sameEpoch) {
      this.stats.recovered += 1;
      this.stats.missed += welcome.resume.missed ?? 0;
    } else {
      this.stats.snapshots += 1;
      if (!sameEpoch) { // events of before are not this epoch's (same epoch: still true)
        this.recent.clear();
        this.own.clear();
      }
      this.cursor = { epoch: welcome.epoch, seq: welcome.seq };
      this.handlers.onSnapshot(welcome);
      this.handlers.onCursor({ ...this.cursor });
    }
    // those waiting now are sent below; one made from the handlers is sent as it is made
    const waiting = [...this.pending.values()];
    this.#setStatus("connected", { role: welcome.role, recovered, missed: welcome.resume?.missed ?? 0, gap });
    this.log("info", `joined table ${this.table} as ${welcome.role} at seq ${welcome.seq}`
      + (resumed ? ` (resume: ${recovered ? `recovered ${welcome.resume.missed} missed` : "snapshot"})` : ""));
    this.handlers.onWelcome(welcome);
    for (const entry of waiting) {
      if (this.pending.get(entry.request.id) !== entry) continue; // answered or forgotten meanwhile
      this.#cancelRetry(entry); // sent now: a busy retry still waiting would send it twice
      this.#sendFrame(entry.frame);
    }
    this.#schedulePing();
  }

  #event(event) {
    if (!Number.isInteger(event.seq)) return;
    const cursor = this.cursor;
    if (cursor && event.epoch === cursor.epoch && event.seq <= cursor.seq) return; // seen
    if (event.request != null && this.pending.has(event.request)) this.own.set(event.request, event);
    if (cursor && (event.epoch !== cursor.epoch || event.seq > cursor.seq + 1)) {
      this.#gap(cursor, event);
      return;
    }
    this.cursor = { epoch: event.epoch, seq: event.seq };
    this.recent.set(event.seq, event);
    if (this.recent.size > RECENT_EVENTS) this.recent.delete(this.recent.keys().next().value);
    const upTo = this.replayTo;
    const replayed = Boolean(upTo && event.epoch === upTo.epoch && event.seq <= upTo.seq)
      && !(this.#liveFrom !== null && event.seq >= this.#liveFrom);
    try {
      this.handlers.onEvent(event, { replayed });
    } catch (error) {
      this.log("error", `an event handler failed: ${error.message}`);
    }
    this.handlers.onCursor({ ...this.cursor });
  }

  /** `event` does not follow `cursor`: events between never came (the server could
   * not show one to this client: its log names it), or it is of another epoch. Handing
   * it on would pass them silently, so this connection goes, and the next one, after
   * the first step of the backoff (the connection was a good one), resumes from the
   * last event seen: the server sends the missed ones, this one again among them, or
   * the table as it is (`onSnapshot`). An event of a request still waiting is kept
   * for its result (`own`). */
  #gap(cursor, event) {
    this.stats.gaps += 1;
    const from = cursor.seq + 1;
    const missing = event.epoch !== cursor.epoch ? `epoch ${event.epoch} began (event ${event.seq})`
      : event.seq - 1 === from ? `event ${from} did not come` : `events ${from}-${event.seq - 1} did not come`;
    this.log("warn", `table ${this.table}: ${missing}; reconnecting to resume from ${cursor.seq}`);
    this.#gapSeen = event.epoch === cursor.epoch ? event.seq : null;
    const socket = this.socket;
    this.socket = null;
    this.#clearTimers();
    if (socket) {
      try { socket.close(CLOSE_STOPPED, "missed events"); } catch { /* closed */ }
    }
    this.attempt = 0;
    this.#retry("gap");
    this.attempt = 0; // the connection was good: a drop after this one is a first again
  }

  #reply(reply) {
    if (reply.id === this.#helloId) {
      if (reply.type === "error" && TRANSIENT_HELLO.has(reply.code)) {
        // not a refusal of the token: this connection goes, a later one may join
        this.log("warn", `the server cannot take this connection now: ${reply.code}: ${reply.message}`);
        const socket = this.socket;
        this.socket = null;
        if (socket) {
          try { socket.close(CLOSE_STOPPED); } catch { /* closed */ }
        }
        this.#closed(CLOSE_TRY_LATER, reply.code, reply);
      } else if (reply.type === "error") {
        this.log("error", `the server refused to join: ${reply.code}: ${reply.message}`);
        this.#refused(reply);
      }
      return;
    }
    const entry = this.pending.get(reply.id);
    if (!entry) return;
    if (reply.type === "error" && RETRIED.has(reply.code) && (entry.busy ?? 0) < BUSY_RETRIES) {
      this.#sendAgainLater(reply.id, entry, reply);
      return;
    }
    this.pending.delete(reply.id);
    const own = this.own.get(reply.id);
    this.own.delete(reply.id);
    if (reply.type === "error") entry.reject(errorFromReply(reply));
    else entry.resolve(this.#withEvent(reply, own));
  }

  /** A brief result with the event it names, as it arrived before it (among the
   * latest events, or kept as the event of this request, `own`). */
  #withEvent(reply, own) {
    if (reply.event !== undefined || !Number.isInteger(reply.seq) || reply.status !== "done") {
      return reply;
    }
    const event = this.recent.get(reply.seq) ?? (own?.seq === reply.seq ? own : undefined);
    return event ? { ...reply, event } : reply;
  }

  #sendAgainLater(id, entry, reply) {
    const hinted = Number(reply.details?.retry_after);
    // the server's hint is when one more request fits; many refused at once spread
    // out over the growing pause instead of all coming back at that instant
    const backoff = backoffDelay(entry.busy ?? 0, this.random, BUSY_BASE_MS, BUSY_CAP_MS);
    const delay = reply.code === "rate_limited" && Number.isFinite(hinted) && hinted > 0
      ? Math.min(BUSY_CAP_MS, Math.max(backoff, Math.ceil(hinted * 1000)))
      : backoff;
    entry.busy = (entry.busy ?? 0) + 1;
    const why = reply.code === "rate_limited" ? "too many requests" : "the server is busy";
    this.log("warn", `${why}; sending request ${id} again in ${delay} ms`);
    this.#cancelRetry(entry);
    entry.retry = this.timers.setTimeout(() => {
      entry.retry = null;
      if (this.pending.get(id) === entry && this.connected) this.#sendFrame(entry.frame);
    }, delay);
  }

  #cancelRetry(entry) {
    if (entry.retry) this.timers.clearTimeout(entry.retry);
    entry.retry = null;
  }

  #rejectPending(code, key, message) {
    for (const [id, entry] of this.pending) {
      this.#cancelRetry(entry);
      entry.reject(new RollbridgeError(code, message(id), undefined, { key, data: { id } }));
    }
    this.pending.clear();
    this.own.clear();
  }

  #refused(reply) {
    this.#clearTimers();
    const socket = this.socket;
    this.socket = null;
    this.#setStatus("refused", { code: reply?.code ?? "unauthorized", message: reply?.message ?? "" });
    if (socket) {
      try { socket.close(CLOSE_STOPPED); } catch { /* closed */ }
    }
    // the token no longer opens the table (refused, revoked, table deleted): nothing will answer
    this.#rejectPending("refused", "ROLLBRIDGE.Error.RefusedUnanswered",
      (id) => `request ${id} was not answered: the server refused this connection's token`);
  }

  /** The connection closed with `code`; `refusal`: the hello's error reply that
   * closed it (a refusal that does not refuse the token). */
  #closed(code, reason, refusal = null) {
    this.socket = null;
    this.#clearTimers();
    if (this.status === "refused" || this.status === "stopped") return;
    if (code === CLOSE_AUTH && this.status === "connected") {
      this.#refused({ code: "unauthorized", message: reason || "the server refused the token" });
      return;
    }
    // 1008 before the hello was answered, and without the hello's refusal (which
    // comes first, and refuses): the server closed a connection whose hello it had
    // not read within its hello timeout (docs/protocol.md, close codes) — a line
    // that stalled, a page frozen as it connected. It never read the token: tried
    // again, as any close.
    this.stats.drops += 1;
    this.log("warn", `connection closed (${code}${reason ? `: ${reason}` : ""})`);
    this.#retry(undefined, refusal);
  }

  /** Reconnect after the backoff; `reason` "gap" when the client closed a good
   * connection itself to resume past a gap (the status says so: no outage to tell).
   * `refusal`: the hello's error reply, whose `retry_after` (`rate_limited`) is
   * waited at least, and which the status carries. */
  #retry(reason, refusal = null) {
    let delay = backoffDelay(this.attempt, this.random);
    const hinted = Number(refusal?.details?.retry_after);
    let serversWait = 0;
    if (refusal?.code === "rate_limited" && Number.isFinite(hinted) && hinted > 0) {
      serversWait = Math.min(HELLO_WAIT_CAP_MS, Math.ceil(hinted * 1000));
      delay = Math.max(delay, serversWait);
    }
    this.attempt += 1;
    const detail = { delay, attempt: this.attempt };
    if (reason) detail.reason = reason;
    if (refusal) detail.refusal = { code: String(refusal.code), message: String(refusal.message ?? "") };
    this.#setStatus("waiting", detail);
    this.log("info", `reconnecting in ${delay} ms (attempt ${this.attempt})`);
    this.#timer = this.timers.setTimeout(() => {
      this.#timer = null;
      this.#open();
    }, delay);
    if (serversWait) {
      this.#serversWait = this.timers.setTimeout(() => {
        this.#serversWait = null;
      }, serversWait);
    }
  }

  #schedulePing() {
    if (!this.pingInterval) return;
    this.#pingTimer = this.timers.setTimeout(() => {
      this.#pingTimer = null;
      this.#ping();
    }, this.pingInterval);
  }

  /** A ping now; no answer within the ping's timeout closes the connection. */
  #ping() {
    if (!this.connected) return;
    this.#pingCount += 1;
    this.#send({ type: "ping", id: `ping-${this.#pingCount}` });
    this.#pongTimer = this.timers.setTimeout(() => {
      this.#pongTimer = null;
      this.log("warn", `no answer to ping within ${this.pingTimeout} ms; reconnecting`);
      const socket = this.socket;
      this.socket = null;
      if (socket) {
        try { socket.close(CLOSE_NO_PONG, "no pong"); } catch { /* closed */ }
      }
      this.#closed(CLOSE_NO_PONG, "no pong");
    }, this.pingTimeout);
  }

  /** Any frame proves the connection alive: the ping cycle starts again. */
  #alive() {
    if (this.status !== "connected") return;
    if (this.#pongTimer !== null) {
      this.timers.clearTimeout(this.#pongTimer);
      this.#pongTimer = null;
    }
    if (this.#pingTimer !== null) this.timers.clearTimeout(this.#pingTimer);
    this.#pingTimer = null;
    this.#schedulePing();
  }

  #clearTimers() {
    for (const handle of [this.#timer, this.#serversWait, this.#pingTimer, this.#pongTimer]) {
      if (handle !== null && handle !== undefined) this.timers.clearTimeout(handle);
    }
    this.#timer = null;
    this.#serversWait = null;
    this.#pingTimer = null;
    this.#pongTimer = null;
  }
}
