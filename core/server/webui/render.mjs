// DOM builders of the web view and the overlay: actors (the common damage
// state), dice, and log entries. Every name, narration and label goes in as
// text (textContent, createElement): nothing a table holds is ever parsed as
// HTML.

import { ROLE_LABELS, labelOf } from "../client/i18n.mjs";
import { DIE_TAG_WORDS, STATUS_WORDS, counted, i18n, kindCode, kindWord } from "./texts.mjs";

/** An element with a class and a text, each optional. */
export function el(tag, className = "", text = null) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== null && text !== undefined) node.textContent = String(text);
  return node;
}

/** A class name made of a code from the wire (a status, a die's tag): letters,
 * digits, - and _ only, so a strange code cannot add other classes. */
export function codeClass(prefix, code) {
  const safe = String(code ?? "").toLowerCase().replace(/[^a-z0-9_-]/g, "");
  return safe ? `${prefix}-${safe}` : "";
}

/** Tracks up to this many boxes are drawn box by box; longer ones as a bar. */
export const MAX_BOXES = 20;

/** One track of the common state: boxes (filled up to its value) or a bar. */
export function renderTrack(track) {
  const value = Number(track.value) || 0;
  const max = Number(track.max) || 0;
  const row = el("div", "track");
  row.dataset.track = String(track.key ?? "");
  row.append(el("span", "track-label", track.label ?? track.key ?? ""));
  if (max > 0 && max <= MAX_BOXES) {
    const boxes = el("span", "boxes");
    for (let i = 0; i < max; i++) boxes.append(el("span", i < value ? "box box-filled" : "box"));
    row.append(boxes);
  } else {
    const bar = el("meter", "bar");
    bar.min = 0;
    bar.max = Math.max(max, 1);
    bar.value = Math.min(value, bar.max);
    row.append(bar);
  }
  row.append(el("span", "track-value", `${value}/${max}`));
  return row;
}

/** An actor as this viewer may see it: name, status, tracks, conditions, modifier. */
export function renderActor(actor, { current = false, mine = false, small = false } = {}) {
  const common = actor.common ?? {};
  const card = el("article", ["actor", codeClass("status", common.status), current ? "actor-current" : "",
    mine ? "actor-mine" : "", small ? "actor-small" : ""].filter(Boolean).join(" "));
  card.dataset.actor = String(actor.id ?? "");
  const head = el("header", "actor-head");
  head.append(el("h3", "actor-name", actor.name ?? actor.id));
  if (mine) head.append(el("span", "mine", i18n.localize("ROLLBRIDGE.Web.Actor.Yours")));
  if (common.status) head.append(el("span", "status", labelOf(i18n, STATUS_WORDS, common.status)));
  if (actor.limited && !small) head.append(el("span", "limited", i18n.localize("ROLLBRIDGE.Web.Actor.Limited")));
  card.append(head);
  for (const track of common.tracks ?? []) card.append(renderTrack(track));
  if (!small) {
    const conditions = common.conditions ?? [];
    if (conditions.length) {
      const list = el("ul", "conditions");
      for (const condition of conditions) list.append(el("li", "condition", condition));
      card.append(list);
    }
    if (common.modifier_note) card.append(el("p", "modifier", common.modifier_note));
    else if (common.modifier) {
      card.append(el("p", "modifier", i18n.format("ROLLBRIDGE.Web.Actor.Modifier", { modifier: common.modifier })));
    }
  }
  return card;
}

/** One die: its value, or the chain of an exploding die (6+1), with its tags; its
 * title (on hover) names its size and its tags in the page's words ("d6, exploded"). */
export function renderDie(die) {
  const tags = Array.isArray(die.tags) ? die.tags : [];
  const rolls = Array.isArray(die.rolls) ? die.rolls : [];
  const classes = ["die", ...tags.map((tag) => codeClass("die", tag))].filter(Boolean);
  const text = rolls.length > 1 ? rolls.join("+") : String(die.value ?? rolls[0] ?? "?");
  const node = el("span", classes.join(" "), text);
  const size = `d${die.faces ?? "?"}`;
  node.title = dieSaid(die, size) ?? size;
  return node;
}

