// Foundry glue: the buttons on a rendered chat card (core/buttons.mjs decides
// which), from both render hooks — v12's renderChatMessage hands a jQuery
// object, v13's renderChatMessageHTML an HTMLElement — and what a press does:
// the GM's client sends undo, redo, approve (with the GM's own dice written in a
// dialog: approvedice.mjs, or none) or reject (with a reason written in a
// dialog: rejection.mjs) on its connection; a
// target's owner applies the card's follow-up to the targets they selected,
// on their own connection or, without one, through the GM's client (relay.mjs:
// the card's reference and the targets, never a request of the player's making).
// Once a welcome says what undo and redo take, the cards the log drew before it
// are drawn again where that changes their Undo or Redo (redrawUndoButtons); and
// when an event moves what they take, the cards it moves them from and to
// (followUndoButtons).

import { applyRequestId, buttonRequest, buttonsHtml, cardButtons } from "../core/buttons.mjs";
import { OUTCOMES } from "../core/approvals.mjs";
import { serversCode } from "../core/origin.mjs";
import { keptOutcome, validReason } from "../core/outcomes.mjs";
import { shownError } from "../core/protocol.mjs";
import { findActor, MODULE_ID } from "../core/state.mjs";
import { foundryActors } from "./actors.mjs";
import { askDice } from "./approvedice.mjs";
import { askReason } from "./rejection.mjs";
import { askGM } from "./relay.mjs";
import { rootOf } from "./dom.mjs";
import { gmRecord } from "./settings.mjs";


/** What the buttons need from a message's flags.rollbridge, or null for another message. */
export function cardOf(message) {
  const flags = message?.flags?.[MODULE_ID];
  if (!flags || flags.seq === undefined) return null;
  const gmAuthored = authoredByGM(message);
  return {
    table: flags.table ?? null, epoch: flags.epoch, kind: flags.kind, seq: flags.seq, pending: flags.pending ?? null,
    apply: flags.apply ?? null, targets: flags.targets ?? [], actor: flags.actor ?? null,
    // how its request went as written on the card itself: only a GM's card, whose flags
    // only GMs may write (a card of this version has none: core/outcomes.mjs)
    outcome: gmAuthored ? (flags.outcome ?? null) : null,
    writtenReason: gmAuthored ? validReason(flags.reason) : null,
    gmPosted: gmAuthored,
  };
}

/**
 * Whether a GM posted the message: Foundry lets a message's author update its flags
 * (and a player post a message with any flags), so only a GM's message holds words
 * only GMs wrote.
 * @param {any} message
 */
export function authoredByGM(message) {
  // a message's author: a User in Foundry (its source holds the id)
  const author = message?.author?.id ?? message?.author ?? null;
  return typeof author === "string" && Boolean(game.users?.get(author)?.isGM);
}

/**
 * How the request of a pending request's card was settled, as the GM's record says
 * (the world setting `outcomes` as a GM wrote it: settings.mjs gmRecord), else as
 * written on a GM's card before that record (`flags.rollbridge.outcome` and `reason`):
 * {outcome, reason}, or null.
 * @param {any} info  a card (cardOf)
 * @returns {{outcome: string, reason: string | null} | null}
 */
function recordedOutcome(info) {
  const kept = keptOutcome(gmRecord(), info);
  if (kept) return kept;
  if (!OUTCOMES.includes(info.outcome)) return null;
  return { outcome: info.outcome, reason: info.outcome === "rejected" ? info.writtenReason : null };
}

/** Whether the current user owns the Foundry actor of a rollbridge actor. */
function owns(rollbridgeId) {
  return Boolean(findActor(rollbridgeId, foundryActors())?.isOwner);
}

/**
 * The undo tracker that speaks for a card: the client's when the card is of the table
 * the client is at, in the epoch its connection has; else none. A world's chat keeps
 * the cards of other tables and of the table's earlier epochs, whose seqs are another
 * log's: an Undo on such a card #3 would undo this table's #3.
 */
function trackerFor(card, client) {
  return isHere(card, client) ? client.undo : null;
}

/** Whether a card is of the table this client is at, in the epoch its connection has. */
function isHere(card, client) {
  return (card.table ?? null) === (client.table ?? null) && card.epoch === client.connection?.cursor?.epoch;
}

/** The GM's buttons, which need this client's connection to the table. */
const GM_ACTIONS = ["undo", "redo", "approve", "approve-dice", "reject", "reject-reason"];
/** The buttons that settle a pending request. */
const SETTLING = ["approve", "approve-dice", "reject", "reject-reason"];
/** An approve's refusals of the dice held with a player's request (docs/protocol.md). */
const PLAYER_DICE_REFUSALS = ["dice_mismatch", "dice_exhausted", "dice_unused"];
/** The GM's buttons among a card's, as one word ("undo", "approve reject reject-reason",
 * ""), and with a pending request's card the line of how it was settled ("|approved"),
 * with a rejection's reason when known ("|rejected|too late"). */
