// The buttons on a chat card (issue 15, item 5). Foundry-independent
// (tests/foundry/js/buttons.test.mjs): which buttons a user gets on a card,
// their HTML, and the request each one sends.
//
// - The GM: undo of the card's change while it is the table's latest undoable
//   change, redo while it is the latest undone one (the server's undo and redo
//   take the latest; UndoTracker follows them from the events this client
//   received); approve and reject on a pending request's card.
// - A target's owner (or the GM), where the ruleset allows: apply to the
//   selected targets — when the resolution's data names what applying means
//   (`data.apply`: {action, params}, the ruleset's follow-up action), the same
//   follow-up against the tokens the user has selected.

import { escapeHtml, escapeText } from "./card.mjs";

export const BUTTON_KEYS = {
  undo: "ROLLBRIDGE.Button.Undo",
  redo: "ROLLBRIDGE.Button.Redo",
  approve: "ROLLBRIDGE.Button.Approve",
  reject: "ROLLBRIDGE.Button.Reject",
  apply: "ROLLBRIDGE.Button.Apply",
};

/** The event kinds a GM's undo may take back (rollbridge's undoable events) when they changed something. */
export const UNDOABLE_KINDS = new Set([
  "resolution", "adjusted", "actor.created", "actor.updated", "actor.removed", "settings",
  "encounter.started", "encounter.turn", "encounter.reordered", "encounter.ended",
]);

/** Whether an event (as received) is one the server's undo can take back. */
export function isUndoable(event) {
  if (!UNDOABLE_KINDS.has(event?.kind)) return false;
  if (event.kind !== "resolution") return true;
  return Boolean((event.actors ?? []).length || event.table_after);
}

/**
 * The table's undo and redo stacks as this client's events show them: an
 * undoable event is pushed (and the redo stack cleared), `undo` moves its
 * `data.undoes` to the redo stack, `redo` its `data.redoes` back. A snapshot
 * (reset) forgets both: no button until new events say more.
 */
export class UndoTracker {
  constructor() {
    this.reset();
  }

  reset() {
    this.undo = [];
    this.redo = [];
  }

  see(event) {
    if (event?.kind === "undo") {
      const seq = event.data?.undoes;
      if (this.undo.at(-1) === seq) this.undo.pop();
      else this.undo = []; // the server undid something this client did not see
      this.redo.push(seq);
    } else if (event?.kind === "redo") {
      const seq = event.data?.redoes;
      if (this.redo.at(-1) === seq) this.redo.pop();
      else this.redo = [];
      this.undo.push(seq);
    } else if (isUndoable(event)) {
      this.undo.push(event.seq);
      this.redo = [];
    }
  }

  canUndo(seq) {
    return seq !== undefined && this.undo.at(-1) === seq;
  }

  canRedo(seq) {
    return seq !== undefined && this.redo.at(-1) === seq;
  }
}

/**
 * The buttons of one card for one user: [{action, ...data}].
 * `card` is {kind, seq, pending, apply, targets} (from the message's flags);
 * `user` {isGM}; `owns(targetId)` whether the user owns a target's actor.
 * @param {{card?: any, user?: any, tracker?: any, owns?: (targetId: string) => boolean}} args
 */
export function cardButtons({ card, user, tracker, owns = () => false }) {
  const out = [];
  if (!card) return out;
  if (user?.isGM) {
    if (tracker?.canUndo(card.seq)) out.push({ action: "undo", seq: card.seq });
    if (tracker?.canRedo(card.seq)) out.push({ action: "redo", seq: card.seq });
    if (card.kind === "approval.requested" && card.pending && !card.settled) {
      out.push({ action: "approve", pending: card.pending }, { action: "reject", pending: card.pending });
    }
  }
  const apply = card.apply;
  if (card.kind === "resolution" && apply?.action && (user?.isGM || (card.targets ?? []).some((t) => owns(t)))) {
    out.push({ action: "apply", seq: card.seq });
  }
  return out;
}

/** The buttons as HTML (each a <button data-rollbridge-action>). */
export function buttonsHtml(buttons, i18n) {
  if (!buttons.length) return "";
  const items = buttons.map((b) => `<button type="button" class="rb-button rb-${escapeHtml(b.action)}" data-rollbridge-action="${escapeHtml(b.action)}"`
    + `${b.seq !== undefined ? ` data-seq="${escapeHtml(b.seq)}"` : ""}${b.pending ? ` data-pending="${escapeHtml(b.pending)}"` : ""}>`
    + `${escapeText(i18n.localize(BUTTON_KEYS[b.action]))}</button>`).join("");
  return `<div class="rollbridge-buttons">${items}</div>`;
}

/**
 * The request a button sends. `card` as in cardButtons; for apply, `targets`
 * are the selected targets' rollbridge ids and `actor` the card's actor.
 * @param {string} action
 * @param {{card?: any, targets?: string[], reason?: string}} [args]
 */
export function buttonRequest(action, { card, targets = [], reason } = {}) {
  switch (action) {
    case "undo":
      return { type: "undo" };
    case "redo":
      return { type: "redo" };
    case "approve":
      return { type: "approve", request: card.pending };
    case "reject":
      return reason ? { type: "reject", request: card.pending, reason } : { type: "reject", request: card.pending };
    case "apply": {
      const message = { type: "resolve", action: card.apply.action, targets: [...targets], params: { ...(card.apply.params ?? {}) } };
      if (card.apply.actor ?? card.actor) message.actor = card.apply.actor ?? card.actor;
      return message;
    }
    default:
      return null;
  }
}

/**
 * The request id of a card's "apply": the same for the same card (table, epoch,
 * seq), user and targets (in any order), so a repeated press — a double click, a
 * second press before the card's follow-up shows — is the same request, which
 * the server answers again rather than applying twice (a repeated id from the
 * same connection's token: docs/protocol.md). At most 64 characters, as the
 * protocol takes: `apply-<epoch>-<seq>-<hash>`, the hash (FNV-1a, 2×32 bits) of
 * all of it.
 */
export function applyRequestId({ table = null, epoch, seq, user, targets = [] }) {
  const key = [table ?? "", epoch, seq, user ?? "", ...[...new Set(targets.map(String))].sort()].join("\u0000");
  const fnv = (seed) => {
    let h = seed >>> 0;
    for (let i = 0; i < key.length; i++) {
      h ^= key.charCodeAt(i);
      h = Math.imul(h, 0x01000193) >>> 0;
    }
    return h.toString(16).padStart(8, "0");
  };
  const hash = fnv(0x811c9dc5) + fnv(0x050c5d1f);
  const id = `apply-${epoch}-${seq}-${hash}`;
  return id.length <= 64 ? id : `apply-${hash}`;
}

/** The card of an `approval.requested` event (GM only): who asks for what.
 * @param {any} event
 * @param {{i18n: import('../client/i18n.mjs').I18n, by?: string}} options
 */
export function approvalCardHtml(event, { i18n, by }) {
  // the pending entry: {type, id, fields: {action | formula, …}, who: {name, role}}
  const request = event?.data?.request ?? {};
  const fields = request.fields ?? {};
  const what = fields.action ?? fields.formula ?? request.type ?? "?";
  const who = by ?? request.who?.name ?? event?.by ?? "?";
  return `<div class="rollbridge-card rb-approval" data-kind="approval.requested" data-seq="${escapeHtml(event?.seq)}" data-epoch="${escapeHtml(event?.epoch)}">`
    + `<header class="rb-head"><span class="rb-title">${escapeText(i18n.format("ROLLBRIDGE.Button.Pending", { who, what }))}</span></header>`
    + `</div>`;
}