/** What a screen reader says for a die with tags: `text` (its number) and the
 * tags' words ("3, dropped", "6, exploded, success"); null for a die without tags
 * (its number says it all). */
export function dieSaid(die, text) {
  const tags = Array.isArray(die.tags) ? die.tags : [];
  if (!tags.length) return null;
  const words = tags.map(tagWords).filter(Boolean).join(", ");
  return i18n.format("ROLLBRIDGE.Web.Dice.Said", { die: text, tags: words });
}

/** A tag's code said at most (a ruleset's own tag: tagWords). */
const MAX_TAG_SAID = 40;

/** Control and format characters (line breaks, bidi overrides such as U+202E, zero
 * widths): a ruleset's tag is any string, and they went as they were into the die's
 * title and what a screen reader reads — an override turned the rest of the title
 * (*, success*) around. */
const UNSAID = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]+/gu;

/** A die's tag in the page's words: DIE_TAG_WORDS's, or for a tag the page has none
 * for (a ruleset's own) *marked glimmer* — its code alone was read out, a word in
 * no language beside the page's; "" for an empty one. The code without control or
 * format characters, its spaces one, cut to MAX_TAG_SAID characters whole (a cut
 * through a pair of surrogates left half an emoji, read as *�*), and isolated when
 * it holds right-to-left text (as the log's other texts from a ruleset). */
function tagWords(tag) {
  const code = String(tag ?? "");
  if (Object.hasOwn(DIE_TAG_WORDS, code)) return i18n.localize(DIE_TAG_WORDS[code]);
  const plain = code.replace(UNSAID, " ").replace(/\s+/gu, " ").trim();
  const cut = Array.from(plain).slice(0, MAX_TAG_SAID).join("").trim();
  return cut ? i18n.format("ROLLBRIDGE.Web.Dice.Marked", { code: isolated(cut) }) : "";
}

/** A group of dice: its label (unless it is the formula itself, as a plain roll's
 * is) and formula, target and successes, each die; a die with tags is read to a
 * screen reader as words in visually hidden text beside it, the die hidden from it. */
export function renderDiceGroup(group) {
  const box = el("div", "dice-group");
  const label = group.label === group.formula ? null : group.label;
  const head = [label, group.formula].filter(Boolean).map(isolated).join(" · ");
  if (head) box.append(el("div", "dice-head", head));
  const row = el("div", "dice");
  for (const die of group.dice ?? []) {
    const node = renderDie(die);
    row.append(node);
    const said = dieSaid(die, node.textContent);
    if (said) {
      node.setAttribute("aria-hidden", "true");
      row.append(el("span", "visually-hidden", said));
    }
  }
  box.append(row);
  const facts = [];
  if (group.target !== undefined && group.target !== null) {
    facts.push(i18n.format("ROLLBRIDGE.Web.Dice.Target", { target: group.target }));
  }
  if (group.successes !== undefined && group.successes !== null) {
    facts.push(counted(i18n, "ROLLBRIDGE.Web.Count.Successes", Number(group.successes) || 0));
  }
  if (group.total !== undefined && group.total !== null) facts.push(`= ${group.total}`);
  if (group.note) facts.push(group.note);
  if (facts.length) box.append(el("div", "dice-facts", facts.join(" · ")));
  return box;
}

/** The dice groups of a roll or resolution event's data. */
export function diceGroups(data) {
  if (Array.isArray(data?.dice)) return data.dice;
  return data?.roll?.groups ?? [];
}

// Right-to-left letters and marks (as the server's rollbridge.text._RTL): a piece of
// text holding one is put between FSI and PDI where pieces are joined into one line,
// so it cannot reorder the pieces and numbers beside it.
const RTL = /[\u0590-\u08ff\u200f\u061c\ufb1d-\ufdff\ufe70-\ufefe]|[\u{10800}-\u{10fff}\u{1e800}-\u{1efff}]/u;

/** `text` isolated from its neighbours in a joined line when it holds right-to-left text. */
export function isolated(text) {
  return RTL.test(text) ? `\u2068${text}\u2069` : text;
}

function textOf(value) {
  return typeof value === "string" ? value : "";
}

