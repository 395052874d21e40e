// The numbers of the dice in the web view: roll statistics (issue 17, item 3;
// docs/statistics.md), the body of a `stats` reply drawn as inline SVG charts, and
// the odds of a roll or an action before it is made (an `odds` reply as a table of
// its totals or outcomes, docs/protocol.md "Odds"); built with the DOM
// (createElementNS, textContent) like every other part of the view, so no name
// or label is ever parsed as markup. The server counts only what the asker's
// role may see; this module only draws the reply it was given.

import { chance, mean, percent, TINY, truncatedEntry } from "../client/chance.mjs";
import { counted } from "./texts.mjs";

const SVG = "http://www.w3.org/2000/svg";

/** An SVG element with its attributes (presentation attributes, not styles:
 * the page's Content-Security-Policy allows no inline style). */
function svg(tag, attributes = {}, text = null) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  if (text !== null && text !== undefined) node.textContent = String(text);
  return node;
}

/** An HTML element with a class and a text. */
function html(tag, className = "", text = null) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== null && text !== undefined) node.textContent = String(text);
  return node;
}

/** A number as the charts show it in `lang`: integers as they are, others to 2
 * places (3.50, 3,50); a dash for none. */
export function shown(value, lang = "en") {
  if (value === null || value === undefined || value === "" || !Number.isFinite(Number(value))) return "–";
  const number = Number(value);
  if (Number.isInteger(number)) return String(number);
  try {
    return number.toLocaleString(lang, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  } catch {
    return number.toFixed(2);
  }
}

/** The faces of one die's counts, in order: [[face, count], …] (faces that are
 * no integers are left out). */
export function faceCounts(die) {
  return Object.entries(die?.faces ?? {})
    .map(([face, count]) => [Number(face), Number(count) || 0])
    .filter(([face]) => Number.isInteger(face))
    .sort((a, b) => a[0] - b[0]);
}

/** What one die size's mean was against a fair die's, as a sentence. */
function dieCaption(i18n, faces, die) {
  return i18n.format("ROLLBRIDGE.Web.Stats.DieCaption", {
    die: `d${faces}`,
    dice: counted(i18n, "ROLLBRIDGE.Web.Count.Dice", Number(die.count) || 0),
    mean: shown(die.mean, i18n.lang),
    expected: shown(die.expected, i18n.lang),
  });
}

/**
 * The faces of one die size as a bar chart: one bar per face (`data-face`,
 * `data-count`), its count above it, and a dashed line at the count a fair die
 * would give each face (count / faces). Faces and counts are labelled for up
 * to 20 faces; larger dice show their bars only (each bar has a title).
 * @param {I18n} i18n the page's texts
 * @param {string|number} faces the die size
 * @param {object} die the reply's entry of that die size ({count, faces, mean, expected, …})
 * @returns {SVGSVGElement}
 */
export function facesChart(i18n, faces, die) {
  const entries = faceCounts(die);
  const width = 280;
  const height = 120;
  const top = 14;
  const bottom = 18;
  const plot = height - top - bottom;
  const most = Math.max(1, ...entries.map(([, count]) => count));
  const fair = Number(faces) > 0 ? (Number(die.count) || 0) / Number(faces) : 0;
  const scale = plot / Math.max(most, fair, 1);
  const slot = entries.length ? width / entries.length : width;
  const chart = svg("svg", {
    viewBox: `0 0 ${width} ${height}`, class: "stats-chart", role: "img", "data-faces": faces,
  });
  chart.append(svg("title", {}, dieCaption(i18n, faces, die)));
  chart.append(svg("line", { x1: 0, x2: width, y1: top + plot, y2: top + plot, class: "stats-base" }));
  entries.forEach(([face, count], index) => {
    const barHeight = count * scale;
    const bar = svg("rect", {
      x: (index * slot + slot * 0.15).toFixed(1), y: (top + plot - barHeight).toFixed(1),
      width: (slot * 0.7).toFixed(1), height: barHeight.toFixed(1), class: "stats-bar",
      "data-face": face, "data-count": count,
    });
    bar.append(svg("title", {}, i18n.format("ROLLBRIDGE.Web.Stats.FaceCount", { face, count })));
    chart.append(bar);
    if (entries.length <= 20) {
      const middle = (index * slot + slot / 2).toFixed(1);
      chart.append(svg("text", { x: middle, y: height - 4, class: "stats-axis", "text-anchor": "middle" }, face));
      if (count) {
        chart.append(svg("text", { x: middle, y: (top + plot - barHeight - 3).toFixed(1), class: "stats-count",
          "text-anchor": "middle" }, count));
      }
    }
  });
  if (fair > 0) {
    const y = (top + plot - fair * scale).toFixed(1);
    const line = svg("line", { x1: 0, x2: width, y1: y, y2: y, class: "stats-fair", "stroke-dasharray": "4 3" });
    line.append(svg("title", {}, i18n.format("ROLLBRIDGE.Web.Stats.Fair", { count: shown(fair, i18n.lang) })));
    chart.append(line);
  }
  return chart;
}

/**
 * The mean of one die size against a fair die's expected mean, on a scale
 * from 1 to the die's faces: a bar to the mean, a dashed mark at the expected.
 * @param {I18n} i18n the page's texts
 * @param {string|number} faces the die size
 * @param {object} die the reply's entry of that die size
 * @returns {SVGSVGElement}
 */
export function meanChart(i18n, faces, die) {
  const width = 280;
  const height = 22;
  const most = Math.max(Number(faces) || 1, 1);
  const at = (value) => ((Math.min(Math.max(Number(value) || 0, 0), most) / most) * width).toFixed(1);
  const chart = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "stats-mean-chart", role: "img",
    "data-faces": faces, "data-mean": die.mean ?? "", "data-expected": die.expected ?? "" });
  chart.append(svg("title", {}, dieCaption(i18n, faces, die)));
  chart.append(svg("rect", { x: 0, y: 6, width, height: 10, class: "stats-mean-track" }));
  if (Number.isFinite(Number(die.mean)) && die.mean !== null) {
    chart.append(svg("rect", { x: 0, y: 6, width: at(die.mean), height: 10, class: "stats-mean" }));
  }
  const expected = at(die.expected);
  chart.append(svg("line", { x1: expected, x2: expected, y1: 1, y2: 21, class: "stats-expected",
    "stroke-dasharray": "3 2" }));
  return chart;
}

