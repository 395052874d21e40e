// The GM's controls (undo and redo, the pending requests to approve or reject,
// adjusting an actor's track) and the encounter's order with its buttons.

import { askedBy, askedFor, el, renderActor } from "./render.mjs";
import { afterLift, composingIn, field, select, pressedIn, waitsForAnswer } from "./forms.mjs";
import { labelOf } from "../client/i18n.mjs";
import { KIND_WORDS, i18n } from "./texts.mjs";

/**
 * A button of the table's controls whose press is one request: the second click of
 * a double click or a double tap (`detail` 2) does nothing — a GM's double click on
 * *Next turn* ended two turns, on *Undo* sent a second undo of the same event, which
 * the server refused — and neither does a press while the button's request waits.
 * `onClick` returns the request's promise (or nothing).
 */
function button(text, name, onClick) {
  const node = el("button", "", text);
  node.type = "button";
  node.name = name;
  node.addEventListener("click", (event) => {
    if (event.detail > 1 || node.dataset.busy) return;
    const sent = onClick();
    if (typeof sent?.finally !== "function") return;
    node.dataset.busy = "true";
    sent.finally(() => delete node.dataset.busy);
  });
  return node;
}

/** Where a control is among the controls drawn anew: its name, and the pending
 * request its row is for, in the table's epoch (a restored backup counts pending ids
 * again: the same id in another epoch is another request). */
function controlKey(node) {
  const row = node.closest("[data-pending]")?.dataset;
  return `${node.getAttribute("name") ?? ""}@${row?.epoch ?? ""}/${row?.pending ?? ""}`;
}

/** The drawings that wait for a press in their box to be lifted, by box (the latest). */
const lifting = new Map();

/**
 * Put `node` in `box`'s place of what it held (the encounter and its buttons, the
 * requests waiting for approval, drawn anew at each change of the table) keeping the
 * keyboard's focus: a control that had it has it again in the new drawing — *Next
 * turn* pressed with Enter, *Approve* while another request comes in — else the
 * next control of its kind (the next request's *Approve*, its own approved), else
 * the box itself (the turn a player ended is no longer theirs to end). The focus
 * went to the page's body: a keyboard or screen reader user lost the place. While
 * a finger or the mouse presses in the box, the drawing waits until a task after
 * the press is lifted: drawn anew between the press and its release, the GM's
 * *Approve* (or *Next turn*) was taken away and its click never came.
 * @param {HTMLElement} box the place
 * @param {HTMLElement} node what it holds now
 */
export function replaceKeepingFocus(box, node) {
  // the GM's press on *Approve*: drawn anew once its click is done; a word being
  // composed in a reason: once it is in
  if (pressedIn(box) || composingIn(box)) {
    const first = !lifting.has(box);
    lifting.set(box, node);
    if (first) {
      afterLift(() => {
        if (!lifting.has(box)) return; // drawn anew since the lift, with the latest
        const latest = lifting.get(box);
        lifting.delete(box);
        replaceKeepingFocus(box, latest);
      });
    }
    return;
  }
  lifting.delete(box);
  const had = document.activeElement;
  // what is written in its fields now (a reason), newer than the drawing when it waited
  const typed = new Map([...box.querySelectorAll("input[name]")].map((input) => [controlKey(input), input.value]));
  const put = () => {
    box.replaceChildren(node);
    for (const input of box.querySelectorAll("input[name]")) {
      const value = typed.get(controlKey(input));
      if (value !== undefined && value !== input.value) input.value = value;
    }
  };
  if (!had || had === box || !box.contains(had)) {
    put();
    return;
  }
  const key = controlKey(had);
  const name = had.getAttribute("name");
  put();
  const controls = [...box.querySelectorAll("button, input, select")];
  const again = controls.find((control) => controlKey(control) === key)
    ?? controls.find((control) => name && control.getAttribute("name") === name);
  if (again) {
    again.focus();
    // a reason being written keeps its caret
    if (typeof had.selectionStart === "number" && typeof again.setSelectionRange === "function") {
      again.setSelectionRange(had.selectionStart, had.selectionEnd);
    }
  } else {
    box.tabIndex = -1; // focusable by script only: what it holds is read from it
    box.focus();
  }
}