/** The steps of an explanation, folded away. */
function renderSteps(steps) {
  const details = el("details", "steps");
  details.append(el("summary", "", i18n.localize("ROLLBRIDGE.Web.Log.Steps")));
  const list = el("ol");
  for (const step of steps) list.append(el("li", "", textOf(step) || JSON.stringify(step)));
  details.append(list);
  return details;
}

/** A request's type in words: a roll, an action (`resolve`). */
function requestType(type) {
  return type === "roll" ? i18n.localize("ROLLBRIDGE.Web.Kind.Roll")
    : type === "resolve" ? i18n.localize("ROLLBRIDGE.Web.Kind.Resolution") : type ?? "";
}

/** The GM's reason for a rejection as the log says it ("reason: “…”"), the reason
 * isolated from the words around it; "" for none. */
function reasonWords(reason) {
  const text = typeof reason === "string" ? reason.trim() : "";
  return text ? i18n.format("ROLLBRIDGE.Web.Log.Reason", { reason: isolated(text) }) : "";
}

/**
 * What a request waiting for the GM asks for, in a line: its kind in words, and
 * what — a roll's formula, label and actor; an action's name, actor, targets and
 * parameters — so the GM can decide without the log ("Harm: Boris → Guard 2
 * (Direction: dealt)", not "resolve harm"). `words` names them in the ruleset's words
 * (the welcome's): `actionLabel(action)`, and `paramWords(action, key, value)`, a
 * parameter's label and value (a choice's words); else the keys. A parameter said as
 * `trait=notice` was the wire's, in English, on a Czech GM's and a Russian player's
 * page whose form said *Vlastnost: Všímavost*.
 * @returns {{type: string, what: string}}
 */
export function askedFor(request, nameOf, words = {}) {
  const labelOf = words.actionLabel ?? ((action) => action);
  const paramWords = words.paramWords ?? ((action, key, value) => [key, value]);
  const fields = request.fields ?? {};
  const type = requestType(request.type);
  const actor = fields.actor ? nameOf(fields.actor) : "";
  if (request.type === "roll") {
    return { type, what: [fields.formula, fields.label, actor && `(${actor})`].filter(Boolean).map(isolated).join(" ") };
  }
  const targets = (fields.targets ?? []).map((id) => isolated(nameOf(id))).join(", ");
  const who = [actor && isolated(actor), targets && `→ ${targets}`].filter(Boolean).join(" ");
  const params = Object.entries(fields.params ?? {}).map(([key, value]) => {
    const [label, text] = paramWords(fields.action, key, value);
    return `${label}: ${typeof text === "string" ? text : JSON.stringify(text)}`;
  }).join(", ");
  const what = [fields.action && labelOf(fields.action), who].filter(Boolean).join(": ");
  return { type, what: params ? `${what} (${isolated(params)})` : what };
}

/** Who made an event, from its `by` (`gm`, `player`, `player:alice`): the role in
 * the page's words, and the name when it is not the role's (`player (alice)`, as the
 * top bar says the viewer's own). */
export function byLabel(by) {
  const text = String(by ?? "");
  const colon = text.indexOf(":");
  const role = colon < 0 ? text : text.slice(0, colon);
  if (!(role in ROLE_LABELS)) return text;
  const name = colon < 0 ? "" : text.slice(colon + 1);
  const word = labelOf(i18n, ROLE_LABELS, role);
  return name && name !== role ? `${word} (${name})` : word;
}

/** Who asked a request waiting for the GM (its `who`: role and name), as byLabel
 * names who made an event: *Spieler*, *hráč (alice)*. Its name alone was said, the
 * wire's word where the token is named after its role: *p4: player — Wurf 2d6* on a
 * German GM's list and log, where the log's rejection of it said *Spieler*. */
export function askedBy(who) {
  if (typeof who?.role !== "string" || !who.role) return String(who?.name ?? "?");
  return byLabel(who.name ? `${who.role}:${who.name}` : who.role);
}

/** Whose turn it is as `event` left a running encounter (its `table_after`), as a
 * turn's line says it (*round 1: Guard A*); "" when it left none or did not change it. */
