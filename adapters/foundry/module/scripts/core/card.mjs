// The chat card of a roll or a resolution, and the common-tracks panel, as
// HTML text. Foundry-independent (tests/foundry/js/card.test.mjs): the glue
// puts the text in a ChatMessage or a token HUD. Every value from the server
// is escaped.
//
// A card shows: who acted and what, the narration, every dice group with every
// die (a compounding die as 6+6+3, dropped dice struck through, successes and
// failures marked), the result, a few outcome facts, the steps (folded), and
// the new common state of each actor touched.

import { trackRows } from "./state.mjs";

const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function escapeHtml(value) {
  return String(value ?? "").replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

const OUTCOME_KEYS = ["hit", "success", "level", "code", "boxes", "raises", "kept", "total", "status"];

/** The dice groups of an event, in the shape of rollbridge's `DiceGroup.to_dict()`. */
export function diceGroups(event) {
  const data = event?.data ?? {};
  if (event?.kind === "roll") return data.roll?.groups ?? [];
  if (event?.kind === "resolution") return data.dice ?? [];
  return [];
}

/** What one group amounts to: successes when counted, else its total. */
export function groupResult(group) {
  if (group.successes !== undefined && group.successes !== null && group.target !== undefined) {
    return { value: group.successes, text: `${group.successes} ${group.successes === 1 ? "success" : "successes"}` };
  }
  if (group.total !== undefined && group.total !== null) return { value: group.total, text: String(group.total) };
  const sum = (group.dice ?? []).filter((d) => d.kept !== false).reduce((t, d) => t + d.value, 0);
  return { value: sum, text: String(sum) };
}

function dieHtml(die) {
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
  const title = `d${die.faces}${chain ? `: ${chain}` : ""}${[...tags].length ? ` (${[...tags].join(", ")})` : ""}`;
  return `<li class="${classes.join(" ")}" data-value="${escapeHtml(die.value)}" data-rolls="${escapeHtml(rolls.join(","))}" title="${escapeHtml(title)}">`
    + `${chain ? `<span class="rb-chain">${escapeHtml(chain)}=</span>` : ""}${escapeHtml(die.value)}</li>`;
}

function groupHtml(group) {
  const result = groupResult(group);
  const against = group.target !== undefined && group.target !== null ? ` vs ${escapeHtml(group.target)}` : "";
  return `<div class="rb-group" data-result="${escapeHtml(result.value)}">`
    + `<div class="rb-group-head"><span class="rb-label">${escapeHtml(group.label ?? "")}</span>`
    + `<span class="rb-formula">${escapeHtml(group.formula ?? "")}${against}</span></div>`
    + `<ol class="rb-dice">${(group.dice ?? []).map(dieHtml).join("")}</ol>`
    + `<div class="rb-result">${escapeHtml(result.text)}${group.note ? ` <span class="rb-note">${escapeHtml(group.note)}</span>` : ""}</div>`
    + `</div>`;
}

function outcomeHtml(outcome) {
  if (!outcome || typeof outcome !== "object") return "";
  const items = [];
  for (const key of OUTCOME_KEYS) {
    const value = outcome[key];
    if (value === undefined || value === null || typeof value === "object") continue;
    items.push(`<li data-key="${escapeHtml(key)}"><span>${escapeHtml(key)}</span> ${escapeHtml(value)}</li>`);
  }
  return items.length ? `<ul class="rb-outcome">${items.join("")}</ul>` : "";
}

/** The common state of one actor: status, tracks as boxes, conditions. */
export function tracksHtml(common, { name } = {}) {
  if (!common) return "";
  const rows = trackRows(common).map((row) => {
    const boxes = row.max > 0 && row.max <= 40
      ? Array.from({ length: row.max }, (_, i) => `<i class="${i < row.value ? "rb-on" : ""}"></i>`).join("")
      : `<span class="rb-bar" style="width:${Math.round(row.ratio * 100)}%"></span>`;
    return `<div class="rb-track" data-track="${escapeHtml(row.key)}" data-value="${row.value}" data-max="${row.max}">`
      + `<span class="rb-track-label">${escapeHtml(row.label)}</span>`
      + `<span class="rb-boxes">${boxes}</span><span class="rb-track-value">${row.value}/${row.max}</span></div>`;
  }).join("");
  const conditions = (common.conditions ?? []).map((c) => `<li>${escapeHtml(c)}</li>`).join("");
  const status = escapeHtml(common.status ?? "ok");
  return `<div class="rb-state rb-status-${status}">`
    + (name ? `<div class="rb-state-name">${escapeHtml(name)} <span class="rb-status">${status}</span></div>`
      : `<div class="rb-state-name"><span class="rb-status">${status}</span></div>`)
    + rows
    + (conditions ? `<ul class="rb-conditions">${conditions}</ul>` : "")
    + (common.modifier_note ? `<div class="rb-modifier">${escapeHtml(common.modifier_note)}</div>` : "")
    + `</div>`;
}

/** The chat card of a `roll` or `resolution` event. `showWho: false` leaves the
 * actor's name out of the card's head (a chat message shows its speaker). */
export function renderCard(event, { speakerName, showWho = true } = {}) {
  const data = event?.data ?? {};
  const isRoll = event?.kind === "roll";
  const who = speakerName || event?.foundry?.speaker?.alias || data.actor || "";
  const title = isRoll ? (data.label || data.formula || "roll") : (data.action || "action");
  const narration = isRoll ? data.text : data.narration;
  const groups = diceGroups(event).map(groupHtml).join("");
  const total = isRoll
    ? `<div class="rb-total" data-total="${escapeHtml(data.total)}">${escapeHtml(data.formula)} = <b>${escapeHtml(data.total)}</b></div>`
    : "";
  const steps = (data.steps ?? []).length
    ? `<details class="rb-steps"><summary>How</summary><ol>${data.steps.map((s) => `<li>${escapeHtml(s)}</li>`).join("")}</ol></details>`
    : "";
  const actors = (event?.actors ?? [])
    .filter((a) => a && !a.removed && a.common)
    .map((a) => tracksHtml(a.common, { name: a.name }))
    .join("");
  return `<div class="rollbridge-card" data-kind="${escapeHtml(event?.kind)}" data-seq="${escapeHtml(event?.seq)}" data-epoch="${escapeHtml(event?.epoch)}">`
    + `<header class="rb-head">${who && showWho ? `<span class="rb-who">${escapeHtml(who)}</span>` : ""}<span class="rb-title">${escapeHtml(title)}</span></header>`
    + (narration ? `<p class="rb-narration">${escapeHtml(narration)}</p>` : "")
    + `<section class="rb-groups">${groups}</section>`
    + total
    + (isRoll ? "" : outcomeHtml(data.outcome))
    + steps
    + (actors ? `<section class="rb-actors">${actors}</section>` : "")
    + `</div>`;
}