const gmButtons = (buttons, info) => buttons.filter((b) => GM_ACTIONS.includes(b.action)).map((b) => b.action).join(" ")
  + (info?.approval && info.approval !== "waiting" ? `|${info.approval}` : "")
  + (info?.approval === "rejected" && info.reason ? `|${info.reason}` : "");
/** Whether such a word has an undo or a redo. */
const hasUndoRedo = (shown) => /\b(undo|redo)\b/.test((shown ?? "").split("|")[0]);

/**
 * Where a pending request's card stands for this client: "waiting" (Approve, Reject
 * and Reject with a reason…), "approved" or "rejected" (settled, and this client saw how), "settled"
 * (the table no longer lists it: settled before this client joined, or while it was
 * away with no event of it left to see), or null (not known yet, or not this table's
 * request: no buttons and no line). Only a card of the table this client is at, in
 * the epoch its connection has: another table's "p3" is another request, and an
 * Approve on it would approve this table's p3. What is pending comes from the GM's
 * welcome (`table.pending`, every welcome: a reload's, a reconnect's) and the events
 * after it (client.approvals); before the welcome nothing is known, so a card Foundry
 * draws on a reload shows no button until the welcome says it still waits. A card
 * whose request the GM's record says was approved or rejected (recordedOutcome: the
 * world setting the active GM's client writes, or a GM's card of an earlier version)
 * says Approved or Rejected, before the welcome too, on any page (a player's own
 * card on the player's); what is written on a player's card is never read. One the
 * welcome lists as waiting waits, whatever the record says.
 */
export function approvalState(info, client) {
  if (info?.kind !== "approval.requested" || !info.pending) return null;
  const approvals = client.approvals;
  const known = approvals && isHere(info, client) ? approvals.state(info.pending) : null;
  // how the request went, as the GM's record says: the card's own request, whatever
  // this page saw — unless the server's welcome lists it waiting (and no event settled
  // it since): the server's word is later than any record
  const listed = known === "waiting" && approvals.waiting instanceof Set;
  const recorded = recordedOutcome(info)?.outcome ?? null;
  if (recorded && !OUTCOMES.includes(known) && !listed) return recorded;
  return known;
}

/** The buttons of a card for this user and client, as they are now (`withApply`:
 * an owner's apply too, which looks through the actors; the GM's need not). */
function buttonsOf(info, client, { withApply = true } = {}) {
  if (info.pending) {
    info.approval = approvalState(info, client);
    // Approve and Reject only on a card a GM's client posted, whose words of what is
    // asked are the server's: the module posts every approval card so, and a message a
    // player posted flagged as their request's card says what they wrote
    info.settled = info.approval !== "waiting" || info.gmPosted === false;
    // the GM's reason: as this page saw the rejection's event, else as the GM's record
    // keeps it (recordedOutcome) — the card's own request's, whatever table or epoch
    // this page is at, and whoever posted the card
    const seen = isHere(info, client) ? (client.approvals?.reason(info.pending) ?? null) : null;
    const recorded = info.approval === "rejected" ? recordedOutcome(info) : null;
    info.reason = seen ?? (recorded?.outcome === "rejected" ? recorded.reason : null);
  }
  return cardButtons({
    card: info, user: game.user, tracker: trackerFor(info, client), owns: withApply ? owns : undefined,
    connected: Boolean(client.connection),
  });
}

/** message → the GM's buttons its card was last drawn with (null: its element had no card to draw on). */
const drawn = new WeakMap();
/** The cards drawn here, to find a seq's without walking the log: seq → the ids of its messages. */
const drawnBySeq = new Map();
/** The ids of the messages whose card was last drawn with an Undo or Redo. */
const drawnWithUndoRedo = new Set();
/** The cards of pending requests drawn here: pending id → the ids of its messages. */
const drawnByPending = new Map();

function noteDrawn(message, seq, shown, pending = null) {
  drawn.set(message, shown);
  if (!drawnBySeq.has(seq)) drawnBySeq.set(seq, new Set());
  drawnBySeq.get(seq).add(message.id);
  if (pending) {
    if (!drawnByPending.has(pending)) drawnByPending.set(pending, new Set());
    drawnByPending.get(pending).add(message.id);
  }
  if (hasUndoRedo(shown)) drawnWithUndoRedo.add(message.id);
  else drawnWithUndoRedo.delete(message.id);
}

