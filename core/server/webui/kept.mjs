// What the page shows for a moment and keeps across the reload a language's choice
// makes: the message line and each form's outcome line (the GM approved a player's
// roll, a roll's result, a refusal), and which of this page's requests still wait
// for the GM. They are kept in the tab's sessionStorage as what they say — a
// message id and its arguments, or the seq of the event whose summary they show —
// never as their text, so the page loaded anew shows them in the language chosen.
// The page takes them back (and removes them) once, as it starts.

import { isPageId } from "./keeper.mjs";
import { SECRET_BOX, tabStorage } from "./session.mjs";

/** Where the tab keeps a table's lines for the next load. */
const linesKey = (table) => `rollbridge.lines.${table}`;

/** Lines kept at most, and the size of what is kept (a bound for what a page holds). */
const MAX_LINES = 50;
const MAX_KEPT = 20_000;

/** A line as kept: a message id (`ROLLBRIDGE.…`) with its arguments (strings and
 * numbers), the seq of an event whose summary it shows or fills in as `result`
 * (and whether the GM has undone that event since: `undone`), its kind ("info",
 * "error") and a refusal's code; null when it is none of that. */
export function keptLine(value) {
  if (!value || typeof value !== "object") return null;
  const key = typeof value.key === "string" && /^ROLLBRIDGE\.[A-Za-z0-9_.]+$/.test(value.key) ? value.key : null;
  const seq = Number.isInteger(value.seq) && value.seq > 0 ? value.seq : null;
  if (!key && seq === null) return null;
  const data = {};
  for (const [name, arg] of Object.entries(value.data ?? {})) {
    if (/^\w+$/.test(name) && (typeof arg === "string" || typeof arg === "number")) data[name] = arg;
  }
  const kind = value.kind === "error" ? "error" : "info";
  const code = typeof value.code === "string" && /^[a-z0-9_]{0,64}$/.test(value.code) ? value.code : "";
  const undone = seq !== null && value.undone === true;
  return { key, data, seq, kind, code, undone };
}

/** What keeping something for the next load came to: kept; not kept because the
 * tab's storage is full (its quota: `QuotaExceededError`) — the page says so; not
 * kept for another reason (too large, storage refused). */
export const KEPT = "kept";
export const FULL = "full";
export const NOT_KEPT = "not-kept";

/** Put `value` as JSON under `key` in the tab's storage for its next load, unless
 * the storage holds just that: the page keeps as the viewer types (table.mjs's
 * keepSoon), the lines and the forms each time, and the lines, unchanged while a form
 * is typed in, were written again at every keep (on a phone typing slowly, at every
 * keystroke). KEPT, FULL (the storage's quota refused it) or NOT_KEPT (over
 * MAX_KEPT, or the storage refused). */
function keepForNextLoad(key, value, storage) {
  const text = JSON.stringify(value);
  if (text.length > MAX_KEPT) return NOT_KEPT;
  try {
    const kept = tabStorage(storage);
    if (kept?.getItem(key) !== text) kept?.setItem(key, text);
    return KEPT;
  } catch (error) {
    return error?.name === "QuotaExceededError" ? FULL : NOT_KEPT;
  }
}

/** Remove what was kept under `key` (an older keep the storage would bring back as if
 * it were the latest). */
function dropKept(key, storage) {
  try {
    tabStorage(storage)?.removeItem(key);
  } catch {
    // storage refused: it holds nothing of the page's
  }
}

/** What was kept under `key` for this load, parsed, and removed from the tab as it is
 * taken (it is for one load only); null when nothing, too much or no JSON was kept. */
