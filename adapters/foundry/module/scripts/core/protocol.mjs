// The Foundry dialect of rollbridge's wire protocol v1, as the module speaks it:
// its messages (`foundry.roll`, `foundry.resolve`), roll modes and chat commands.
// What every browser client shares (frames, request ids, the hello, errors) is
// the shared client's (adapters/client/protocol.mjs, bundled into the module's
// scripts/client/ by the release build); it is re-exported here.
//
// Foundry-independent (tests/foundry/js/).

import {
  errorMessage,
  helloMessage as sharedHello,
  newRequestId as sharedRequestId,
  RollbridgeError,
} from "../client/protocol.mjs";

export {
  decodeFrame,
  encodeFrame,
  errorFromReply,
  errorMessage,
  errorText,
  isLocaleTag,
  localeNotice,
  PROTOCOL,
  RollbridgeError,
} from "../client/protocol.mjs";

export const DIALECT = "foundry";

/** A fresh request id (the shared client's, prefixed `fvtt`). */
export function newRequestId(prefix = "fvtt") {
  return sharedRequestId(prefix);
}

/** A Foundry user id as a request id may name it: Foundry's ids are 16 letters and
 * digits; at most 22 keep the id within the protocol's 64 characters. */
const USER_ID = /^[A-Za-z0-9]{1,22}$/;
/** A request id userRequestId made: `fvtt@<user id>-<random>`. */
const NAMED_ID = /^fvtt@([A-Za-z0-9]{1,22})-/;

/**
 * A fresh request id naming the Foundry user who asks: `fvtt@<user id>-<random>`.
 * The server's event of the request carries the id (`request`) to every client,
 * so a card of the event names its requester, whom Foundry's own author of a
 * player's card can be compared with (core/state.mjs cardTrusted). A user id that
 * cannot be named so gets a plain id (`fvtt-<random>`), which names nobody.
 * @param {unknown} userId
 * @returns {string}
 */
export function userRequestId(userId) {
  const named = userPrefix(userId);
  return named ? newRequestId(named) : newRequestId();
}

/**
 * The id a caller chose (a macro's own, through `api.request`) as this module sends it:
 * naming the Foundry user who asks too, `fvtt@<user id>-<caller's id>`, so that the
 * user's own card of the request, posted while no GM is active, counts as its card
 * (core/state.mjs cardTrusted) and the GM's client resuming posts no second one. An id
 * that names the user already is kept; one past the protocol's 64 characters so
 * named becomes `fvtt@<user id>-<hash of the caller's id>` (idHash). Characters are
 * counted as the server counts them, by code point (an emoji is one, not two). The same
 * caller's id gives the same id, so a macro's repeat is still one request. A user id
 * that cannot be named so, and an id the protocol refuses (takesId: empty, past 64
 * characters, a control character in it; the server says why), are sent as the caller
 * gave them: never hashed into an id the server would take.
 * @param {string} id
 * @param {unknown} userId
 * @returns {string}
 */
export function namingRequestId(id, userId) {
  const named = userPrefix(userId);
  if (!named || !takesId(id) || requestUser(id) === userId) return id;
  const whole = `${named}-${id}`;
  return codePoints(whole) <= 64 ? whole : `${named}-${idHash(id)}`;
}

/** What the protocol refuses in a request id (docs/protocol.md, "Requests and replies"):
 * C0, DEL and C1 controls, the line and paragraph separators, the bidirectional
 * controls (the server's rollbridge.visible NOT_IN_NAMES), and a lone surrogate. */