/**
 * What one summary (the session's or an actor's) counted, as a section: the
 * counts in a line, a faces chart and a mean chart per die size, the ruleset's
 * non-zero counts (their labels in the asker's language, from the server).
 * @param {I18n} i18n the page's texts
 * @param {string} title the section's heading (a name: put in as text)
 * @param {object} summary the reply's SUMMARY
 * @returns {HTMLElement}
 */
export function summarySection(i18n, title, summary) {
  const section = html("section", "stats-summary");
  section.append(html("h3", "stats-title", title));
  section.append(html("p", "stats-line", [
    counted(i18n, "ROLLBRIDGE.Web.Count.Rolls", Number(summary.rolls) || 0),
    counted(i18n, "ROLLBRIDGE.Web.Count.Successes", Number(summary.successes) || 0),
    counted(i18n, "ROLLBRIDGE.Web.Count.Botches", Number(summary.botches) || 0),
    counted(i18n, "ROLLBRIDGE.Web.Count.Explosions", Number(summary.explosions) || 0),
  ].join(" · ")));
  for (const [faces, die] of Object.entries(summary.dice ?? {})) {
    const figure = html("figure", "stats-die");
    figure.dataset.faces = faces;
    figure.append(facesChart(i18n, faces, die), meanChart(i18n, faces, die));
    figure.append(html("figcaption", "stats-caption", dieCaption(i18n, faces, die)));
    section.append(figure);
  }
  const meant = (summary.ruleset ?? []).filter((row) => Number(row.value));
  if (meant.length) {
    const list = html("dl", "stats-ruleset");
    for (const row of meant) list.append(html("dt", "", row.label ?? row.key), html("dd", "", shown(row.value, i18n.lang)));
    section.append(list);
  }
  return section;
}

/**
 * The whole `stats` reply ({"stats": …} or its inside) as a panel: what it
 * spans, the session first, then each actor (`data-actor` on its section).
 * @param {I18n} i18n the page's texts
 * @param {object} reply the result of a `stats` request
 * @returns {HTMLElement}
 */
export function renderStats(i18n, reply) {
  const stats = reply?.stats ?? reply ?? {};
  const panel = html("div", "stats-panel");
  const none = stats.first_seq === null || stats.first_seq === undefined;
  panel.append(html("p", "stats-span", none
    ? i18n.localize("ROLLBRIDGE.Web.Stats.NoEvents")
    : i18n.format("ROLLBRIDGE.Web.Stats.Span", {
      events: counted(i18n, "ROLLBRIDGE.Web.Count.Events", Number(stats.events) || 0),
      first: stats.first_seq,
      last: stats.last_seq,
    })));
  const session = summarySection(i18n, i18n.localize("ROLLBRIDGE.Web.Stats.Session"), stats.session ?? {});
  session.dataset.session = "";
  panel.append(session);
  for (const [id, actor] of Object.entries(stats.actors ?? {})) {
    const section = summarySection(i18n, actor.name ?? id, actor);
    section.dataset.actor = id;
    panel.append(section);
  }
  return panel;
}

