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

import { serversField } from "./held.mjs";
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
 * older than it: its Foundry dialect does not know the field) — the server's own
 * (serversField), never a ruleset's validation naming such a field, which until 7
 * December 2026, late, dropped `requester_sees` for the connection. */
export function refusesRequesterSees(error) {
  const field = serversField(error);
  return field !== null && /(^|\.)requester_sees$/.test(field);
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
 * The dice this client animates for a whispered card, as Dice So Nice animates a
 * public card's `rolls` on each client that may read it (foundry/dice.mjs):
 * {rolls, user} — the card's Roll JSON (flags.rollbridge.rolls, the view its
 * readers read) and the user whose dice they are (the message's author: the
 * roller of a GM or self roll, the posting GM of a blind one, whose roller does
 * not read it) — or null: not a rollbridge card, not a whisper (a public card
 * carries its `rolls`: Dice So Nice's own path), a card replayed after a
 * reconnect, no dice, or a card this user does not read (`message.visible` and
 * `isContentVisible`, Foundry's rule for a whisper: its recipients and its
 * author). So the users who see the dice are the card's readers, each on their
 * own screen: the whisper, and the roller too unless blind.
 */
export function whisperedDice(message) {
  const flags = message?.flags?.rollbridge;
  if (!flags || flags.replayed) return null;
  if (!(message.whisper ?? []).length || (message.rolls ?? []).length) return null;
  const rolls = Array.isArray(flags.rolls) ? flags.rolls : [];
  if (!rolls.length || !message.visible || !message.isContentVisible) return null;
  // a message's author is a User in Foundry (its source holds the id)
  const author = message.author?.id ?? message.author ?? null;
  return { rolls, user: typeof author === "string" ? author : null };
}
