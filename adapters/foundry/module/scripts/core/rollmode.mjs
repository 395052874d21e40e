// Foundry's roll modes on the server's secret events. Foundry-independent
// (tests/foundry/js/rollmode.test.mjs).
//
// At the server, gmroll, blindroll and selfroll are one thing: a secret
// request, whose event only the GM's connection receives (players get
// `kind: "hidden"`). Foundry gives the four modes different readers, as
// ChatMessage.applyRollMode sets them for the rolling user:
//
//   publicroll  everyone
//   gmroll      the GMs, and the roller (the message's author)
//   blindroll   the GMs only, not even the roller (blind)
//   selfroll    the roller only
//
// The GM's client posts every card, so it applies the mode for the roller
// (applyRollMode would use the GM's own id for a self roll) and makes the
// roller the message's author (a GM may post as another user): Foundry's own
// visibility rules (ChatMessage#visible, #isContentVisible) then show the
// card as they would have had the roller posted it. A whispered card is a
// plain whisper (core/chat.mjs: no `rolls`), which its author always reads,
// so a blind card's author is the GM's client's user, never the roller. The roller's mode reaches the GM's client with the
// request's id: the GM's own requests directly, a player's in a note the
// player's client sends it first (the module's socket; core/relay.mjs). A
// secret event with no note is treated as the server means it: blind.
//
// A player's GM or self roll asks the server for `requester_sees` (with
// `secret`): the event stays GM-only for every connection (the player's gets a
// `hidden` placeholder), but the server's reply to the roller carries it as
// players would see it were it not secret — an NPC's hidden numbers (armour,
// target numbers, boxes) left out as ever. The roller's client posts that card
// itself, whispered to the roller alone (requesterCard); the GM's client posts
// the GM's view to the GMs only for a GM roll, and no card for a self roll
// (Foundry's self roll is the roller's alone; the server's log and the GM's
// connection still have the event). So the roller never reads the GM's view
// of a player's secret event that carries `requester_sees`, and reads their
// own card once. A secret event of a player's without `requester_sees` (an
// older server refused the field, or a blind roll) is as before: a player's
// resolution is shown to the roller blind (the GM's view may hold an NPC's
// hidden numbers), a formula roll (the roller's own dice only) by the mode.

import { REQUESTER_MODES, ROLL_MODES } from "./protocol.mjs";

/** The secret roll modes (the server's `secret: true`). */
export const SECRET_MODES = ["gmroll", "blindroll", "selfroll"];

/** How long the GM's client waits for a player's note before posting a secret card blind. */
export const NOTE_WAIT_MS = 1500;

/** Foundry's roll mode by its older name too ("roll" is publicroll); null when unknown. */
export function normalMode(mode) {
  if (mode === "roll") return "publicroll";
  return ROLL_MODES.includes(mode) ? mode : null;
}

/**
 * ChatMessage.applyRollMode's whisper and blind for `mode`, for the roller
 * `roller` (a user id) rather than the current user: {whisper, blind}.
 * `gms` are the GM users' ids (ChatMessage.getWhisperRecipients("GM")).
 */
export function applyRollMode(mode, { roller, gms }) {
  switch (normalMode(mode)) {
    case "gmroll":
      return { whisper: [...gms], blind: false };
    case "blindroll":
      return { whisper: [...gms], blind: true };
    case "selfroll":
      return { whisper: [roller], blind: false };
    default:
      return { whisper: [], blind: false };
  }
}

/**
 * Who may read the card of `event` and whose it is: {mode, author, whisper,
 * blind}, or null when this (the GM's) client posts no card of it. `note` is
 * {user, mode, gm} for the request that caused the event (null when unknown);
 * `writer` the posting user's id; `gms` the GMs' ids. A public event is public
 * whatever the note says (the server showed it to all).
 */
export function cardAudience({ event, note, writer, gms }) {
  const author = note?.user ?? writer;
  if (!event?.gm_only) return { mode: "publicroll", author, whisper: [], blind: false };
  let mode = normalMode(note?.mode);
  if (!mode || mode === "publicroll") mode = "blindroll"; // secret, with no word of how: blind
  if (!note?.gm && event.data?.requester_sees && REQUESTER_MODES.includes(mode)) {
    // the roller's own client posts the players' view (requesterCard): the GM's
    // card is the GMs' alone, and a self roll has none here
    if (mode === "selfroll") return null;
    return { mode, author: writer, whisper: [...gms], blind: false };
  }
  // a player's resolution: the GM's view is not the player's to read (see above)
  if (!note?.gm && event.kind === "resolution" && mode !== "blindroll") mode = "blindroll";
  const readers = applyRollMode(mode, { roller: author, gms });
  return { mode, author: readers.blind ? writer : author, ...readers };
}