/** Undo and redo in `box`, each naming the event it takes ("Undo #12": the log's
 * #12) and sending its seq, so that a table another GM changed meanwhile refuses
 * it (`not_latest`) instead of taking another change; disabled when there is
 * none (aria-disabled: still focusable). Where the page does not know (it missed an undo), plain "Undo" takes the
 * latest. Where it knows the event's kind (`kindOf`), the button says it too, as the
 * log's undo line does ("Undo #3 (actor added)"): a roll that changed nothing is no
 * change to undo, and the GM who pressed *Undo #3* after it, on a phone whose log
 * showed the roll, took back the NPC added before. The buttons are made once and
 * brought up to date in place, so a keyboard's focus stays on them as the table
 * changes.
 * @param {(seq: number) => string|null} kindOf the kind of the event `seq`, when the page has it
 */
export function showHistory(box, session, send, kindOf = () => null) {
  const history = session.history;
  const words = {
    undo: ["ROLLBRIDGE.Web.Button.Undo", "ROLLBRIDGE.Web.Button.UndoSeq", "ROLLBRIDGE.Web.Button.UndoSeqKind",
      history.latestUndo()],
    redo: ["ROLLBRIDGE.Web.Button.Redo", "ROLLBRIDGE.Web.Button.RedoSeq", "ROLLBRIDGE.Web.Button.RedoSeqKind",
      history.latestRedo()],
  };
  for (const [type, [plain, numbered, kinded, seq]] of Object.entries(words)) {
    let node = box.querySelector(`button[name="${type}"]`);
    if (!node) {
      node = button("", type, () => {
        if (node.getAttribute("aria-disabled") === "true") return undefined; // nothing to take
        const named = node.dataset.seq ? Number(node.dataset.seq) : null;
        return send(named ? { type, seq: named } : { type });
      });
      box.append(node);
    }
    const named = Number.isInteger(seq);
    const { key, data } = historyWords([plain, numbered, kinded], seq, named ? kindOf(seq) : null);
    node.textContent = data ? i18n.format(key, data) : i18n.localize(key);
    // aria-disabled, not disabled: a disabled button loses the keyboard's focus (to
    // the page's body) once the last undo leaves nothing to undo
    node.setAttribute("aria-disabled", String(history.known && !named));
    if (named) node.dataset.seq = String(seq);
    else delete node.dataset.seq;
  }
}

/**
 * What *Undo* or *Redo* says: plain where it names no event, the event's number and
 * its kind in the log's words where the page knows the kind, and the number alone
 * where it does not — an event not seen, or of a kind the page has no words for (a
 * newer server's): its code is no word of the GM's language ("Undo #3
 * (table.noted)").
 * @param {string[]} keys the message ids: plain, numbered, numbered with the kind
 * @param {number|null} seq the event undo or redo takes, if the page knows it
 * @param {string|null} kind that event's kind, if the page has seen it
 * @returns {{key: string, data?: object}} the message id and its arguments
 */
export function historyWords([plain, numbered, kinded], seq, kind) {
  if (!Number.isInteger(seq)) return { key: plain };
  if (typeof kind === "string" && Object.hasOwn(KIND_WORDS, kind)) {
    return { key: kinded, data: { seq, kind: labelOf(i18n, KIND_WORDS, kind) } };
  }
  return { key: numbered, data: { seq } };
}

/** The reasons the GM is writing (an open field, its text so far), by the table's
 * epoch and the request's pending id (reasonKey): the list is drawn anew at each
 * change of the table, and they stay as written. */
const reasons = new Map();

/** Where a reason is kept: the epoch with the pending id. A pending id is counted
 * from the table's seq (`p5`), which a restored backup counts again in its new
 * epoch: keyed by the id alone, a reason written before the restore came back open
 * beside another request with the same id, and *Reject* sent it with that one. */
const reasonKey = (epoch, pending) => JSON.stringify([epoch ?? null, pending]);

/** The reason fields open now, as [epoch, pending id, text so far] (kept across a
 * language's reload: kept.mjs). */
export function openReasons() {
  return [...reasons.values()].map(({ epoch, pending, text }) => [epoch, pending, text]);
}

/** Open the reason fields `kept` ([epoch, pending id, text]) as they were before a
 * language's reload; those of requests no longer waiting in that epoch go when the
 * list is drawn. */
export function reopenReasons(kept) {
  for (const [epoch, pending, text] of kept ?? []) reasons.set(reasonKey(epoch, pending), { epoch, pending, text });
}

/**
 * A quiet button (`KIND-open`) that opens and closes a one-line form (`KIND-form`, its
 * id `rb-KIND-…`) under a request, its field taking the focus as it opens: open while
 * `store` holds `key` (`fresh()` put there as it opens). Described by the request's
 * `line`, as *Approve* is: which request it takes.
 * @returns {[HTMLButtonElement, HTMLFormElement]} the button and the form (its fields to add)
 */
