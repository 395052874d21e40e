// What the page shows for a moment and keeps across the reload a language's choice
// makes: the message line and each form's outcome line (the GM approved a player's
// roll, a roll's result, a refusal), and which of this page's requests still wait
// for the GM. They are kept in the tab's sessionStorage as what they say — a
// message id and its arguments, or the seq of the event whose summary they show —
// never as their text, so the page loaded anew shows them in the language chosen.
// The page takes them back (and removes them) once, as it starts.

import { tabStorage } from "./session.mjs";

/** Where the tab keeps a table's lines for the next load. */
const linesKey = (table) => `rollbridge.lines.${table}`;

/** Lines kept at most, and the size of what is kept (a bound for what a page holds). */
const MAX_LINES = 50;
const MAX_KEPT = 20_000;

/** A line as kept: a message id (`ROLLBRIDGE.…`) with its arguments (strings and
 * numbers), the seq of an event whose summary it shows or fills in as `result`,
 * its kind ("info", "error") and a refusal's code; null when it is none of that. */
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
  return { key, data, seq, kind, code };
}

/**
 * Keep the page's lines for its next load in this tab.
 * @param {string} table the table id
 * @param {{message: object|null, forms: object, asked: Array}} lines the message
 *   line's, each form's by its key (data-form), and the requests waiting for the GM
 *   as [pending id, form key]
 * @returns {boolean} whether they were kept
 */
export function keepLines(table, lines, storage = undefined) {
  const forms = Object.entries(lines.forms ?? {}).filter(([, line]) => keptLine(line)).slice(0, MAX_LINES);
  const asked = (lines.asked ?? []).filter(([id, form]) => typeof id === "string" && typeof form === "string")
    .slice(0, MAX_LINES);
  const text = JSON.stringify({ message: keptLine(lines.message), forms: Object.fromEntries(forms), asked });
  if (text.length > MAX_KEPT) return false;
  try {
    tabStorage(storage)?.setItem(linesKey(table), text);
    return true;
  } catch {
    return false; // storage full or refused: the lines go with the reload
  }
}

/** The lines the page kept for this load, removed from the tab as they are taken
 * (they are for one load only); what is not a line is left out. */
export function takeLines(table, storage = undefined) {
  const none = { message: null, forms: {}, asked: [] };
  let text = null;
  try {
    const kept = tabStorage(storage);
    text = kept?.getItem(linesKey(table)) ?? null;
    kept?.removeItem(linesKey(table));
  } catch {
    return none;
  }
  if (!text || text.length > MAX_KEPT) return none;
  let value;
  try {
    value = JSON.parse(text);
  } catch {
    return none;
  }
  const forms = Object.entries(value?.forms ?? {}).map(([form, line]) => [form, keptLine(line)])
    .filter(([, line]) => line);
  const asked = (Array.isArray(value?.asked) ? value.asked : [])
    .filter((pair) => Array.isArray(pair) && typeof pair[0] === "string" && typeof pair[1] === "string");
  return { message: keptLine(value?.message), forms: Object.fromEntries(forms.slice(0, MAX_LINES)),
    asked: asked.slice(0, MAX_LINES) };
}

/**
 * A kept line's text in the page's language now, or null while the event it names
 * is not known yet.
 * @param {object} line a line as keptLine gives it
 * @param {object} texts the page's texts (i18n)
 * @param {(seq: number) => string|null} summaryOf the summary of the event `seq`
 *   in the page's words, or null when the page does not know it
 */
export function lineText(line, texts, summaryOf) {
  const result = line.seq === null ? null : summaryOf(line.seq);
  if (line.seq !== null && result === null) return null;
  if (!line.key) return result;
  return texts.format(line.key, result === null ? line.data : { ...line.data, result });
}
