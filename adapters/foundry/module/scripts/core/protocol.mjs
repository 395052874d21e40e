// The Foundry dialect of rollbridge's wire protocol v1, as the module speaks it:
// frames, messages, request ids, chat commands.
//
// Foundry-independent (tests/foundry/js/). Frames are JSON text frames: the
// measurement behind choosing JSON over msgpack is in docs/foundry.md.

export const PROTOCOL = 1;
export const DIALECT = "foundry";

/** Foundry's roll modes; gmroll, blindroll and selfroll are secret (GM only). */
export const ROLL_MODES = ["publicroll", "gmroll", "blindroll", "selfroll"];

/** The secret modes whose roller reads their own roll (Foundry's gmroll: the GMs and
 * the roller; selfroll: the roller only): the request asks `requester_sees`, and the
 * server's reply to the roller carries the players' view of the secret event. */
export const REQUESTER_MODES = ["gmroll", "selfroll"];

/**
 * The request fields of a roll mode at the server: none for a public roll,
 * `secret` for a blind one, `secret` and `requester_sees` for a GM or self roll
 * (the event stays GM-only for every connection; only the roller's reply
 * carries it, as players would see it were it not secret).
 */
export function secretFields(mode) {
  const normal = mode === "roll" ? "publicroll" : mode;
  if (REQUESTER_MODES.includes(normal)) return { secret: true, requester_sees: true };
  if (normal === "blindroll") return { secret: true };
  return {};
}

/** A fresh request id. Ids are idempotency keys at the server: a retry reuses
 * its id, a new request never reuses one (across reloads too), hence random. */