function takeForThisLoad(key, storage) {
  let text = null;
  try {
    const kept = tabStorage(storage);
    text = kept?.getItem(key) ?? null;
    kept?.removeItem(key);
  } catch {
    return null;
  }
  if (!text || text.length > MAX_KEPT) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** Whether a line's arguments hold no token (`rbt_…`, `rba_…`): a GM's reason is the
 * GM's text, kept as the player's page shows it, and a line holding a token is left
 * out (it is kept whenever the page is hidden: the tab's storage keeps no token but
 * the one it joined with). */
const tokenless = (line) => Object.values(line?.data ?? {})
  .every((arg) => typeof arg !== "string" || keepable(arg, []));

/** A request of the page's waiting for the GM, as kept with its pending id (the page
 * asks the server what became of it: askAgain in table.mjs): an object with its
 * `type` and `id`, under MAX_REQUEST characters as JSON, holding no token; else null. */
function keptRequest(request) {
  if (!request || typeof request !== "object" || Array.isArray(request)) return null;
  if (typeof request.type !== "string" || typeof request.id !== "string") return null;
  const text = JSON.stringify(request);
  return text.length <= MAX_REQUEST && keepable(text, []) ? request : null;
}

/** A request kept at most (as JSON): a roll's or an action's, with its parameters. */
const MAX_REQUEST = 4_000;

/** The requests waiting for the GM as kept: [pending id, form key, request or null]. */
const keptAsked = (asked) => (Array.isArray(asked) ? asked : [])
  .filter((pair) => Array.isArray(pair) && typeof pair[0] === "string" && typeof pair[1] === "string")
  .slice(0, MAX_LINES).map(([pending, form, request]) => [pending, form, keptRequest(request)]);

/** The page's requests the GM has answered, as kept: [pending id, the request as
 * sent, and the seq of its event when the GM approved it in secret] (their log
 * entries say what was asked, renderMine, and which placeholder is its event), the
 * latest MAX_LINES. */
const keptAnswered = (answered) => (Array.isArray(answered) ? answered : [])
  .filter((pair) => Array.isArray(pair) && typeof pair[0] === "string" && keptRequest(pair[1]))
  .slice(-MAX_LINES)
  .map(([pending, request, seq]) => (Number.isSafeInteger(seq) && seq > 0 ? [pending, request, seq] : [pending, request]));

/** A table's epoch as the protocol gives it: an integer (docs/protocol.md). */
const isEpoch = (epoch) => Number.isSafeInteger(epoch);

/**
 * Keep the page's lines for its next load in this tab.
 * @param {string} table the table id
 * @param {{message: object|null, forms: object, asked: Array, focus?: string|null,
 *   epoch?: number|null, identity?: string|null}} lines the message line's, each
 *   form's by its key (data-form), the requests waiting for the GM as [pending id,
 *   form key, the request as sent], those the GM has answered as [pending id, the
 *   request as sent, and the seq of its event when approved in secret] (`answered`: their log entries say what was asked; left out,
 *   the oldest first, where all would not fit), "language" when the language list
 *   had the focus (the page loaded anew gives it back), the table's epoch they are of (a pending id and an event's seq
 *   name another request and another event in another epoch: a restored backup
 *   counts them again), who the page joined as (role and name): they are that
 *   identity's (a shared tablet's next person is someone else), and the page that
 *   keeps them (`keeper`, keeper.mjs: a copy of the tab finds that page alive)
 * @returns {string} KEPT, FULL (the tab's storage is full: the requests waiting for the
 *   GM kept alone if they fit, what they name to follow after the reload; else what the
 *   tab held before removed) or NOT_KEPT
 */
export function keepLines(table, lines, storage = undefined) {
  const forms = Object.entries(lines.forms ?? {}).filter(([, line]) => keptLine(line) && tokenless(line))
    .slice(0, MAX_LINES);
  const asked = keptAsked(lines.asked);
  const answered = keptAnswered(lines.answered);
  const focus = lines.focus === "language" ? "language" : null;
  const epoch = isEpoch(lines.epoch) ? lines.epoch : null;
  const identity = typeof lines.identity === "string" ? lines.identity : null;
  const value = { message: tokenless(lines.message) ? keptLine(lines.message) : null, forms: Object.fromEntries(forms),
    asked, answered, focus, epoch, identity, keeper: keeperOf(lines) };
  // the requests answered are what goes first (the oldest first) when it would not fit
  while (answered.length && JSON.stringify(value).length > MAX_KEPT) answered.shift();
  const key = linesKey(table);
  const status = keepForNextLoad(key, value, storage);
  if (status !== FULL) return status;
  // the lines said before would come back stale: the requests waiting alone, or nothing
  const smaller = { ...value, message: null, forms: {}, answered: [] };
  if (keepForNextLoad(key, smaller, storage) !== KEPT) dropKept(key, storage);
  return FULL;
}

/** The id of the page that kept something (keeper.mjs), or null. */
const keeperOf = (value) => (isPageId(value?.keeper) ? value.keeper : null);

/** The lines the page kept for this load, removed from the tab as they are taken
 * (they are for one load only), with the epoch they are of, the identity that
 * kept them and the page that did (null when none was kept: the page compares them
 * with the table's, its own, and the pages alive); what is not a line is left out. */
export function takeLines(table, storage = undefined) {
  const value = takeForThisLoad(linesKey(table), storage);
  const forms = Object.entries(value?.forms ?? {}).map(([form, line]) => [form, keptLine(line)])
    .filter(([, line]) => line);
  return { message: keptLine(value?.message), forms: Object.fromEntries(forms.slice(0, MAX_LINES)),
    asked: keptAsked(value?.asked), answered: keptAnswered(value?.answered),
    focus: value?.focus === "language" ? "language" : null,
    epoch: isEpoch(value?.epoch) ? value.epoch : null,
    identity: typeof value?.identity === "string" ? value.identity : null, keeper: keeperOf(value) };
}

/**
 * A kept line's text in the page's language now, or null while the event it names
 * is not known yet. A line whose event is `gone` — further back than the log the
 * page loaded from before it joined (its latest 200 events) — names the event by
 * its number instead of its summary: it was left out, and a line the page had said
 * (*the GM approved it: …*) vanished after the reload.
 * @param {object} line a line as keptLine gives it (with `gone: true` once the page
 *   knows its event is not coming)
 * @param {object} texts the page's texts (i18n)
 * @param {(seq: number) => string|null} summaryOf the summary of the event `seq`
 *   in the page's words, or null when the page does not know it
 */
export function lineText(line, texts, summaryOf) {
  let result = line.seq === null ? null : summaryOf(line.seq);
  if (line.seq !== null && result === null && line.gone === true) {
    result = texts.format("ROLLBRIDGE.Web.Message.Earlier", { seq: line.seq });
  }
  if (line.seq !== null && result === null) return null;
  const text = line.key ? texts.format(line.key, result === null ? line.data : { ...line.data, result }) : result;
  // the GM took the event back: the result the line says no longer stands
  return line.undone ? texts.format("ROLLBRIDGE.Web.Message.Undone", { line: text }) : text;
}

// What the viewer typed into the forms is kept across that reload too — the action
// chosen in the action list, each shown form's values and open folds, which forms
// showed their odds (asked again after it: they are the server's answer in a
// language, never kept as text), and the GM's open reason fields with what was
// written in them — for the same table and the same identity (a tab
// that joins as someone else after the reload gets none of it), for that reload
// only. A value holding a token is never kept: it is left out, whatever field it
// was typed in.

/** Where the tab keeps a table's forms for the next load. */
const formsKey = (table) => `rollbridge.forms.${table}`;

/** Values kept at most in one form, and a value's length at most. */
const MAX_VALUES = 100;
const MAX_VALUE = 2_000;
/** A join or admin token (`rbt_…`, `rba_…`), as the shared client's redact finds one. */
const TOKEN = /rb[ta]_[A-Za-z0-9_-]{8,}/;

/** An action's or a parameter's name: the ruleset author's words, in any language
 * (`útok`, `zbraň`, `krytí za zdí`): letters, digits and marks of any script, `_`,
 * `-`, `.` and spaces. */
const isName = (name) => typeof name === "string" && /^[\p{L}\p{N}\p{M}_ .-]{1,100}$/u.test(name);

/** A form's key as the page names it (data-form: "roll", "adjust", "action:NAME"). */
const isFormKey = (key) => key === "roll" || key === "adjust"
  || (typeof key === "string" && key.startsWith("action:") && isName(key.slice("action:".length)));

/** Whether a text typed in the page may be kept: it holds no token (`rbt_…`, `rba_…`)
 * and none of `secrets` (the page's own tokens). */
const keepable = (text, secrets) => !TOKEN.test(text) && !secrets.some((secret) => secret && text.includes(secret));

/** A pending request's id as the server names it (`p3`). */
const isPending = (id) => typeof id === "string" && /^[\w.-]{1,64}$/.test(id);
/** The longest reason the protocol takes (docs/protocol.md, `reject`). */
const MAX_REASON = 500;

/** The GM's reasons being written, as kept: [epoch, pending id, text] (a pending id
 * names one request in its epoch only: a restored backup counts ids again), with
 * what is not one left out, and a text holding a token (or one of `secrets`) too. */
function keptReasons(reasons, secrets = []) {
  return (Array.isArray(reasons) ? reasons : []).filter((kept) => Array.isArray(kept)
    && isEpoch(kept[0]) && isPending(kept[1]) && typeof kept[2] === "string" && kept[2].length <= MAX_REASON
    && keepable(kept[2], secrets))
    .slice(0, MAX_LINES).map(([epoch, pending, text]) => [epoch, pending, text]);
}

/** A form's state as kept: its values ({name, value} or {name, value, checked})
 * and open folds, with what is not one left out, and a value holding a token (or
 * one of `secrets`) too. */
function keptForm(state, secrets = []) {
  const values = (Array.isArray(state?.values) ? state.values : []).filter((entry) =>
    // the GM's secret box too, or it came back unchecked after a language's reload,
    // and the GM's next press was made in the open
    entry && (isName(entry.name) || entry.name === SECRET_BOX)
    && typeof entry.value === "string" && entry.value.length <= MAX_VALUE
    && keepable(entry.value, secrets)
    && (entry.checked === undefined || typeof entry.checked === "boolean"))
    .slice(0, MAX_VALUES)
    .map(({ name, value, checked }) => (checked === undefined ? { name, value } : { name, value, checked }));
  const open = (Array.isArray(state?.open) ? state.open : []).slice(0, MAX_VALUES).map((fold) => fold === true);
  return { values, open };
}

/** The characters `item` adds, as JSON, to an array holding `count` items. */
const itemGrowth = (item, count) => JSON.stringify(item).length + (count ? 1 : 0);
/** The characters `key` with its `item` add, as JSON, to an object holding `count`. */
const entryGrowth = (key, item, count) => JSON.stringify(key).length + 1 + itemGrowth(item, count);

/** The smallest share keepForms tries when the tab's storage is full (halving
 * MAX_KEPT: 10,000, 5,000, … 625 characters). */
const MIN_KEPT = 500;

/**
 * Keep what the viewer typed in the forms for the page's next load in this tab — as
 * much as fits the tab's share (MAX_KEPT), and when the tab's storage is full (its
 * quota refused it) as much as fits half that, a quarter, … down to MIN_KEPT, what did
 * not fit said (`cut`); when none of it fits, that alone is kept (a value with nothing
 * typed in it, `cut`), else the draft the tab held is removed. A draft
 * refused by the quota left the one kept before in place, unsaid: the page loaded anew
 * put back what was typed a while before as if it were the latest. See formsValue.
 * @param {string} table the table id
 * @param {string} identity who the page joined as (role and name)
 * @param {object} state as formsValue takes it
 * @param {string[]} secrets texts never to keep (the page's tokens)
 * @returns {string} KEPT; FULL (the storage is full: a smaller part, or nothing, was
 *   kept); NOT_KEPT (the storage refused)
 */
export function keepForms(table, identity, state, secrets = [], storage = undefined) {
  const key = formsKey(table);
  const status = keepForNextLoad(key, formsValue(identity, state, secrets, MAX_KEPT), storage);
  if (status !== FULL) return status;
  for (let share = MAX_KEPT / 2; share >= MIN_KEPT; share /= 2) {
    if (keepForNextLoad(key, formsValue(identity, state, secrets, share), storage) === KEPT) return FULL;
  }
  // none of it fits: that much said after the reload (the value with nothing in it,
  // `cut`), the older draft gone — removed alone, the page loaded anew said nothing
  // of what was typed, lost
  if (keepForNextLoad(key, formsValue(identity, state, secrets, 0), storage) !== KEPT) dropKept(key, storage);
  return FULL;
}

/**
 * What keepForms keeps of the forms — as much as fits `share` characters: first the
 * forms shown (which they are, their folds), the GM's open reasons, the shown forms' values in order while they fit, then
 * the other forms' drafts whole, the latest first, then which forms' odds were shown.
 * What did not fit is left out and the kept value says so (`cut`: the page loaded anew tells
 * the viewer). It kept all or nothing: with the shown forms and the reasons alone past
 * MAX_KEPT (a GM's reasons of 500 letters, a form of long notes) nothing new was kept,
 * and the tab held what it last kept while all still fit — the reasons written after
 * it lost, unsaid.
 * @param {string} identity who the page joined as (role and name)
 * @param {{action: string|null, forms: object, shown?: string[], odds: string[], reasons?: Array,
 *   keeper?: string}} state the action chosen, each form's state by its key (data-form;
 *   the latest last, those shown last of all), the keys of the forms shown, the forms
 *   whose odds were shown, the GM's open reason fields as [epoch, pending id, text so
 *   far], and the page that keeps them (keeper.mjs)
 * @param {string[]} secrets texts never to keep (the page's tokens)
 * @param {number} share the characters it may take as JSON
 * @returns {object} the value to keep
 */
function formsValue(identity, state, secrets, share) {
  const all = Object.entries(state.forms ?? {}).filter(([key]) => isFormKey(key))
    .map(([key, form]) => [key, keptForm(form, secrets)]);
  const shown = new Set(Array.isArray(state.shown) ? state.shown : []);
  const action = isName(state.action) ? state.action : null;
  const value = { identity, action, forms: {}, odds: [], reasons: [], keeper: keeperOf(state), cut: false };
  let size = JSON.stringify(value).length;
  const fits = (growth) => {
    if (size + growth > share) return false;
    size += growth;
    return true;
  };
  // a value past MAX_VALUE, or a form's values past MAX_VALUES, is left out by keptForm
  // whatever the room: left out, and said (it went unsaid — a JSON list typed in a
  // field, past 2,000 characters, came back empty with nothing said)
  let cut = Object.entries(state.forms ?? {}).some(([key, form]) => isFormKey(key) && Array.isArray(form?.values)
    && (form.values.length > MAX_VALUES || form.values.some((entry) => typeof entry?.value === "string"
      && entry.value.length > MAX_VALUE)));
  const kept = new Map();
  const shownForms = all.filter(([key]) => shown.has(key));
  for (const [key, form] of shownForms) {
    const some = { values: [], open: form.open };
    if (fits(entryGrowth(key, some, kept.size))) kept.set(key, some);
    else cut = true;
  }
  // a reason is short (MAX_REASON) and whole: before the shown forms' values, which a
  // form of long notes would fill the share with
  for (const reason of keptReasons(state.reasons, secrets)) {
    if (fits(itemGrowth(reason, value.reasons.length))) value.reasons.push(reason);
    else cut = true;
  }
  for (const [key, form] of shownForms) {
    const some = kept.get(key);
    for (const entry of some ? form.values : []) {
      if (fits(itemGrowth(entry, some.values.length))) some.values.push(entry);
      else cut = true;
    }
  }
  // the other drafts, the latest first; past MAX_LINES forms none
  for (const [key, form] of all.filter(([key]) => !shown.has(key)).reverse()) {
    if (kept.size < MAX_LINES && fits(entryGrowth(key, form, kept.size))) kept.set(key, form);
    else cut = true;
  }
  // asked again after the reload: the server's answer, nothing the viewer typed
  for (const key of (state.odds ?? []).filter(isFormKey).slice(0, MAX_LINES)) {
    if (fits(itemGrowth(key, value.odds.length))) value.odds.push(key);
  }
  // in their order (the latest last, those shown last of all), as takeForms reads them
  value.forms = Object.fromEntries(all.filter(([key]) => kept.has(key)).map(([key]) => [key, kept.get(key)]));
  value.cut = cut;
  return value;
}

/** What the viewer typed in the forms before this load, removed from the tab as it
 * is taken (it is for one load only), with the identity it was kept for (the page
 * uses it only when it joins as that identity again: formsFor) and whether some of
 * it did not fit (`cut`); what is not a form's state is left out. */
export function takeForms(table, storage = undefined) {
  const value = takeForThisLoad(formsKey(table), storage);
  if (!value || typeof value !== "object" || typeof value.identity !== "string") {
    return { identity: null, action: null, forms: {}, odds: [], reasons: [], keeper: null, cut: false };
  }
  const forms = Object.entries(value.forms ?? {}).filter(([key]) => isFormKey(key)).slice(0, MAX_LINES)
    .map(([key, form]) => [key, keptForm(form)]);
  return {
    identity: value.identity,
    action: isName(value.action) ? value.action : null,
    forms: Object.fromEntries(forms),
    odds: (Array.isArray(value.odds) ? value.odds : []).filter(isFormKey).slice(0, MAX_LINES),
    reasons: keptReasons(value.reasons),
    keeper: keeperOf(value),
    cut: value.cut === true,
  };
}

/** The forms kept (takeForms) when the page joined as `identity`, the one they were
 * kept for; else null (a tab that joins as someone else gets none of it). */
export function formsFor(kept, identity) {
  return kept?.identity && kept.identity === identity ? kept : null;
}
