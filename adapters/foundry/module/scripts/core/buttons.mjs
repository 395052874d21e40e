// The buttons on a chat card (issue 15, item 5). Foundry-independent
// (tests/foundry/js/buttons.test.mjs): which buttons a user gets on a card,
// their HTML, and the request each one sends.
//
// - The GM: undo of the card's change while it is the table's latest undoable
//   change, redo while it is the latest undone one (the server's undo and redo
//   take the latest; UndoTracker, the shared client's, follows them from the
//   GM's table and the events after it, and the button names the card's seq,
//   so a table that moved on refuses it); approve, approve with the GM's own
//   dice, reject and reject with a reason on a pending request's card.
// - A target's owner (or the GM), where the ruleset allows: apply to the
//   selected targets — when the resolution's data names what applying means
//   (`data.apply`: {action, params}, the ruleset's follow-up action), the same
//   follow-up against the tokens the user has selected.

import { isUndoable, UNDOABLE_KINDS, UndoTracker } from "../client/undo.mjs";
import { actionLabel, escapeHtml, escapeText } from "./card.mjs";
import { idHash, userPrefix } from "./protocol.mjs";

export const BUTTON_KEYS = {
  undo: "ROLLBRIDGE.Button.Undo",
  redo: "ROLLBRIDGE.Button.Redo",
  approve: "ROLLBRIDGE.Button.Approve",
  "approve-dice": "ROLLBRIDGE.Button.ApproveWithDice",
  reject: "ROLLBRIDGE.Button.Reject",
  "reject-reason": "ROLLBRIDGE.Button.RejectWithReason",
  apply: "ROLLBRIDGE.Button.Apply",
};

// The undo tracker is the shared client's (the web view follows the same stacks).
export { isUndoable, UNDOABLE_KINDS, UndoTracker };

/**
 * The buttons of one card for one user: [{action, ...data}].
 * `card` is {kind, seq, pending, apply, targets} (from the message's flags);
 * `user` {isGM}; `owns(targetId)` whether the user owns a target's actor;
 * `connected` whether this client has a connection to the table to send them
 * on: a GM who is not the active GM has none (only the active GM's client
 * connects), so its card shows no undo, redo, approve or reject (its apply
 * goes through the active GM's client, as a player's does).
 * @param {{card?: any, user?: any, tracker?: any, owns?: (targetId: string) => boolean, connected?: boolean}} args
 */
export function cardButtons({ card, user, tracker, owns = () => false, connected = true }) {
  const out = [];
  if (!card) return out;
  if (user?.isGM && connected) {
    if (tracker?.canUndo(card.seq)) out.push({ action: "undo", seq: card.seq });
    if (tracker?.canRedo(card.seq)) out.push({ action: "redo", seq: card.seq });
    if (card.kind === "approval.requested" && card.pending && !card.settled) {
      out.push(
        { action: "approve", pending: card.pending },
        { action: "approve-dice", pending: card.pending },
        { action: "reject", pending: card.pending },
        { action: "reject-reason", pending: card.pending },
      );
    }
  }
  const apply = card.apply;
  if (card.kind === "resolution" && apply?.action && (user?.isGM || (card.targets ?? []).some((t) => owns(t)))) {
    out.push({ action: "apply", seq: card.seq });
  }
  return out;
}

/** The words of how a pending request was settled, as the card of its request says it:
 * approved, rejected, or no longer waiting (the table no longer lists it, and how it
 * went is not known here: settled before this client joined, and no event of it seen). */
export const SETTLED_KEYS = {
  approved: "ROLLBRIDGE.Button.Approved",
  rejected: "ROLLBRIDGE.Button.Rejected",
  settled: "ROLLBRIDGE.Button.Settled",
};

/**
 * The buttons as HTML (each a <button data-rollbridge-action>), after them the
 * line saying how the card's request was settled (`settled`: a key of SETTLED_KEYS),
 * if any, with the GM's reason of a rejection (`reason`: the GM's own words, shown
 * as text); "" for neither.
 * @param {any[]} buttons
 * @param {any} i18n
 * @param {{settled?: string | null, reason?: string | null}} [options]
 */
export function buttonsHtml(buttons, i18n, { settled = null, reason = null } = {}) {
  const why = settled === "rejected" && reason
    ? ` <span class="rb-reason">${escapeText(i18n.format("ROLLBRIDGE.Button.Reason", { reason }))}</span>`
    : "";
  const note = settled && Object.hasOwn(SETTLED_KEYS, settled)
    ? `<span class="rb-settled" data-settled="${escapeHtml(settled)}">${escapeText(i18n.localize(SETTLED_KEYS[settled]))}${why}</span>`
    : "";
  if (!buttons.length) return note ? `<div class="rollbridge-buttons">${note}</div>` : "";
  const items = buttons.map((b) => `<button type="button" class="rb-button rb-${escapeHtml(b.action)}" data-rollbridge-action="${escapeHtml(b.action)}"`
    + `${b.seq !== undefined ? ` data-seq="${escapeHtml(b.seq)}"` : ""}${b.pending ? ` data-pending="${escapeHtml(b.pending)}"` : ""}>`
    + `${escapeText(i18n.localize(BUTTON_KEYS[b.action]))}</button>`).join("");
  return `<div class="rollbridge-buttons">${items}${note}</div>`;
}