/**
 * The scope fields of a `stats` request for a choice of the panel's selector:
 * "all" (the whole retained log), "encounter" (from the seq of the running
 * encounter's `encounter.started`), "hour" (the last hour by the server's
 * event times, from `now` in milliseconds).
 * @returns {object|null} null when the choice cannot be asked (no encounter seq)
 */
export function scopeFields(choice, { encounterSeq = null, now = Date.now() } = {}) {
  if (choice === "encounter") return Number.isInteger(encounterSeq) ? { encounter: encounterSeq } : null;
  if (choice === "hour") return { from_time: Math.floor(now / 1000) - 3600 };
  return {};
}

/** A table of rows of cells under a header row; each probability's exact fraction
 * is its cell's title. */
function oddsTable(header, rows) {
  const table = html("table", "odds-table");
  const head = html("tr");
  for (const text of header) {
    const cell = html("th", "", text);
    cell.scope = "col";
    head.append(cell);
  }
  table.append(html("thead"), html("tbody"));
  table.tHead.append(head);
  for (const cells of rows) {
    const row = html("tr");
    cells.forEach(([text, title], index) => {
      const cell = html(index ? "td" : "th", "", text);
      if (!index) cell.scope = "row";
      if (title) cell.title = title;
      row.append(cell);
    });
    table.tBodies[0].append(row);
  }
  return table;
}

/**
 * A formula's totals as rows of the odds table: each total, its chance (its exact
 * fraction as the title) and the chance of at least it; the long tail of an
 * exploding roll (all of it under 0.01 %) in one last row, "≥ total". The chance of
 * at least a total is summed from the floats, so whether it is exactly 1 (the
 * first total) or less (every later one: the totals before it can be rolled) is
 * told to percent, which then never rounds it to 100 % or 0 %.
 * @param {Array<{total: number, probability: string, float: number, log10?: number}>} outcomes
 * @param {string} lang
 * @returns {Array<Array<[string, string?]>>}
 */
export function totalRows(outcomes, lang) {
  const inside = { zero: false, one: false };
  let above = 1;
  const rows = [];
  for (const outcome of outcomes) {
    if (above < TINY && rows.length) {
      const rest = percent(above, lang, inside);
      rows.push([[`≥ ${outcome.total}`], [rest], [rest]]);
      break;
    }
    rows.push([[String(outcome.total)], [chance(outcome, lang), outcome.probability],
      [percent(above, lang, rows.length ? inside : { one: true })]]);
    above -= Number(outcome.float) || 0;
  }
  return rows;
}

/**
 * An `odds` reply as the form shows it: a line that says what it is (the
 * notation's mean, or the action's name) and a table — each total with its chance
 * and the chance of at least it, or each outcome (in the asker's language, from
 * the server) with its chance; what the explosion depth left out, when anything.
 * @param {I18n} i18n the page's texts
 * @param {object} reply the result of an `odds` request
 * @param {string} name what was asked, as the viewer reads it (the notation, the action's label)
 * @returns {{line: string, box: HTMLElement}}
 */
export function renderOdds(i18n, reply, name) {
  const lang = i18n.lang;
  const box = html("div", "odds");
  let line;
  let truncated;
  if (reply?.distribution) {
    const law = reply.distribution;
    line = i18n.format("ROLLBRIDGE.Web.Odds.Mean", { formula: name, mean: mean(law, lang) });
    box.append(oddsTable([i18n.localize("ROLLBRIDGE.Web.Odds.Total"), i18n.localize("ROLLBRIDGE.Web.Odds.Chance"),
      i18n.localize("ROLLBRIDGE.Web.Odds.AtLeast")], totalRows(law.outcomes ?? [], lang)));
    truncated = truncatedEntry(law);
  } else {
    const odds = reply?.odds ?? {};
    line = i18n.format("ROLLBRIDGE.Web.Odds.Action", { action: name });
    const rows = (odds.outcomes ?? []).map((outcome) => [[String(outcome.label ?? outcome.outcome)],
      [chance(outcome, lang), outcome.probability]]);
    box.append(oddsTable([i18n.localize("ROLLBRIDGE.Web.Odds.Outcome"), i18n.localize("ROLLBRIDGE.Web.Odds.Chance")],
      rows));
    truncated = truncatedEntry(odds);
  }
  if (truncated) {
    const note = i18n.format("ROLLBRIDGE.Web.Odds.Truncated", { percent: chance(truncated, lang) });
    box.append(html("p", "odds-note", note));
  }
  box.prepend(html("p", "odds-line", line));
  return { line, box };
}