/**
 * The card a player's client posts itself for its own GM or self roll: the
 * reply `reply` to its request carries the event as players would see it
 * (`status: "secret"` with an `event`: the server's `requester_sees`). Returns
 * {event, audience} — the card whispered to the roller `user` alone, the
 * roller its author — or null for any other reply (a blind roll's carries no
 * event; a public or GM's reply's event reaches the card through the event
 * frames). `mode` is the request's roll mode (gmroll when unknown).
 */
export function requesterCard({ reply, user, mode }) {
  const event = reply?.event;
  if (reply?.status !== "secret" || !event || typeof event !== "object" || !user) return null;
  if (event.kind !== "roll" && event.kind !== "resolution") return null;
  const normal = REQUESTER_MODES.includes(normalMode(mode)) ? normalMode(mode) : "gmroll";
  return { event, audience: { mode: normal, author: String(user), whisper: [String(user)], blind: false } };
}

/** Whether `error` is a server's refusal of the `requester_sees` field (a server
 * older than it: its Foundry dialect does not know the field). */
export function refusesRequesterSees(error) {
  const field = String(error?.details?.field ?? "");
  return error?.code === "invalid_request" && /(^|\.)requester_sees$/.test(field);
}

/** `message` without `requester_sees` (for a server that refuses it): still secret. */
export function withoutRequesterSees(message) {
  const { requester_sees: _dropped, ...rest } = message;
  return rest;
}

/**
 * The roll modes of requests, by request id, as the GM's client learns them
 * (its own, and the notes of players' clients). `wait` resolves with the note
 * once it arrives, or with null after `ms`.
 */
export class RollModeNotes {
  constructor({ limit = 500, timers = globalThis } = {}) {
    this.limit = limit;
    this.timers = timers;
    this.notes = new Map();
    this.waiting = new Map();
  }

  /** Keep the mode of request `request`: {user, mode, gm}. An unknown mode is ignored,
   * and so is a later note of a request already noted: the first wins (on v12 a note
   * reaches every client on the module's socket, so another player learns the request
   * id and could otherwise send a note of their own for it, as the roller). */
  note(request, { user, mode, gm = false }) {
    const normal = normalMode(mode);
    if (!request || !user || !normal) return false;
    if (this.notes.has(request)) return false;
    this.notes.set(request, { user: String(user), mode: normal, gm: Boolean(gm) });
    while (this.notes.size > this.limit) this.notes.delete(this.notes.keys().next().value);
    const waiter = this.waiting.get(request);
    if (waiter) waiter(this.notes.get(request));
    return true;
  }

  get(request) {
    return this.notes.get(request) ?? null;
  }

  /** The note of `request`, waiting for it at most `ms`. */
  wait(request, ms = NOTE_WAIT_MS) {
    const known = this.get(request);
    if (known || !request) return Promise.resolve(known);
    return new Promise((resolve) => {
      const done = (note) => {
        this.timers.clearTimeout(timer);
        this.waiting.delete(request);
        resolve(note);
      };
      const timer = this.timers.setTimeout(() => done(null), ms);
      this.waiting.set(request, done);
    });
  }
}

/**
 * Dice So Nice's showForRoll arguments for a whispered card this client (the
 * user `me`) posts: {user, users, blind}. `readers` is the card's audience
 * (cardAudience). `users`: who gets the dice over Dice So Nice's socket — the
 * whisper, and the roller too unless blind. `blind` is Dice So Nice's "blind for
 * the current user" (it decides only whether this client animates them): true
 * when this user is not one of the card's readers (a player's self roll a GM
 * posts), false for a card it may read (a GM or blind roll's, the GMs').
 *
 * `user` is the roller (their dice's look), except when this user ticked Dice
 * So Nice's "Only show my dice" (`onlyOwnDice`): Dice So Nice 5's showForRoll
 * then returns before sending anything for another user's roll, so no reader
 * would see the dice. This user sends them as its own instead (the readers see
 * them, in this user's look) and does not animate them itself (blind), as the
 * option asks.
 */
export function diceSoNiceShow({ readers, me, onlyOwnDice = false }) {
  const whisper = readers?.whisper ?? [];
  const users = readers?.blind ? [...whisper] : [...new Set([...whisper, readers?.author].filter(Boolean))];
  const roller = readers?.author ?? me;
  const others = Boolean(onlyOwnDice) && roller !== me;
  return { user: others ? me : roller, users, blind: others || !users.includes(me) };
}