/**
 * The request a button sends. `card` as in cardButtons; for apply, `targets`
 * are the selected targets' rollbridge ids and `actor` the card's actor; a
 * rejection's `reason` the GM's words (trimmed: none, or only spaces, is a plain
 * reject, as the web view's); an approval's `dice` the GM's own die results (none:
 * no request); undo
 * and redo name the card's event when the server takes that (`named`: its GM's
 * table said what they take — UndoTracker.named; an older server refuses the field).
 * @param {string} action
 * @param {{card?: any, targets?: string[], reason?: string, dice?: number[], named?: boolean}} [args]
 */
export function buttonRequest(action, { card, targets = [], reason, dice, named = false } = {}) {
  switch (action) {
    case "undo": // naming the card's event: a server whose table moved on refuses (not_latest)
    case "redo":
      return named && Number.isInteger(card?.seq) ? { type: action, seq: card.seq } : { type: action };
    case "approve":
      return { type: "approve", request: card.pending };
    case "approve-dice": // the GM's own die results (docs/protocol.md, approve's dice)
      return Array.isArray(dice) && dice.length ? { type: "approve", request: card.pending, dice: [...dice] } : null;
    case "reject":
    case "reject-reason": {
      const written = String(reason ?? "").trim();
      return written ? { type: "reject", request: card.pending, reason: written } : { type: "reject", request: card.pending };
    }
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
 * same connection's token: docs/protocol.md). It names the user as any request
 * id of the module does (`fvtt@<user id>-…`, core/protocol.mjs userPrefix), so the
 * user's own card of the follow-up, posted while no GM is active, counts as its
 * card (core/state.mjs cardTrusted). At most 64 characters, as the protocol takes:
 * `fvtt@<user id>-apply-<epoch>-<seq>-<hash>`, else `fvtt@<user id>-apply-<hash>`,
 * the hash (core/protocol.mjs idHash) of all of it (`apply-…` alone for a user id that
 * cannot be named).
 */
export function applyRequestId({ table = null, epoch, seq, user, targets = [] }) {
  const key = [table ?? "", epoch, seq, user ?? "", ...[...new Set(targets.map(String))].sort()].join("\u0000");
  const hash = idHash(key);
  const named = userPrefix(user);
  const by = named ? `${named}-` : "";
  const id = `${by}apply-${epoch}-${seq}-${hash}`;
  return id.length <= 64 ? id : `${by}apply-${hash}`;
}

/** The card of an `approval.requested` event (GM only): who asks for what — an
 * action by its label in `actions` (the welcome's ruleset actions, in the GM's
 * language: actionLabel), as a resolution's card is titled, else by its name.
 * @param {any} event
 * @param {{i18n: import('../client/i18n.mjs').I18n, by?: string, actions?: any}} options
 */
export function approvalCardHtml(event, { i18n, by, actions = null }) {
  const title = approvalTitle(approvalTitleData(event, { by, actions }), { i18n, actions });
  return `<div class="rollbridge-card rb-approval" data-kind="approval.requested" data-seq="${escapeHtml(event?.seq)}" data-epoch="${escapeHtml(event?.epoch)}">`
    + `<header class="rb-head"><span class="rb-title">${escapeText(title)}</span></header>`
    + `</div>`;
}

/**
 * What an approval card's title is made of, as plain strings (kept in the message's
 * flags so that each viewer words the title in their own language: approvalTitle):
 * `who` asks, `action` (its id, and `label`, its label in the writer's language) or
 * `formula`, or the request's `type`.
 * @param {any} event  an `approval.requested` event
 * @param {{by?: string, actions?: any}} [options]
 * @returns {{who: string, action?: string, label?: string, formula?: string, type?: string}}
 */
export function approvalTitleData(event, { by, actions = null } = {}) {
  const request = event?.data?.request ?? {};
  const fields = request.fields ?? {};
  const data = { who: String(by ?? request.who?.name ?? event?.by ?? "?") };
  if (typeof fields.action === "string" && fields.action) {
    data.action = fields.action;
    data.label = actionLabel(actions, fields.action);
  } else if (typeof fields.formula === "string" && fields.formula) data.formula = fields.formula;
  else if (typeof request.type === "string" && request.type) data.type = request.type;
  return data;
}

/**
 * An approval card's title as plain text, in `i18n`'s language: "{who} asks …", the
 * action's label from `actions` (this viewer's ruleset actions) where it has one, else
 * the label `data` carries. Text, never markup: a caller puts it in as text.
 * @param {any} data  approvalTitleData's
 * @param {{i18n: any, actions?: any}} options
 * @returns {string}
 */
export function approvalTitle(data, { i18n, actions = null }) {
  const text = (value) => (typeof value === "string" && value ? value : "");
  const own = text(data?.action) && actions && Object.hasOwn(actions, data.action) ? actionLabel(actions, data.action) : "";
  const what = own || text(data?.label) || text(data?.action) || text(data?.formula) || text(data?.type) || "?";
  return i18n.format("ROLLBRIDGE.Button.Pending", { who: text(data?.who) || "?", what });
}