/** Add the card's buttons to a rendered message; returns how many. */
export function addButtons(message, html, client) {
  const root = rootOf(html);
  const card = root?.querySelector?.(".rollbridge-card");
  const info = cardOf(message);
  if (!info) return 0;
  if (!card) {
    drawn.set(message, null);
    return 0;
  }
  const buttons = buttonsOf(info, client);
  noteDrawn(message, info.seq, gmButtons(buttons, info), info.pending);
  card.querySelector(".rollbridge-buttons")?.remove();
  // a settled request's card: no Approve or Reject, and a line saying how it went
  const settled = info.approval && info.approval !== "waiting" ? info.approval : null;
  const shown = buttonsHtml(buttons, game.i18n, { settled, reason: info.reason ?? null });
  if (shown) card.insertAdjacentHTML("beforeend", shown);
  if (!buttons.length) return 0;
  card.querySelector(".rollbridge-buttons").addEventListener("click", (event) => {
    const button = event.target?.closest?.("[data-rollbridge-action]");
    if (!button || button.disabled) return;
    event.preventDefault?.();
    button.disabled = true;
    press(button.dataset.rollbridgeAction, info, client).finally(() => {
      button.disabled = false;
    });
  });
  return buttons.length;
}

/**
 * Draw again the cards in the chat log whose Undo or Redo is no longer what the
 * tracker says: after the welcome seeded it (`undo_redo`), the cards Foundry drew
 * before it — a reload draws the log before the connection is welcomed — get
 * theirs, and a card that showed one the new stacks do not have loses it. So do
 * Approve and Reject: a GM who just became the active GM gets them on the cards it
 * drew without them, and a request settled meanwhile loses them. Only
 * messages Foundry shows in the log (ChatMessage#logged), each redrawn in place by
 * ChatLog#updateMessage (v12 and v13: the render hooks run again, addButtons with
 * them); a message Foundry has not drawn (older than the log's batch) is left to
 * be drawn when it is. Nothing is sent. Returns how many it redrew.
 */
export function redrawUndoButtons(client) {
  return redrawStale(game.messages?.contents ?? [], client);
}

/**
 * After an event moved what undo or redo take (a change, an undo, a redo, here or
 * another GM's): draw again, as redrawUndoButtons does, only the cards it concerns
 * — those last drawn with an Undo or Redo, and those of the events undo and redo
 * now take — found by what addButtons noted, not by walking the log. A card not
 * drawn yet (the new event's, while Foundry draws it) gets its buttons when it is.
 * Returns how many it redrew.
 */
export function followUndoButtons(client) {
  const messages = new Map();
  const take = (ids) => {
    for (const id of ids) {
      const message = game.messages?.get(id);
      if (message) messages.set(id, message);
      else ids.delete(id); // deleted, or another world's
    }
  };
  take(drawnWithUndoRedo);
  for (const seq of new Set([client.undo.latestUndo(), client.undo.latestRedo()])) {
    const ids = drawnBySeq.get(seq);
    if (!ids) continue;
    take(ids);
    if (!ids.size) drawnBySeq.delete(seq);
  }
  return redrawStale(messages.values(), client);
}

/**
 * After pending requests were approved or rejected (here, by another GM, in the web
 * view): draw again, in place, the cards of theirs drawn here, which lose their
 * Approve and Reject. Found by what addButtons noted. Returns how many it redrew.
 */
export function redrawSettled(client, pendings) {
  const messages = new Map();
  for (const pending of pendings) {
    const ids = drawnByPending.get(pending);
    if (!ids) continue;
    drawnByPending.delete(pending);
    for (const id of ids) {
      const message = game.messages?.get(id);
      if (message) messages.set(id, message);
    }
  }
  return redrawStale(messages.values(), client);
}

/**
 * After the GM's record of outcomes changed (the world setting `outcomes`, written by
 * the active GM's client: its onChange runs on every client): draw again, in place,
 * the approval cards drawn here whose line it changes — on another GM's page without
 * a connection, and on a player's own card, which no update of its message redraws.
 * Returns how many it redrew.
 */
export function redrawApprovalCards(client) {
  const messages = [];
  for (const ids of drawnByPending.values()) {
    for (const id of ids) {
      const message = game.messages?.get(id);
      if (message) messages.push(message);
      else ids.delete(id); // deleted
    }
  }
  return redrawStale(messages, client);
}

/** Draw again those of `messages` the log shows whose GM buttons as drawn (Undo, Redo,
 * Approve, Reject) are not those the card has now; a card whose undone flag is about
 * to be written is left to that write, which draws it again (foundry/undone.mjs). */
export async function redrawStale(messages, client) {
  const chat = /** @type {any} */ (ui).chat;
  if (typeof chat?.updateMessage !== "function") return 0;
  let redrawn = 0;
  for (const message of messages) {
    const info = message?.logged ? cardOf(message) : null;
    if (!info || client.undoneFlags?.has(info.seq)) continue;
    const shown = drawn.has(message) ? drawn.get(message) : ""; // not drawn here yet: no button
    if (shown === null) continue;
    const wanted = gmButtons(buttonsOf(info, client, { withApply: false }), info);
    if (wanted === shown) continue;
    await chat.updateMessage(message);
    redrawn += 1;
  }
  return redrawn;
}