function foldedForm(text, kind, line, store, key, fresh) {
  const form = el("form", `${kind}-form`);
  form.id = `rb-${kind}-${line.id}`;
  form.hidden = !store.has(key);
  const open = button(text, `${kind}-open`, () => {
    if (store.has(key)) store.delete(key);
    else store.set(key, fresh());
    const shown = store.has(key);
    form.hidden = !shown;
    open.setAttribute("aria-expanded", String(shown));
    if (shown) form.querySelector("input")?.focus();
  });
  open.classList.add(`${kind}-open`);
  open.setAttribute("aria-controls", form.id);
  open.setAttribute("aria-describedby", line.id);
  open.setAttribute("aria-expanded", String(store.has(key)));
  return [open, form];
}

/**
 * A request's optional reason: *Reject with a reason…* opens a one-line field under
 * the request, whose own button (or Enter) rejects it with what is written there.
 * The reason is the GM's own words, sent as written (the player reads it, untranslated).
 * *Reject* beside it still rejects at once: with what is written in the field while
 * it is open (the GM wrote it for the player), else without a reason.
 */
function reasonControls(entry, line, send, epoch) {
  const key = reasonKey(epoch, entry.pending);
  const write = (text) => reasons.set(key, { epoch, pending: entry.pending, text });
  const [open, form] = foldedForm(i18n.localize("ROLLBRIDGE.Web.Button.RejectWithReason"), "reason", line, reasons,
    key, () => ({ epoch, pending: entry.pending, text: "" }));
  const input = el("input");
  input.name = "reason";
  input.maxLength = 500; // the protocol's bound of a reason
  input.autocomplete = "off";
  input.enterKeyHint = "send";
  input.value = reasons.get(key)?.text ?? "";
  input.setAttribute("aria-describedby", line.id);
  input.addEventListener("input", () => write(input.value));
  // what is written stays until the request leaves the list (a refusal keeps it)
  const submit = button(i18n.localize("ROLLBRIDGE.Web.Button.RejectReasonSend"), "reject-reason",
    () => send(rejection(entry.pending, input.value)));
  submit.setAttribute("aria-describedby", line.id);
  form.append(field(i18n.localize("ROLLBRIDGE.Web.Field.Reason"), input), submit);
  form.addEventListener("submit", (event) => {
    event.preventDefault(); // Enter in the field: its button's click, once
    submit.click();
  });
  return [open, form];
}

/** The `reject` of the request `pending`, with the reason `written` for it (trimmed)
 * when there is one. */
function rejection(pending, written) {
  const reason = typeof written === "string" ? written.trim() : "";
  return reason ? { type: "reject", request: pending, reason } : { type: "reject", request: pending };
}

/** The GM's own dice being written for a request (an open field, its text so far, and
 * what the page said of it: a refusal), by reasonKey: kept as the list is drawn anew. */
const gmDice = new Map();

/** A die result as typed: a whole number from 1 up (the server checks it fits its die). */
const DIE = /^\d{1,9}$/;
/** The most die results the page sends in one approval. */
const MAX_DICE = 1_000;

/** The longest part of a word that is no die the page quotes back. */
const QUOTED = 20;

/**
 * The die results written in `text` ("6, 2 5"), whole numbers from 1 up split by
 * commas or spaces, as `{dice}`; else `{problem}`, what the page says of it beside the
 * field — its message key and data: nothing written (`NotDice`), the first word that
 * is no die quoted (`NotADie`: a word, 0, a negative or broken number, another
 * script's digits, more than nine digits), more than MAX_DICE (`TooManyDice`). Each
 * said the same *whole numbers from 1 up*, which a 1,001st die or a ten-digit number
 * is too, and named nothing of what was wrong.
 * @returns {{dice: number[]}|{problem: {key: string, data?: object}}}
 */
export function readDice(text) {
  const words = String(text ?? "").split(/[\s,;]+/).filter(Boolean);
  if (!words.length) return { problem: { key: "ROLLBRIDGE.Web.Field.NotDice" } };
  const wrong = words.find((word) => !DIE.test(word) || Number(word) < 1);
  if (wrong !== undefined) {
    const word = wrong.length > QUOTED ? `${wrong.slice(0, QUOTED)}…` : wrong;
    return { problem: { key: "ROLLBRIDGE.Web.Field.NotADie", data: { word } } };
  }
  if (words.length > MAX_DICE) return { problem: { key: "ROLLBRIDGE.Web.Field.TooManyDice", data: { max: MAX_DICE } } };
  return { dice: words.map(Number) };
}

