// The odds of an action (or a dice formula) before it is rolled (issue 18,
// item 5): the `odds` request and its answer as a small table of outcomes
// with percentages. Foundry-independent (tests/foundry/js/odds.test.mjs).
//
// The server answers an action's odds as `odds: {"outcomes": [{outcome,
// label, probability ("5/36"), float}], "truncated", "truncated_float",
// "totals"}` (the labels already in the viewer's language), and a formula's as
// `distribution: {formula, depth, outcomes: [{total, probability, float}],
// mean, mean_float, truncated, truncated_float}` — in a `result`, or in a reply
// of type `odds`; both are read. A formula's totals are shown one row each, or,
// past MAX_ROWS, in runs of neighbouring totals whose exact probabilities are
// summed (rationals with BigInt, as the server gives them). Its refusals are
// quiet here: `odds_hidden` (a player's odds would depend on numbers the GM
// keeps hidden; `details.actor` names whose) gives a one-line note, every
// other error — `odds_unavailable` (no odds for that action), `unknown_type`
// (a server older than odds), anything else — shows nothing at all.

import { chance, mean as meanText, parseFraction, percent, truncatedEntry } from "../client/chance.mjs";
import { escapeHtml, escapeText } from "./card.mjs";
import { serversCode } from "./origin.mjs";

export { parseFraction, percent };

/** The most rows a formula's distribution is shown in (more totals are grouped). */
export const MAX_ROWS = 16;

// -- exact fractions ("p/q" text, as the server writes them) --------------------------------

function gcd(a, b) {
  let x = a < 0n ? -a : a;
  let y = b < 0n ? -b : b;
  while (y) [x, y] = [y, x % y];
  return x || 1n;
}

/** The exact sum of "p/q" texts as "p/q" ("p" when whole); null if one is not a fraction. */
export function sumFractions(texts) {
  let [p, q] = [0n, 1n];
  for (const text of texts) {
    const f = parseFraction(text);
    if (!f) return null;
    [p, q] = [p * f[1] + f[0] * q, q * f[1]];
    const g = gcd(p, q);
    [p, q] = [p / g, q / g];
  }
  return q === 1n ? String(p) : `${p}/${q}`;
}

/**
 * A formula's distribution as odds: one outcome per total, or, past `maxRows`
 * totals, runs of neighbouring totals ("3–5") with their summed probability.
 */
export function distributionOdds(distribution, maxRows = MAX_ROWS) {
  const totals = distribution?.outcomes ?? [];
  const size = Math.max(1, Math.ceil(totals.length / maxRows));
  const outcomes = [];
  for (let i = 0; i < totals.length; i += size) {
    const run = totals.slice(i, i + size);
    const first = String(run[0].total);
    const last = String(run.at(-1).total);
    const name = run.length > 1 ? `${first}–${last}` : first;
    const outcome = {
      outcome: name,
      label: name,
      probability: run.length > 1 ? (sumFractions(run.map((o) => o.probability)) ?? "") : String(run[0].probability ?? ""),
      float: run.reduce((t, o) => t + (Number(o.float) || 0), 0),
    };
    // a run whose floats all read 0 is still as likely as its likeliest total at least
    const logs = run.map((o) => Number(o.log10)).filter((log) => Number.isFinite(log));
    if (!outcome.float && logs.length) outcome.log10 = Math.max(...logs);
    outcomes.push(outcome);
  }
  return {
    outcomes,
    truncated: distribution?.truncated ?? "0",
    truncated_float: Number(distribution?.truncated_float) || 0,
    ...(distribution?.truncated_log10 === undefined ? {} : { truncated_log10: distribution.truncated_log10 }),
    mean: distribution?.mean ?? null,
    mean_float: distribution?.mean_float ?? null,
    totals: null,
  };
}

/** The card's words (lang/*.json). */
export const ODDS_KEYS = {
  title: "ROLLBRIDGE.Odds.Title",
  none: "ROLLBRIDGE.Odds.None",
  mean: "ROLLBRIDGE.Odds.Mean",
  truncated: "ROLLBRIDGE.Odds.Truncated",
  hidden: "ROLLBRIDGE.Odds.Hidden",
};