/** The rollbridge ids of the tokens the user targets (else those selected). */
function selectedTargets(client) {
  const targeted = client.targetsFor(undefined);
  if (targeted.length) return targeted;
  const controlled = (/** @type {any} */ (globalThis).canvas?.tokens?.controlled ?? []).map((t) => t.actor ?? t.document?.actor);
  return client.targetsFor(controlled);
}

/** A press on the card of a request settled already: the GM is told, nothing is sent. */
function settledAlready() {
  ui.notifications.warn(`rollbridge: ${game.i18n.localize("ROLLBRIDGE.Button.Settled")}`);
  return null;
}

/** Do what a button says (*Reject with a reason…* first asks for the reason, *Approve
 * with my dice…* for the GM's die results); errors
 * become a notice. Returns the reply, or null. */
export async function press(action, card, client) {
  try {
    const targets = action === "apply" ? selectedTargets(client) : [];
    if (action === "apply" && !targets.length) {
      ui.notifications.warn(`rollbridge: ${game.i18n.localize("ROLLBRIDGE.Button.NoTargets")}`);
      return null;
    }
    // the server undoes the latest change: a card that is no longer it sends nothing
    const tracker = trackerFor(card, client);
    const stale = (action === "undo" && !tracker?.canUndo(card.seq)) || (action === "redo" && !tracker?.canRedo(card.seq));
    if (stale) {
      ui.notifications.warn(`rollbridge: ${game.i18n.localize("ROLLBRIDGE.Button.NotLatest")}`);
      return null;
    }
    // approve and reject name the request by its id, which is the table's own: a card of
    // another table, of an earlier epoch, or of a request settled already sends nothing
    const settles = SETTLING.includes(action);
    const waiting = () => !(settles && client.connection && approvalState(card, client) !== "waiting");
    if (!waiting()) return settledAlready();
    let reason;
    let dice;
    if (action === "approve-dice") {
      // the GM's own die results, from the dialog: cancelled or unreadable, nothing is sent
      dice = await askDice();
      if (dice === null) return null;
      if (!waiting()) return settledAlready();
    }
    if (action === "reject-reason") {
      // the GM's reason, from the dialog: cancelled, nothing is sent
      reason = await askReason();
      if (reason === null) return null;
      // settled while the dialog was open (another GM, the web view): nothing is sent
      if (!waiting()) return settledAlready();
    }
    const request = buttonRequest(action, { card, targets, reason, dice, named: client.undo.named });
    if (!request) return null;
    // a repeated apply of this card to these targets is the same request: done once
    if (action === "apply") {
      request.id = applyRequestId({ table: card.table ?? null, epoch: card.epoch, seq: card.seq, user: game.user?.id, targets });
    }
    // without a connection (a GM who is not the active GM: a card drawn before the
    // active GM changed) only an apply goes elsewhere; the rest is refused here, with
    // a notice saying why (another GM is the active GM), never dropped unsaid
    if (client.connection || action !== "apply") {
      let reply;
      try {
        reply = await client.request(request);
      } catch (error) {
        // settled already (another GM, the web view, before this page loaded): the card
        // says so rather than offering the buttons again
        if (settles && serversCode(error) === "not_pending" && client.approvals?.settle(card.pending, "settled")) {
          await redrawSettled(client, [card.pending]);
        }
        throw error;
      }
      if (settles) {
        client.approvals?.settle(card.pending, action.startsWith("approve") ? "approved" : "rejected");
        await redrawSettled(client, [card.pending]);
      }
      return reply;
    }
    // a player (or another GM) without a connection of its own: the active GM's client
    // applies the card's own follow-up (which it takes from the event it received) to
    // these targets, if this user owns every one of them
    return await askGM({ type: "apply", card: { table: card.table ?? null, epoch: card.epoch, seq: card.seq }, targets });
  } catch (error) {
    const text = shownError(error, game.i18n, { context: `${action} refused` });
    // a plain Approve of a request held with the player's own dice: the dice the server
    // names are the player's, and the GM's way on is theirs or a rejection
    // the server's own refusal alone: a ruleset's that shares the code says nothing of
    // the player's dice (core/origin.mjs)
    const code = serversCode(error);
    const hint = action === "approve" && PLAYER_DICE_REFUSALS.includes(code) ? ` ${game.i18n.localize("ROLLBRIDGE.Button.PlayerDiceUnfit")}` : "";
    ui.notifications.error(`rollbridge: ${text}${hint}`);
    return null;
  }
}
