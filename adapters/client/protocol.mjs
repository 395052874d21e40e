// rollbridge's wire protocol v1 as its browser clients speak it (the Foundry
// module, and any other that loads it): frames, request ids, the hello, errors.
//
// Shared by every rollbridge client that runs in a browser or Node: it knows no
// VTT. A client names its dialect in the hello (`rollbridge`, the protocol's own;
// `foundry`, the Foundry module's: adapters/foundry/module/scripts/core/protocol.mjs).
// Frames are JSON text frames: the measurement behind choosing JSON over msgpack
// is in docs/foundry.md.

export const PROTOCOL = 1;

/** The protocol's own dialect, which needs no adapter at the server. */
export const NATIVE_DIALECT = "rollbridge";

/** A fresh request id. Ids are idempotency keys at the server: a retry reuses
 * its id, a new request never reuses one (across reloads too), hence random. */
export function newRequestId(prefix = "rb") {
  const c = globalThis.crypto;
  if (c?.randomUUID) return `${prefix}-${c.randomUUID()}`;
  const bytes = new Uint8Array(16);
  if (c?.getRandomValues) c.getRandomValues(bytes);
  else for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(Math.random() * 256);
  return `${prefix}-${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/** One message as a frame (JSON text). */
export function encodeFrame(message) {
  return JSON.stringify(message);
}

/** A received frame as a message; throws on anything but a JSON object. */
export function decodeFrame(data) {
  if (typeof data !== "string") {
    throw new Error("rollbridge: expected a JSON text frame (browser clients speak JSON)");
  }
  const message = JSON.parse(data);
  if (!message || typeof message !== "object" || Array.isArray(message)) {
    throw new Error("rollbridge: a frame must hold an object");
  }
  return message;
}

/** Whether `lang` can go in a hello's `locale`: a language tag or POSIX locale
 * name as the server takes it (at most 35 characters). */
export function isLocaleTag(lang) {
  return typeof lang === "string" && lang.length <= 35 && /^[A-Za-z]{1,8}([-_.@][A-Za-z0-9]{1,8})*$/.test(lang);
}

/** The `hello` that opens a connection (and resumes after a drop). Results come
 * "brief": a result names the event it reports (`seq`), which arrives as an
 * `event` frame just before it, instead of carrying the whole event again.
 * `locale` is the user's language (Foundry's game.i18n.lang): the server renders
 * every text it sends this connection in it, or says in the welcome's `notes`
 * that it has no such locale (localeNotice). */
export function helloMessage({ id, table, token, cursor, client, locale, dialect = NATIVE_DIALECT }) {
  const hello = { type: "hello", id, table, token, dialect, results: "brief" };
  if (client) hello.client = client;
  if (isLocaleTag(locale)) hello.locale = locale;
  if (cursor && Number.isInteger(cursor.epoch) && Number.isInteger(cursor.seq)) {
    hello.resume = { epoch: cursor.epoch, seq: cursor.seq };
  }
  return hello;
}

/** An error reply as an Error carrying the protocol's code. An error the module
 * raises itself also carries `key` and `data`: the glue shows the user
 * i18n.format(key, data) (errorText); `message` is for developers' consoles. A
 * server's error has no key: its message is already in the user's language. */
export class RollbridgeError extends Error {
  /**
   * @param {string} code
   * @param {string} [message]
   * @param {any} [details]
   * @param {{key?: string, data?: object}} [extra]
   */
  constructor(code, message, details, { key, data } = {}) {
    super(message || code);
    this.name = "RollbridgeError";
    this.code = code;
    this.details = details;
    if (key) {
      this.key = key;
      this.data = data ?? {};
    }
  }
}

/** An error as a support line: its own text (the module's errors), or the
 * server's code and message (`not_found: …`), for a console or a log; the user is
 * shown errorMessage. */
export function errorText(error, i18n) {
  if (error?.key) return i18n.format(error.key, error.data ?? {});
  const message = error?.message ?? String(error);
  return error?.code ? `${error.code}: ${message}` : message;
}

/** An error's words alone, for a reader who needs no code (a player on the web
 * view): its own text (the module's errors), else the server's message (already
 * in the user's language), else its code. */
export function errorMessage(error, i18n) {
  if (error?.key) return i18n.format(error.key, error.data ?? {});
  return error?.message || error?.code || String(error);
}

/**
 * The notice for a welcome whose server has no texts in the language the hello
 * asked for (a `locale_unavailable` note), or null: {key, data, message} with
 * `message` the server's own note (in the locale it fell back to).
 */
export function localeNotice(welcome, asked) {
  const note = (welcome?.notes ?? []).find((n) => n?.code === "locale_unavailable");
  if (!note) return null;
  return {
    key: "ROLLBRIDGE.Notice.LocaleUnavailable",
    data: { asked: String(asked ?? "?"), used: String(welcome.locale ?? "?") },
    message: String(note.message ?? ""),
  };
}

export function errorFromReply(reply) {
  if (reply.message) return new RollbridgeError(reply.code || "error", reply.message, reply.details);
  return new RollbridgeError(reply.code || "error", "the server refused", reply.details, {
    key: "ROLLBRIDGE.Error.ServerRefused", data: { code: String(reply.code || "error") },
  });
}