/** An `odds` request: an action (actor, targets, params, assume), or a formula.
 * @param {{id?: string, action?: string, formula?: string, actor?: any, targets?: any, params?: any, assume?: any}} fields
 */
export function oddsMessage({ id, action, formula, actor, targets, params, assume }) {
  if (formula) return { type: "odds", id, formula: String(formula) };
  const message = { type: "odds", id, action };
  if (actor) message.actor = actor;
  if (targets?.length) message.targets = [...targets];
  if (params && Object.keys(params).length) message.params = params;
  if (assume && Object.keys(assume).length) message.assume = assume;
  return message;
}

/**
 * What to show for an odds reply or error: {kind: "odds", odds} for an answer,
 * {kind: "hidden", actor} for `odds_hidden`, null for anything else (shown as nothing).
 * @param {{reply?: any, error?: any}} [answer]
 */
export function oddsResult({ reply, error } = {}) {
  if (error) {
    if (serversCode(error) === "odds_hidden") return { kind: "hidden", actor: error.details?.actor ?? null };
    return null;
  }
  const odds = reply?.odds ?? (reply?.distribution ? distributionOdds(reply.distribution) : null);
  if (!odds || !Array.isArray(odds.outcomes)) return null;
  return { kind: "odds", odds };
}

/** The outcomes as rows: {outcome, label, probability, percent, ratio}. */
export function oddsRows(odds, lang = "en") {
  return (odds?.outcomes ?? []).map((o) => ({
    outcome: String(o.outcome ?? ""),
    label: String(o.label ?? o.outcome ?? ""),
    probability: String(o.probability ?? ""),
    percent: chance(o, lang),
    ratio: Math.max(0, Math.min(1, Number(o.float) || 0)),
  }));
}

/**
 * The odds as an HTML block (a chat card before a roll, or a dialog's part).
 * `title` names what is rolled; `actorName` maps an actor id to a name for
 * the hidden note. Everything from the server is escaped.
 * @param {any} result
 * @param {{i18n?: import('../client/i18n.mjs').I18n, title?: string, lang?: string, actorName?: (id: string) => string}} [options]
 */
export function oddsHtml(result, { i18n, title = "", lang = "en", actorName = (id) => id } = {}) {
  if (!result) return "";
  if (result.kind === "hidden") {
    const actor = result.actor ? actorName(result.actor) : "?";
    return `<div class="rollbridge-odds rb-odds-hidden"><p class="rb-note">${escapeText(i18n.format(ODDS_KEYS.hidden, { actor }))}</p></div>`;
  }
  const rows = oddsRows(result.odds, lang).map((row) => `<li data-outcome="${escapeHtml(row.outcome)}" data-probability="${escapeHtml(row.probability)}" title="${escapeHtml(row.probability)}">`
    + `<span class="rb-odds-label">${escapeText(row.label)}</span>`
    + `<span class="rb-odds-bar"><i style="width:${Math.round(row.ratio * 100)}%"></i></span>`
    + `<span class="rb-odds-percent">${escapeText(row.percent)}</span></li>`).join("");
  const cut = truncatedEntry(result.odds);
  const truncated = cut
    ? `<p class="rb-note rb-odds-truncated">${escapeText(i18n.format(ODDS_KEYS.truncated, { percent: chance(cut, lang) }))}</p>`
    : "";
  const meanFloat = Number(result.odds.mean_float);
  const mean = result.odds.mean_float !== null && result.odds.mean_float !== undefined && Number.isFinite(meanFloat)
    ? `<p class="rb-note rb-odds-mean" title="${escapeHtml(result.odds.mean ?? "")}">${escapeText(i18n.format(ODDS_KEYS.mean, {
      mean: meanText(result.odds, lang),
    }))}</p>`
    : "";
  return `<div class="rollbridge-odds">`
    + `<header class="rb-head"><span class="rb-title">${escapeText(i18n.format(ODDS_KEYS.title, { what: title }))}</span></header>`
    + `<ol class="rb-odds">${rows}</ol>${mean}${truncated}</div>`;
}
