// The Foundry dialect of rollbridge's wire protocol v1, as the module speaks it:
// frames, messages, request ids, chat commands.
//
// Foundry-independent (tests/foundry/js/). Frames are JSON text frames: the
// measurement behind choosing JSON over msgpack is in docs/foundry.md.

export const PROTOCOL = 1;
export const DIALECT = "foundry";

/** Foundry's roll modes; gmroll, blindroll and selfroll are secret (GM only). */
export const ROLL_MODES = ["publicroll", "gmroll", "blindroll", "selfroll"];

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

/** The `hello` that opens a connection (and resumes after a drop). Results come
 * "brief": a result names the event it reports (`seq`), which arrives as an
 * `event` frame just before it, instead of carrying the whole event again. */
export function helloMessage({ id, table, token, cursor, client }) {
  const hello = { type: "hello", id, table, token, dialect: DIALECT, results: "brief" };
  if (client) hello.client = client;
  if (cursor && Number.isInteger(cursor.epoch) && Number.isInteger(cursor.seq)) {
    hello.resume = { epoch: cursor.epoch, seq: cursor.seq };
  }
  return hello;
}

/** A `foundry.roll`: a formula (or a Roll's JSON) for the server to roll, or an
 * evaluated Roll's JSON whose results are supplied. */
export function rollMessage({ id, formula, roll, speaker, actor, flavor, rollMode, source }) {
  const rollJson = roll ?? { class: "Roll", formula, terms: [], evaluated: false };
  if (!rollJson.formula) throw new Error("rollbridge: a roll needs a formula");
  const message = { type: "foundry.roll", id, roll: rollJson };
  if (speaker) message.speaker = speaker;
  if (actor !== undefined) message.actor = actor;
  if (flavor) message.flavor = flavor;
  if (rollMode) message.rollMode = checkRollMode(rollMode);
  if (source) message.source = source;
  return message;
}

/** A `foundry.resolve`: a ruleset action. */
export function resolveMessage({ id, action, speaker, actor, targets, params, rollMode, dice }) {
  if (!action) throw new Error("rollbridge: an action is needed");
  const message = { type: "foundry.resolve", id, action, targets: targets ?? [], params: params ?? {} };
  if (speaker) message.speaker = speaker;
  if (actor !== undefined) message.actor = actor;
  if (rollMode) message.rollMode = checkRollMode(rollMode);
  if (dice) message.dice = dice;
  return message;
}

function checkRollMode(mode) {
  if (mode === "roll") return "publicroll";
  if (!ROLL_MODES.includes(mode)) throw new Error(`rollbridge: unknown roll mode ${mode}`);
  return mode;
}

/** An error reply as an Error carrying the protocol's code. */
export class RollbridgeError extends Error {
  constructor(code, message, details) {
    super(message || code);
    this.name = "RollbridgeError";
    this.code = code;
    this.details = details;
  }
}

export function errorFromReply(reply) {
  return new RollbridgeError(reply.code || "error", reply.message || "the server refused", reply.details);
}

/**
 * A chat command typed in Foundry's chat box, or null when the text is not one.
 *
 *   /rb 2d6+1                    roll notation (server dice)
 *   /rb 2d6+1 # Dodge            … with a label
 *   /rb do attack guard {"weapon": "Hackler", "range": "short"}
 *                                resolve an action: targets, then JSON params
 *   /rb status                   show the connection
 *   /rb help
 */
export function parseChatCommand(text) {
  const match = /^\/(rb|rollbridge)(?:\s+([\s\S]*))?$/i.exec(String(text ?? "").trim());
  if (!match) return null;
  const rest = (match[2] ?? "").trim();
  if (!rest || /^help$/i.test(rest)) return { kind: "help" };
  if (/^status$/i.test(rest)) return { kind: "status" };
  const doMatch = /^do\s+([A-Za-z0-9_.:-]+)\s*([\s\S]*)$/i.exec(rest);
  if (doMatch) {
    const [, action, tail] = doMatch;
    const brace = tail.indexOf("{");
    const targetText = brace >= 0 ? tail.slice(0, brace) : tail;
    let params = {};
    if (brace >= 0) {
      try {
        params = JSON.parse(tail.slice(brace));
      } catch (error) {
        return { kind: "error", message: `the parameters are not JSON: ${error.message}` };
      }
      if (!params || typeof params !== "object" || Array.isArray(params)) {
        return { kind: "error", message: "the parameters must be a JSON object" };
      }
    }
    const targets = targetText.split(/[\s,]+/).filter(Boolean);
    return { kind: "resolve", action, targets, params };
  }
  const hash = rest.indexOf("#");
  const formula = (hash >= 0 ? rest.slice(0, hash) : rest).trim();
  const label = hash >= 0 ? rest.slice(hash + 1).trim() : "";
  if (!formula) return { kind: "error", message: "no dice formula" };
  return { kind: "roll", formula, label };
}