function turnAfter(event, nameOf) {
  const encounter = event.table_after?.encounter;
  return encounter?.current ? i18n.format("ROLLBRIDGE.Web.Log.Turn",
    { round: encounter.round, actor: nameOf(encounter.current) }) : "";
}

/** What one event says in a line, for the log. `words` names what the table
 * knows: `trackLabel(actor, key)`, a track's label as the actor's card shows it,
 * and `actionLabel(action)`, an action in the ruleset's words (else the keys). */
export function eventSummary(event, nameOf, words = {}) {
  const trackLabel = words.trackLabel ?? ((actor, key) => key);
  const actionLabel = words.actionLabel ?? ((action) => action);
  const data = event.data ?? {};
  switch (event.kind) {
    case "roll":
      return [data.label, data.actor ? nameOf(data.actor) : "", data.text].filter(Boolean).map(isolated).join(" — ");
    case "resolution":
      return textOf(data.narration) || `${data.action ?? ""}`;
    case "adjusted":
      // a player's event of an NPC's adjustment names the actor only (the boxes are the GM's business)
      if (data.track === undefined) return nameOf(data.actor);
      return `${nameOf(data.actor)}: ${trackLabel(data.actor, data.track)} ${data.delta > 0 ? "+" : ""}${data.delta}`;
    case "undo":
      return i18n.format("ROLLBRIDGE.Web.Log.Undo", { seq: data.undoes, kind: kindWord(i18n, data.kind) });
    case "redo":
      return i18n.format("ROLLBRIDGE.Web.Log.Redo", { seq: data.redoes, kind: kindWord(i18n, data.kind) });
    case "actor.created":
    case "actor.updated":
      return nameOf(data.actor);
    case "actor.removed": // taken out of a running encounter: whose turn it is now
      return [nameOf(data.actor), turnAfter(event, nameOf)].filter(Boolean).join(" — ");
    case "encounter.started": // whose turn it is first, as a turn's line says it (a live event's)
      return turnAfter(event, nameOf);
    case "encounter.turn":
      return i18n.format("ROLLBRIDGE.Web.Log.Turn", { round: data.round, actor: nameOf(data.actor) });
    case "encounter.reordered":
      return (data.order ?? []).map((id) => nameOf(id)).join(", ");
    case "encounter.ended":
      return counted(i18n, "ROLLBRIDGE.Web.Log.Ended", Number(data.rounds) || 0);
    case "approval.requested": {
      const request = data.request ?? {};
      return i18n.format("ROLLBRIDGE.Web.Log.Asks",
        { pending: data.pending, who: askedBy(request.who), ...askedFor(request, nameOf, words) });
    }
    case "approval.rejected": // the GM's reason in the GM's words, the words around it the page's
      return [data.pending && `${data.pending}:`, [...[data.requested_by && byLabel(data.requested_by),
        requestType(data.type)].filter(Boolean).map(isolated), reasonWords(data.reason)].filter(Boolean).join(" — ")]
        .filter(Boolean).join(" ");
    case "dice.committed": // what a player notes before the segment's rolls, to check them later
      return data.commitment ? i18n.format("ROLLBRIDGE.Web.Log.Committed",
        { segment: data.segment, commitment: data.commitment }) : "";
    case "dice.revealed":
    case "dice.revealed.gm":
      return data.seed ? i18n.format("ROLLBRIDGE.Web.Log.Revealed", { segment: data.segment, seed: data.seed }) : "";
    case "dice.drawn": // a right-to-left label cannot reorder the dice drawn ([3, 4] read as 4 ,3)
      return `${isolated(String(data.label ?? ""))} [${(data.results ?? []).join(", ")}]`;
    default:
      return "";
  }
}

/**
 * When an event was executed, as a <time>: the hour and minute in the viewer's
 * time zone, `datetime` the instant in UTC (ISO 8601), the full date and time
 * as its title; null when the event carries no time (older logs, hidden
 * placeholders).
 * @param {number} at the event's `at`: seconds since 1970, UTC
 * @param {string} [lang] the language the page shows dates in
 * @returns {HTMLTimeElement|null}
 */