/** The die results written in `text` (readDice), or null when they are no dice. */
export function diceOf(text) {
  return readDice(text).dice ?? null;
}

/** Open the dice field of the request `pending` (in the table's `epoch`) saying `text`
 * beside it: the GM's *Approve* was refused because it needs the GM's own dice
 * (`held_dice_secret`). The list, drawn anew, shows it. */
export function askDice(epoch, pending, text) {
  const key = reasonKey(epoch, pending);
  gmDice.set(key, { ...(gmDice.get(key) ?? { text: "" }), said: text });
}

/**
 * A request's approval with the GM's own dice: *With my dice…* opens a one-line field
 * under the request (labelled, the focus in it), whose own button (or Enter) approves
 * the request with the die results written there, in order (`approve`'s `dice`,
 * docs/protocol.md) — what a request held with the player's own dice for an action
 * that is always secret now needs (`held_dice_secret`); `rollbridge connect` sent them
 * (`approve p12 supply=…`), the page could not. What is not whole numbers is said
 * beside the field in the page's words, and nothing is sent; the server's refusal
 * (dice that do not fit the action) is said there too.
 */
function diceControls(entry, line, send, epoch) {
  const key = reasonKey(epoch, entry.pending);
  const [open, form] = foldedForm(i18n.localize("ROLLBRIDGE.Web.Button.WithDice"), "dice", line, gmDice, key,
    () => ({ text: "", said: "" }));
  const input = el("input");
  input.name = "gm-dice";
  input.autocomplete = "off";
  input.spellcheck = false;
  input.enterKeyHint = "send";
  // room for MAX_DICE dice of nine digits each: a longer list pasted was cut at
  // 4,000 characters, silently, its last number maybe cut short (readDice says
  // what is too many)
  input.maxLength = MAX_DICE * 12;
  input.value = gmDice.get(key)?.text ?? "";
  const status = el("p", "form-status dice-status", gmDice.get(key)?.said ?? "");
  status.id = `${form.id}-said`;
  status.setAttribute("role", "status");
  if (status.textContent) status.dataset.kind = "error";
  input.setAttribute("aria-describedby", `${line.id} ${status.id}`);
  input.addEventListener("input", () => gmDice.set(key, { text: input.value, said: gmDice.get(key)?.said ?? "" }));
  const say = (text) => {
    status.textContent = text;
    status.dataset.kind = text ? "error" : "";
    if (gmDice.has(key)) gmDice.set(key, { text: input.value, said: text });
  };
  const submit = button(i18n.localize("ROLLBRIDGE.Web.Button.ApproveDice"), "approve-dice", () => {
    const { dice, problem } = readDice(input.value);
    if (!dice) {
      say(problem.data ? i18n.format(problem.key, problem.data) : i18n.localize(problem.key));
      input.focus();
      return undefined;
    }
    say("");
    return send({ type: "approve", request: entry.pending, dice });
  });
  submit.setAttribute("aria-describedby", line.id);
  form.append(field(i18n.localize("ROLLBRIDGE.Web.Field.GmDice"), input), submit, status);
  form.addEventListener("submit", (event) => {
    event.preventDefault(); // Enter in the field: its button's click, once
    submit.click();
  });
  return [open, form];
}

/** The pending requests (the GM's table view holds them), each to approve or reject
 * (with an optional reason: reasonControls), or to approve with the GM's own dice
 * (diceControls).
 * Each button is described by its request's line (`aria-describedby`): a screen
 * reader going through the list heard "Approve", "Reject", "Approve"… and not which
 * request each one takes. */
export function pendingList(session, send) {
  const list = el("ul", "pending");
  const epoch = session.welcome?.epoch ?? null;
  const waiting = new Set((session.table.pending ?? []).map((entry) => reasonKey(epoch, entry.pending)));
  for (const key of reasons.keys()) if (!waiting.has(key)) reasons.delete(key);
  for (const key of gmDice.keys()) if (!waiting.has(key)) gmDice.delete(key);
  for (const [index, entry] of (session.table.pending ?? []).entries()) {
    const asked = askedFor(entry, (id) => session.nameOf(id), session.words());
    const item = el("li", "pending-item");
    item.dataset.pending = String(entry.pending);
    item.dataset.epoch = String(epoch ?? "");
    const line = el("span", "", i18n.format("ROLLBRIDGE.Web.Pending.Item",
      { pending: entry.pending, who: askedBy(entry.who), ...asked }));
    line.id = `rb-pending-${index}`; // by place: a pending id is the server's text
    const approve = button(i18n.localize("ROLLBRIDGE.Web.Button.Approve"), "approve",
      () => send({ type: "approve", request: entry.pending }));
    // with the reason written in its open field, if any: the GM wrote it for the player
    const reject = button(i18n.localize("ROLLBRIDGE.Web.Button.Reject"), "reject",
      () => send(rejection(entry.pending, reasons.get(reasonKey(epoch, entry.pending))?.text)));
    for (const node of [approve, reject]) node.setAttribute("aria-describedby", line.id);
    item.append(line, approve, reject, ...reasonControls(entry, line, send, epoch),
      ...diceControls(entry, line, send, epoch));
    list.append(item);
  }
  if (!list.childElementCount) list.append(el("li", "empty", i18n.localize("ROLLBRIDGE.Web.Pending.Nothing")));
  return list;
}