const NOT_IN_ID = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The length of `text` as the server counts it: in code points. */
function codePoints(text) {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/**
 * Whether the protocol takes `id` as a string request id: 1 to 64 code points, none
 * of them one it refuses (NOT_IN_ID).
 * @param {unknown} id
 * @returns {boolean}
 */
export function takesId(id) {
  if (typeof id !== "string") return false;
  const length = codePoints(id);
  return length >= 1 && length <= 64 && !NOT_IN_ID.test(id);
}

/**
 * A short hash of `key` for an id, the same every time: FNV-1a, 2×32 bits, as 16 hex digits.
 * @param {string} key
 * @returns {string}
 */
export function idHash(key) {
  const fnv = (seed) => {
    let h = seed >>> 0;
    for (let i = 0; i < key.length; i++) {
      h ^= key.charCodeAt(i);
      h = Math.imul(h, 0x01000193) >>> 0;
    }
    return h.toString(16).padStart(8, "0");
  };
  return fnv(0x811c9dc5) + fnv(0x050c5d1f);
}

/**
 * How a request id names the Foundry user who asks, `fvtt@<user id>` (what
 * requestUser reads before its `-`), or null for a user id that cannot be named so.
 * An id made otherwise (an apply's, core/buttons.mjs applyRequestId) starts with it
 * too, so a player's card of it counts as that user's.
 * @param {unknown} userId
 * @returns {string | null}
 */
export function userPrefix(userId) {
  return typeof userId === "string" && USER_ID.test(userId) ? `fvtt@${userId}` : null;
}

/**
 * The Foundry user a request id names (userRequestId), or null: an id of another
 * client, of a macro's own choosing, or of a module older than this.
 * @param {unknown} requestId
 * @returns {string | null}
 */
export function requestUser(requestId) {
  const match = typeof requestId === "string" ? NAMED_ID.exec(requestId) : null;
  return match ? match[1] : null;
}

/**
 * What a notification shows of an error: its words alone (errorMessage) — the
 * module's own text in the user's language, or the server's message, which the
 * server already rendered in it. The error's code (`invalid_params`, `forbidden`:
 * the protocol's words, not a player's) is not shown; `log` (the browser
 * console's warn) gets it, on the line `rollbridge | <context>: <code>: <message>`,
 * for whoever helps the user. An error without a code (no connection) logs nothing.
 * The words come as a notification's text (noticeText): a name in them is shown as
 * written, never read as markup; with `escaped` false as they are, for a caller that
 * escapes the values it formats (FoundryClient#notify), so they are escaped once.
 * @param {any} error
 * @param {{format: Function, localize?: Function}} i18n
 * @param {{context?: string, log?: (line: string) => void, escaped?: boolean}} [options]
 * @returns {string}
 */
export function shownError(error, i18n, { context = "refused", log = console.warn, escaped = true } = {}) {
  if (error?.code) log(`rollbridge | ${context}: ${error.code}: ${error.message ?? ""}`);
  const words = errorMessage(error, i18n);
  return escaped ? noticeText(words) : words;
}

const NOTICE_ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;" };

/**
 * `text` as the text of a notification: Foundry reads a notification's message as
 * HTML (v12 puts it in the page as it is; v13 only cleans it), so a server's message
 * naming a weapon or an actor off a sheet a player wrote (`<img onerror=…>`) would be
 * markup on the GM's page. Its `&`, `<` and `>` are escaped: it reads as written.
 * @param {string} text
 * @returns {string}
 */
export function noticeText(text) {
  return String(text ?? "").replace(/[&<>]/g, (c) => NOTICE_ESCAPES[c]);
}

/**
 * The values a notification's words are formatted with (`game.i18n.format`), each as
 * text (noticeText): a table id from the server URL, a combat's name, a JSON error
 * quoting what a user typed. The module passes a notification its finished text and
 * no `format`, `localize` or `escape` option, on v12 and v13 alike (docs/foundry.md,
 * "Refusals and their codes"), so each value is escaped here, once.
 * @param {Record<string, unknown> | undefined} data
 * @returns {Record<string, string>}
 */
export function noticeData(data) {
  return Object.fromEntries(Object.entries(data ?? {}).map(([name, value]) => [name, noticeText(String(value ?? ""))]));
}

/** The shared hello (adapters/client/protocol.mjs) in the Foundry dialect. */
export function helloMessage(fields) {
  return sharedHello({ ...fields, dialect: DIALECT });
}

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

/** A `foundry.roll`: a formula (or a Roll's JSON) for the server to roll, or an
 * evaluated Roll's JSON whose results are supplied.
 * @param {{id?: string, formula?: string, roll?: any, speaker?: any, actor?: any, flavor?: string, rollMode?: string, source?: any}} fields
 */
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

/** A `foundry.resolve`: a ruleset action.
 * @param {{id?: string, action: string, speaker?: any, actor?: any, targets?: any, params?: any, rollMode?: string, dice?: any}} fields
 */
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

/** Foundry's flavour text: a label in square brackets after a dice term (`2d6[fire]`). */
const LABEL = /\[[^\]]*\]/g;

/**
 * A formula without its labels, its spaces as the server's Foundry adapter leaves
 * them (adapters/foundry/dice_in.py formula_of): what a Foundry roll of the formula
 * rolls, so that `/rb odds 2d6[fire]` asks the odds of what `/rb 2d6[fire]` rolls.
 * @param {string} formula
 * @returns {string}
 */
export function withoutLabels(formula) {
  return String(formula).replace(LABEL, "").split(/\s+/).filter(Boolean).join(" ");
}

/** `/rb odds` with nothing to ask the odds of. Its text shows `{params}` as it is:
 * Foundry's i18n.format puts the data's `params` there (undefined, were it left out). */
const NO_ODDS = Object.freeze({ kind: "error", key: "ROLLBRIDGE.Chat.Error.NoOdds", data: Object.freeze({ params: "{params}" }) });

/**
 * A chat command typed in Foundry's chat box, or null when the text is not one.
 * A command that cannot be read is {kind: "error", key, data}: the glue shows
 * i18n.format(key, data).
 *
 *   /rb 2d6+1                    roll notation (server dice)
 *   /rb 2d6+1 # Dodge            … with a label
 *   /rb do attack guard {"weapon": "Hackler", "range": "short"}
 *                                resolve an action: targets, then JSON params
 *   /rb do attack guard          the action's dialog (its params in a form):
 *                                {kind: "dialog", action, targets}
 *   /rb do                       pick one of the table's actions: {kind: "pick"}
 *   /rb odds 2d6+1               the odds of a formula, before rolling it (its
 *                                labels dropped, as a roll's are: /rb odds 2d6[fire])
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
    if (!what) return NO_ODDS;
    const first = what.split(/[\s{]/)[0];
    // an action is a name (not dice notation such as d6, d%, 2d6)
    if (/^[A-Za-z_][A-Za-z0-9_.:-]*$/.test(first) && !/^d(\d|%)/i.test(first)) {
      const action = actionCommand(what);
      return action.kind === "error" ? action : { ...action, kind: "odds" };
    }
    const formula = withoutLabels(what);
    if (!formula) return NO_ODDS;
    return { kind: "odds", formula };
  }
  const doMatch = /^do(?:\s+([\s\S]*))?$/i.exec(rest);
  if (doMatch) {
    const what = (doMatch[1] ?? "").trim();
    if (!what) return { kind: "pick" };
    const action = actionCommand(what);
    // no {params}: the action's dialog asks for them (foundry/dialog.mjs)
    if (action.kind === "resolve" && !what.includes("{")) return { kind: "dialog", action: action.action, targets: action.targets };
    return action;
  }
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