export function newRequestId(prefix = "fvtt") {
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
    throw new Error("rollbridge: expected a JSON text frame (the module speaks JSON)");
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
 * `locale` is the user's Foundry language (game.i18n.lang): the server renders
 * every text it sends this connection in it, or says in the welcome's `notes`
 * that it has no such locale (localeNotice). */
export function helloMessage({ id, table, token, cursor, client, locale }) {
  const hello = { type: "hello", id, table, token, dialect: DIALECT, results: "brief" };
  if (client) hello.client = client;
  if (isLocaleTag(locale)) hello.locale = locale;
  if (cursor && Number.isInteger(cursor.epoch) && Number.isInteger(cursor.seq)) {
    hello.resume = { epoch: cursor.epoch, seq: cursor.seq };
  }
  return hello;
}

/** A `foundry.roll`: a formula (or a Roll's JSON) for the server to roll, or an
 * evaluated Roll's JSON whose results are supplied. */
export function rollMessage({ id, formula, roll, speaker, actor, flavor, rollMode, source }) {
  const rollJson = roll ?? { class: "Roll", formula, terms: [], evaluated: false };
  if (!rollJson.formula) {
    throw new RollbridgeError("invalid", "rollbridge: a roll needs a formula", undefined, { key: "ROLLBRIDGE.Error.NoFormula" });
  }
  const message = { type: "foundry.roll", id, roll: rollJson };
  if (speaker) message.speaker = speaker;
  if (actor !== undefined) message.actor = actor;
  if (flavor) message.flavor = flavor;
  if (rollMode) Object.assign(message, { rollMode: checkRollMode(rollMode), ...secretFields(rollMode) });
  if (source) message.source = source;
  return message;
}

/** A `foundry.resolve`: a ruleset action. */
export function resolveMessage({ id, action, speaker, actor, targets, params, rollMode, dice }) {
  if (!action) {
    throw new RollbridgeError("invalid", "rollbridge: an action is needed", undefined, { key: "ROLLBRIDGE.Error.NoAction" });
  }
  const message = { type: "foundry.resolve", id, action, targets: targets ?? [], params: params ?? {} };
  if (speaker) message.speaker = speaker;
  if (actor !== undefined) message.actor = actor;
  if (rollMode) Object.assign(message, { rollMode: checkRollMode(rollMode), ...secretFields(rollMode) });
  if (dice) message.dice = dice;
  return message;
}

function checkRollMode(mode) {
  if (mode === "roll") return "publicroll";
  if (!ROLL_MODES.includes(mode)) {
    throw new RollbridgeError("invalid", `rollbridge: unknown roll mode ${mode}`, undefined, {
      key: "ROLLBRIDGE.Error.RollMode", data: { mode: String(mode), modes: ROLL_MODES.join(", ") },
    });
  }
  return mode;
}

/** An error reply as an Error carrying the protocol's code. An error the module
 * raises itself also carries `key` and `data`: the glue shows the user
 * i18n.format(key, data) (errorText); `message` is for developers' consoles. A
 * server's error has no key: its message is already in the user's language. */
export class RollbridgeError extends Error {
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

/** What the user is shown of an error: its own text (the module's errors), or
 * the server's code and message (already in the user's language). */
export function errorText(error, i18n) {
  if (error?.key) return i18n.format(error.key, error.data ?? {});
  const message = error?.message ?? String(error);
  return error?.code ? `${error.code}: ${message}` : message;
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

/**
 * A chat command typed in Foundry's chat box, or null when the text is not one.
 * A command that cannot be read is {kind: "error", key, data}: the glue shows
 * i18n.format(key, data).
 *
 *   /rb 2d6+1                    roll notation (server dice)
 *   /rb 2d6+1 # Dodge            … with a label
 *   /rb do attack guard {"weapon": "Hackler", "range": "short"}
 *                                resolve an action: targets, then JSON params
 *   /rb odds 2d6+1               the odds of a formula, before rolling it
 *   /rb odds attack guard {"weapon": "Hackler"}
 *                                the odds of an action: targets, then JSON params
 *   /rb status                   show the connection
 *   /rb help
 */
export function parseChatCommand(text) {
  const match = /^\/(rb|rollbridge)(?:\s+([\s\S]*))?$/i.exec(String(text ?? "").trim());
  if (!match) return null;
  const rest = (match[2] ?? "").trim();
  if (!rest || /^help$/i.test(rest)) return { kind: "help" };
  if (/^status$/i.test(rest)) return { kind: "status" };
  const oddsMatch = /^odds(?:\s+([\s\S]*))?$/i.exec(rest);
  if (oddsMatch) {
    const what = (oddsMatch[1] ?? "").trim();
    if (!what) return { kind: "error", key: "ROLLBRIDGE.Chat.Error.NoOdds", data: {} };
    const first = what.split(/[\s{]/)[0];
    // an action is a name (not dice notation such as d6, d%, 2d6)
    if (/^[A-Za-z_][A-Za-z0-9_.:-]*$/.test(first) && !/^d(\d|%)/i.test(first)) {
      const action = actionCommand(what);
      return action.kind === "error" ? action : { ...action, kind: "odds" };
    }
    return { kind: "odds", formula: what };
  }
  const doMatch = /^do\s+([\s\S]*)$/i.exec(rest);
  if (doMatch) return actionCommand(doMatch[1]);
  const hash = rest.indexOf("#");
  const formula = (hash >= 0 ? rest.slice(0, hash) : rest).trim();
  const label = hash >= 0 ? rest.slice(hash + 1).trim() : "";
  if (!formula) return { kind: "error", key: "ROLLBRIDGE.Chat.Error.NoFormula", data: {} };
  return { kind: "roll", formula, label };
}

/** `ACTION [targets] {params}` as {kind: "resolve", action, targets, params}, or an error. */
function actionCommand(text) {
  const match = /^([A-Za-z0-9_.:-]+)\s*([\s\S]*)$/.exec(text.trim());
  if (!match) return { kind: "error", key: "ROLLBRIDGE.Chat.Error.NoFormula", data: {} };
  const [, action, tail] = match;
  const brace = tail.indexOf("{");
  const targetText = brace >= 0 ? tail.slice(0, brace) : tail;
  let params = {};
  if (brace >= 0) {
    try {
      params = JSON.parse(tail.slice(brace));
    } catch (error) {
      return { kind: "error", key: "ROLLBRIDGE.Chat.Error.ParamsNotJson", data: { error: error.message } };
    }
    if (!params || typeof params !== "object" || Array.isArray(params)) {
      return { kind: "error", key: "ROLLBRIDGE.Chat.Error.ParamsNotObject", data: {} };
    }
  }
  const targets = targetText.split(/[\s,]+/).filter(Boolean);
  return { kind: "resolve", action, targets, params };
}