export function renderTime(at, lang = undefined) {
  const seconds = typeof at === "number" ? at : Number.NaN;
  if (!Number.isFinite(seconds)) return null;
  const when = new Date(seconds * 1000);
  if (Number.isNaN(when.getTime())) return null;
  let short;
  let full;
  try {
    short = when.toLocaleTimeString(lang, { hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
    full = when.toLocaleString(lang, { dateStyle: "full", timeStyle: "long" });
  } catch {
    short = when.toTimeString().slice(0, 5); // a tag Intl does not take
    full = when.toString();
  }
  const node = el("time", "at", short);
  node.dateTime = when.toISOString();
  node.title = full;
  return node;
}

/** Dice groups, each drawn under its heading. */
function diceBox(groups) {
  const box = el("div", "dice-groups");
  for (const group of groups) box.append(renderDiceGroup(group));
  return box;
}

/**
 * The log entry of this viewer's own request waiting for the GM's approval, in the
 * place of the secret placeholder its GM-only event reaches a player as: what the
 * viewer asked, as its page sent it (the server tells players nothing more of it:
 * no dice, no time), and whether it still waits.
 * @param {number} seq the seq of its event (the placeholder's)
 * @param {string} pending its pending id
 * @param {object} request the request as the page sent it
 * @param {(id: string) => string} nameOf an actor's name
 * @param {{waits?: boolean}} words whether it still waits, and the ruleset's words
 *   (askedFor's)
 * @returns {HTMLLIElement}
 */
export function renderMine(seq, pending, request, nameOf, { waits = true, ...words } = {}) {
  const item = el("li", "entry kind-mine");
  item.dataset.seq = String(seq);
  item.dataset.pending = pending;
  const head = el("div", "entry-head");
  head.append(el("span", "seq", `#${seq}`));
  head.append(el("span", "kind", ""));
  item.append(head);
  const { type, what } = askedFor({ type: request.type, fields: request }, nameOf, words);
  item.append(el("p", "summary", i18n.format("ROLLBRIDGE.Web.Log.Mine", { pending, type, what })));
  showMineWaits(item, waits);
  return item;
}

/** Say in the entry of the viewer's own request (renderMine) whether it still waits
 * for the GM. */
export function showMineWaits(item, waits) {
  const kind = item.querySelector(".kind");
  if (kind) kind.textContent = waits ? kindWord(i18n, "approval.requested") : i18n.localize("ROLLBRIDGE.Web.Log.MineDone");
  item.classList.toggle("mine-waits", waits);
}

/** One log entry: seq, who, what, when; a roll's or resolution's dice; its steps
 * folded. `lang`: the language of its time. */
export function renderEvent(event, nameOf, { lang = undefined, ...words } = {}) {
  const data = event.data ?? {};
  const item = el("li", ["entry", codeClass("kind", String(event.kind).replace(".", "-")),
    event.gm_only ? "entry-secret" : ""].filter(Boolean).join(" "));
  item.dataset.seq = String(event.seq);
  const head = el("div", "entry-head");
  head.append(el("span", "seq", `#${event.seq}`));
  const time = renderTime(event.at, lang);
  if (time) head.append(time);
  const kind = el("span", "kind", kindWord(i18n, event.kind));
  const code = kindCode(i18n, event.kind);
  if (code) kind.title = code;
  head.append(kind);
  if (event.by) head.append(el("span", "by", byLabel(event.by)));
  if (event.gm_only) head.append(el("span", "secret-mark", i18n.localize("ROLLBRIDGE.Web.Log.GmOnly")));
  item.append(head);
  const summary = eventSummary(event, nameOf, words);
  if (summary) item.append(el("p", event.kind === "resolution" ? "narration" : "summary", summary));
  const groups = diceGroups(data);
  if (groups.length && (event.kind === "roll" || event.kind === "resolution")) item.append(diceBox(groups));
  // a turn's (or an action's) hooks: each one's narration and the dice it rolled
  // (wilddie's recovery from Shaken at the start of a turn, WD-9)
  for (const hook of data.hooks ?? []) {
    if (textOf(hook.narration)) item.append(el("p", "narration", hook.narration));
    if (Array.isArray(hook.dice) && hook.dice.length) item.append(diceBox(hook.dice));
  }
  if (Array.isArray(data.steps) && data.steps.length) item.append(renderSteps(data.steps));
  return item;
}
