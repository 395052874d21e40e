// The chat card of a roll or a resolution, and the common-tracks panel, as
// HTML text. Foundry-independent (tests/foundry/js/card.test.mjs): the glue
// puts the text in a ChatMessage or a token HUD. Every value from the server
// is escaped.
//
// The card's own words (the "How" of the steps, "vs", "2 successes", outcome
// labels, statuses, die tags) come from the `i18n` option — game.i18n in
// Foundry (core/i18n.mjs). What the server sends (narration, steps, dice
// labels, track labels, conditions) is already in the user's language: the
// module's hello asked for it. It is shown as it comes.
//
// A card shows: who acted and what, the narration, every dice group with every
// die (a compounding die as 6+6+3, dropped dice struck through, successes and
// failures marked), the result, a few outcome facts, the steps (folded), and
// the new common state of each actor touched.

import { KEYS_ONLY, labelOf, plural } from "../client/i18n.mjs";
import { trackRows } from "./state.mjs";

const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** `value` as the text of an attribute: every HTML-special character escaped. */
export function escapeHtml(value) {
  return String(value ?? "").replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

/** `value` as the content of an element in a chat message. Foundry enriches every
 * message's content (`TextEditor.enrichHTML`): `[[1d20]]` becomes an inline roll,
 * `@UUID[Macro.x]{…}` a link that runs a macro, and escaping does not stop it (the
 * enrichers read the decoded text, node by node). An empty `<span></span>` after
 * each `[` and `@` puts every such pattern into two text nodes and shows nothing: a
 * player's label "[[1d1+99]]" reads as written and rolls nothing. (A `<wbr>` would
 * not do: Foundry's HTML sanitizer keeps only its allowed tags, and `wbr` is not
 * one of them, so the pattern would join again when the message is saved.) */
export const ENRICHER_CUT = "<span></span>";

export function escapeText(value) {
  return escapeHtml(value).replace(/[[@]/g, `$&${ENRICHER_CUT}`);
}

/** The keys of the card's words (each in lang/*.json). */
export const CARD_KEYS = {
  roll: "ROLLBRIDGE.Card.Roll",
  action: "ROLLBRIDGE.Card.Action",
  how: "ROLLBRIDGE.Card.How",
  against: "ROLLBRIDGE.Card.Against",
  yes: "ROLLBRIDGE.Card.Yes",
  no: "ROLLBRIDGE.Card.No",
  rollName: "ROLLBRIDGE.Card.RollName",
};

/** "N successes", by plural category. */
export const SUCCESS_FORMS = {
  one: "ROLLBRIDGE.Card.Successes.one",
  few: "ROLLBRIDGE.Card.Successes.few",
  many: "ROLLBRIDGE.Card.Successes.many",
  other: "ROLLBRIDGE.Card.Successes.other",
};

/** The outcome facts a card shows (in this order), with their labels. */
export const OUTCOME_LABELS = {
  hit: "ROLLBRIDGE.Card.Outcome.hit",
  success: "ROLLBRIDGE.Card.Outcome.success",
  level: "ROLLBRIDGE.Card.Outcome.level",
  code: "ROLLBRIDGE.Card.Outcome.code",
  boxes: "ROLLBRIDGE.Card.Outcome.boxes",
  raises: "ROLLBRIDGE.Card.Outcome.raises",
  kept: "ROLLBRIDGE.Card.Outcome.kept",
  total: "ROLLBRIDGE.Card.Outcome.total",
  status: "ROLLBRIDGE.Card.Outcome.status",
};

/** An actor's common status (rollbridge.contract.STATUSES). */
export const STATUS_LABELS = {
  ok: "ROLLBRIDGE.ActorStatus.ok",
  impaired: "ROLLBRIDGE.ActorStatus.impaired",
  down: "ROLLBRIDGE.ActorStatus.down",
  dying: "ROLLBRIDGE.ActorStatus.dying",
  dead: "ROLLBRIDGE.ActorStatus.dead",
};

/** The tags the dice engine and the rulesets put on a die (its tooltip). */
export const TAG_LABELS = {
  success: "ROLLBRIDGE.Card.Tag.success",
  failure: "ROLLBRIDGE.Card.Tag.failure",
  compounded: "ROLLBRIDGE.Card.Tag.compounded",
  exploded: "ROLLBRIDGE.Card.Tag.exploded",
  explosion: "ROLLBRIDGE.Card.Tag.explosion",
  wild: "ROLLBRIDGE.Card.Tag.wild",
  reroll: "ROLLBRIDGE.Card.Tag.reroll",
  rerolled: "ROLLBRIDGE.Card.Tag.rerolled",
  botch: "ROLLBRIDGE.Card.Tag.botch",
  dropped: "ROLLBRIDGE.Card.Tag.dropped",
  max: "ROLLBRIDGE.Card.Tag.max",
  min: "ROLLBRIDGE.Card.Tag.min",
};

/** A turn hook's card title, by the hook (core/hooks.mjs: a card of an encounter event's hook). */
export const HOOK_LABELS = {
  on_round_start: "ROLLBRIDGE.Card.Hook.on_round_start",
  on_round_end: "ROLLBRIDGE.Card.Hook.on_round_end",
  on_turn_start: "ROLLBRIDGE.Card.Hook.on_turn_start",
  on_turn_end: "ROLLBRIDGE.Card.Hook.on_turn_end",
};

/** Whether `event` is the card of one turn hook's result (core/hooks.mjs hookCard). */
export function isHookCard(event) {
  return Number.isInteger(event?.hook);
}

/** The dice groups of an event, in the shape of rollbridge's `DiceGroup.to_dict()`. */
export function diceGroups(event) {
  const data = event?.data ?? {};
  if (event?.kind === "roll") return data.roll?.groups ?? [];
  if (event?.kind === "resolution" || isHookCard(event)) return data.dice ?? [];
  return [];
}

/**
 * The earlier rolls an event's dice groups name, by request id → a readable name (the
 * group's label, "Notice d6", quoted in the user's language): a chip's reroll (wilddie
 * WD-4) is a group whose `roll` is the request id of the roll it rerolls, which its
 * steps name by that id (the ruleset's words, which older logs verify against). An
 * i18n without the key (KEYS_ONLY) gives the label alone.
 * @param {any} event
 * @param {import('../client/i18n.mjs').I18n} i18n
 * @returns {Map<string, string>}
 */
export function rollNames(event, i18n = KEYS_ONLY) {
  const names = new Map();
  for (const group of diceGroups(event)) {
    const id = group?.roll;
    const label = typeof group?.label === "string" ? group.label.trim() : "";
    if (typeof id !== "string" || id.length < 4 || !label || names.has(id)) continue;
    const quoted = i18n.format(CARD_KEYS.rollName, { label });
    names.set(id, quoted && quoted !== CARD_KEYS.rollName ? quoted : label);
  }
  return names;
}

// What may stand beside a request id inside a longer one ("roll-12" holds "roll-1"):
// letters, digits, marks and the joiners ids are made of, and punctuation within one
// ("a.b", "fvtt:x"). Punctuation after an id (a "." or ":" ending a sentence or a
// clause of a step) ends it where no such character follows.
const ID_CHAR = String.raw`[\p{L}\p{N}\p{M}_\-@#/]`;
const ID_STOP = String.raw`[.:,;!?]`;
const BEFORE = String.raw`(?<!${ID_CHAR}|${ID_STOP})`;
const AFTER = String.raw`(?!${ID_CHAR}|${ID_STOP}${ID_CHAR})`;
const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** A pattern matching each of `ids` as a whole id (BEFORE/AFTER), the longest first. */
function wholeIds(ids) {
  const alternatives = [...ids].sort((a, b) => b.length - a.length).map(escapeRegExp);
  return new RegExp(`${BEFORE}(?:${alternatives.join("|")})${AFTER}`, "gu");
}

/** The names of `names` (rollNames) whose id the `texts` (a card's steps) hold once in
 * all, as a whole id: a chip's step names the roll it rerolls once. An id found more
 * often is a word of the text too (a request id "roll", "chip" or "wild" in "chip spent
 * on roll roll: rerolls the wild die"), which cannot be told from the id: left as
 * written, with no name put in anywhere.
 * @param {Map<string, string>} names
 * @param {unknown[]} texts
 * @returns {Map<string, string>}
 */
export function namedOnce(names, texts) {
  if (!names.size) return names;
  const pattern = wholeIds(names.keys());
  const counts = new Map();
  for (const text of texts) {
    for (const [id] of String(text ?? "").matchAll(pattern)) counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return new Map([...names].filter(([id]) => counts.get(id) === 1));
}

/** `text` with each request id of `names` (rollNames, namedOnce) replaced by its
 * readable name: a whole id only, in one pass — not one id within a longer one
 * ("roll-1" in "roll-12"), nor an id within a name put in for another. */
export function namingRolls(text, names) {
  const out = String(text ?? "");
  if (!names.size) return out;
  return out.replace(wholeIds(names.keys()), (id) => names.get(id));
}

/** What one group amounts to: successes when counted, else its total. */
export function groupResult(group, i18n = KEYS_ONLY) {
  if (group.successes !== undefined && group.successes !== null && group.target !== undefined) {
    return { value: group.successes, text: plural(i18n, SUCCESS_FORMS, group.successes) };
  }
  if (group.total !== undefined && group.total !== null) return { value: group.total, text: String(group.total) };
  const sum = (group.dice ?? []).filter((d) => d.kept !== false).reduce((t, d) => t + d.value, 0);
  return { value: sum, text: String(sum) };
}

function dieHtml(die, i18n) {
  const tags = new Set(die.tags ?? []);
  const classes = ["rb-die", `d${die.faces}`];
  if (die.kept === false) classes.push("rb-dropped");
  for (const tag of ["success", "failure", "compounded", "exploded", "wild", "rerolled"]) {
    if (tags.has(tag)) classes.push(`rb-${tag}`);
  }
  const rolls = die.rolls ?? [die.value];
  if (rolls.length === 1 && rolls[0] === die.faces) classes.push("rb-max");
  if (rolls.length === 1 && rolls[0] === 1) classes.push("rb-min");
  const chain = rolls.length > 1 ? rolls.join("+") : "";
  const tagText = [...tags].map((tag) => labelOf(i18n, TAG_LABELS, tag)).join(", ");
  const title = `d${die.faces}${chain ? `: ${chain}` : ""}${tagText ? ` (${tagText})` : ""}`;
  return `<li class="${classes.join(" ")}" data-value="${escapeHtml(die.value)}" data-rolls="${escapeHtml(rolls.join(","))}" title="${escapeHtml(title)}">`
    + `${chain ? `<span class="rb-chain">${escapeText(chain)}=</span>` : ""}${escapeText(die.value)}</li>`;
}

function groupHtml(group, i18n) {
  const result = groupResult(group, i18n);
  const against = group.target !== undefined && group.target !== null
    ? ` ${escapeText(i18n.format(CARD_KEYS.against, { target: group.target }))}`
    : "";
  return `<div class="rb-group" data-result="${escapeHtml(result.value)}">`
    + `<div class="rb-group-head"><span class="rb-label">${escapeText(group.label ?? "")}</span>`
    + `<span class="rb-formula">${escapeText(group.formula ?? "")}${against}</span></div>`
    + `<ol class="rb-dice">${(group.dice ?? []).map((die) => dieHtml(die, i18n)).join("")}</ol>`
    + `<div class="rb-result">${escapeText(result.text)}${group.note ? ` <span class="rb-note">${escapeText(group.note)}</span>` : ""}</div>`
    + `</div>`;
}

/** An outcome value as shown: yes/no for a boolean, a status by its label, else as it is. */
function outcomeValue(key, value, i18n) {
  if (value === true) return i18n.localize(CARD_KEYS.yes);
  if (value === false) return i18n.localize(CARD_KEYS.no);
  if (key === "status") return labelOf(i18n, STATUS_LABELS, value);
  return String(value);
}

function outcomeHtml(outcome, i18n) {
  if (!outcome || typeof outcome !== "object") return "";
  const items = [];
  for (const key of Object.keys(OUTCOME_LABELS)) {
    const value = outcome[key];
    if (value === undefined || value === null || typeof value === "object") continue;
    items.push(`<li data-key="${escapeHtml(key)}" data-value="${escapeHtml(value)}">`
      + `<span>${escapeText(labelOf(i18n, OUTCOME_LABELS, key))}</span> ${escapeText(outcomeValue(key, value, i18n))}</li>`);
  }
  return items.length ? `<ul class="rb-outcome">${items.join("")}</ul>` : "";
}

/** The common state of one actor: status, tracks as boxes, conditions.
 * @param {any} common
 * @param {{name?: string, i18n?: import('../client/i18n.mjs').I18n}} [options]
 */
export function tracksHtml(common, { name, i18n = KEYS_ONLY } = {}) {
  if (!common) return "";
  const rows = trackRows(common).map((row) => {
    const boxes = row.max > 0 && row.max <= 40
      ? Array.from({ length: row.max }, (_, i) => `<i class="${i < row.value ? "rb-on" : ""}"></i>`).join("")
      : `<span class="rb-bar" style="width:${Math.round(row.ratio * 100)}%"></span>`;
    return `<div class="rb-track" data-track="${escapeHtml(row.key)}" data-value="${row.value}" data-max="${row.max}">`
      + `<span class="rb-track-label">${escapeText(row.label)}</span>`
      + `<span class="rb-boxes">${boxes}</span><span class="rb-track-value">${row.value}/${row.max}</span></div>`;
  }).join("");
  const conditions = (common.conditions ?? []).map((c) => `<li>${escapeText(c)}</li>`).join("");
  const status = escapeHtml(common.status ?? "ok");
  const statusLabel = escapeText(labelOf(i18n, STATUS_LABELS, common.status ?? "ok"));
  const badge = `<span class="rb-status" data-status="${status}">${statusLabel}</span>`;
  return `<div class="rb-state rb-status-${status}">`
    + (name ? `<div class="rb-state-name">${escapeText(name)} ${badge}</div>`
      : `<div class="rb-state-name">${badge}</div>`)
    + rows
    + (conditions ? `<ul class="rb-conditions">${conditions}</ul>` : "")
    + (common.modifier_note ? `<div class="rb-modifier">${escapeText(common.modifier_note)}</div>` : "")
    + `</div>`;
}

/** An action's label as the welcome's ruleset gives it (a non-empty string), else its
 * name as the event gives it (a string), else "".
 * @param {any} actions  `welcome.ruleset.actions`
 * @param {any} action   the event's `data.action`
 */
export function actionLabel(actions, action) {
  if (typeof action !== "string" || !action) return "";
  const spec = actions && typeof actions === "object" && Object.hasOwn(actions, action) ? actions[action] : null;
  return typeof spec?.label === "string" && spec.label.trim() ? spec.label : action;
}

/** The chat card of a `roll` or `resolution` event, or of one turn hook's result
 * (core/hooks.mjs hookCard: a resolution's data, titled by its hook). `showWho:
 * false` leaves the actor's name out of the card's head (a chat message shows its
 * speaker); `i18n` gives the card's own words (game.i18n in Foundry); `actions`: the
 * welcome's ruleset actions (`welcome.ruleset.actions`), whose `label` in the user's
 * language titles a resolution's card (its action's name where it has none).
 * @param {any} event
 * @param {{speakerName?: string, showWho?: boolean, i18n?: import('../client/i18n.mjs').I18n, actions?: any}} [options]
 */
export function renderCard(event, { speakerName, showWho = true, i18n = KEYS_ONLY, actions = null } = {}) {
  const data = event?.data ?? {};
  const isRoll = event?.kind === "roll";
  const who = speakerName || event?.foundry?.speaker?.alias || data.actor || "";
  const hook = isHookCard(event);
  const title = isRoll
    ? (data.label || data.formula || i18n.localize(CARD_KEYS.roll))
    : hook ? labelOf(i18n, HOOK_LABELS, data.hook) : (actionLabel(actions, data.action) || i18n.localize(CARD_KEYS.action));
  const narration = isRoll ? data.text : data.narration;
  const groups = diceGroups(event).map((group) => groupHtml(group, i18n)).join("");
  const total = isRoll
    ? `<div class="rb-total" data-total="${escapeHtml(data.total)}">${escapeText(data.formula)} = <b>${escapeText(data.total)}</b></div>`
    : "";
  // an earlier roll the steps name by its request id (a chip's reroll): by its label
  const names = namedOnce(rollNames(event, i18n), data.steps ?? []);
  const steps = (data.steps ?? []).length
    ? `<details class="rb-steps"><summary>${escapeText(i18n.localize(CARD_KEYS.how))}</summary><ol>${data.steps.map((s) => `<li>${escapeText(namingRolls(s, names))}</li>`).join("")}</ol></details>`
    : "";
  const actors = (event?.actors ?? [])
    .filter((a) => a && !a.removed && a.common)
    .map((a) => tracksHtml(a.common, { name: a.name, i18n }))
    .join("");
  return `<div class="rollbridge-card" data-kind="${escapeHtml(event?.kind)}" data-seq="${escapeHtml(event?.seq)}" data-epoch="${escapeHtml(event?.epoch)}"${hook ? ` data-hook="${escapeHtml(event.hook)}"` : ""}>`
    + `<header class="rb-head">${who && showWho ? `<span class="rb-who">${escapeText(who)}</span>` : ""}<span class="rb-title">${escapeText(title)}</span></header>`
    + (narration ? `<p class="rb-narration">${escapeText(narration)}</p>` : "")
    + `<section class="rb-groups">${groups}</section>`
    + total
    + (isRoll ? "" : outcomeHtml(data.outcome, i18n))
    + steps
    + (actors ? `<section class="rb-actors">${actors}</section>` : "")
    + `</div>`;
}