/** Adjust a track of an actor's common state (damage > 0, healing < 0); `send(message,
 * form)` gets the `adjust` request and this form. */
export function adjustForm(session, send) {
  const form = el("form", "adjust-form");
  form.dataset.form = "adjust";
  const actors = [...session.actors.values()];
  const actor = select(actors.map((a) => [a.id, a.name]), { name: "actor" });
  const track = select([], { name: "track" });
  const fillTracks = () => {
    track.replaceChildren();
    for (const t of session.actors.get(actor.value)?.common?.tracks ?? []) {
      track.append(new Option(t.label ?? t.key, t.key));
    }
  };
  actor.addEventListener("change", fillTracks);
  fillTracks();
  const delta = el("input");
  delta.type = "number";
  delta.name = "delta";
  delta.step = "1";
  delta.value = "1";
  const submit = el("button", "", i18n.localize("ROLLBRIDGE.Web.Button.Adjust"));
  submit.type = "submit";
  form.append(field(i18n.localize("ROLLBRIDGE.Web.Field.Actor"), actor),
    field(i18n.localize("ROLLBRIDGE.Web.Field.Track"), track),
    field(i18n.localize("ROLLBRIDGE.Web.Field.Delta"), delta, i18n.localize("ROLLBRIDGE.Web.Field.DeltaHint")), submit,
    el("p", "form-status"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    if (waitsForAnswer(form)) return;
    send({ type: "adjust", actor: actor.value, track: track.value, delta: Number.parseInt(delta.value, 10) }, form);
  });
  return form;
}

/** The encounter: the order with whose turn it is; next for the GM and for the player
 * whose actor is on turn (and for the GM start, end). */
export function encounterView(session, send) {
  const box = el("div", "encounter-body");
  const encounter = session.table.encounter;
  if (encounter) {
    box.append(el("p", "round", i18n.format("ROLLBRIDGE.Web.Encounter.Round", { round: encounter.round })));
    const order = el("ol", "order");
    encounter.order.forEach((id, index) => {
      const item = el("li", index === encounter.turn ? "turn current" : "turn", session.nameOf(id));
      item.dataset.actor = id;
      if (index === encounter.turn) item.append(el("span", "now", i18n.localize("ROLLBRIDGE.Web.Encounter.Now")));
      order.append(item);
    });
    box.append(order);
  } else {
    box.append(el("p", "empty", i18n.localize("ROLLBRIDGE.Web.Encounter.None")));
  }
  const row = el("div", "buttons");
  if (session.role === "gm" && !encounter) {
    row.append(button(i18n.localize("ROLLBRIDGE.Web.Button.Start"), "start",
      () => send({ type: "encounter.start", order: [...session.actors.keys()] })));
  }
  // the GM ends any turn; a player only a turn of an actor they play (as the server allows)
  const turnIsMine = encounter && session.controllable().some((actor) => actor.id === encounter.current);
  if (encounter && (session.role === "gm" || turnIsMine)) {
    row.append(button(i18n.localize("ROLLBRIDGE.Web.Button.Next"), "next", () => send({ type: "encounter.next" })));
  }
  if (encounter && session.role === "gm") {
    row.append(button(i18n.localize("ROLLBRIDGE.Web.Button.End"), "end", () => send({ type: "encounter.end" })));
  }
  if (row.childElementCount) box.append(row);
  return box;
}

/** Every actor's card; whose turn it is and the viewer's own marked. */
export function actorCards(session, { small = false } = {}) {
  const current = session.table.encounter?.current ?? null;
  const mine = new Set(session.role === "player" ? session.controllable().map((a) => a.id) : []);
  return [...session.actors.values()].map((actor) =>
    renderActor(actor, { current: actor.id === current, mine: mine.has(actor.id), small }));
}
