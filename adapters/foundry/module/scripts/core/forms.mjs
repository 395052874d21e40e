// The dialog of a ruleset action, built from its parameter schema in the welcome
// (`welcome.ruleset.actions[name]`, docs/protocol.md): each parameter a field, and
// what the user entered turned back into the action's `params`, checked first.
//
//   enum                 a select of its values (the welcome's `choices` name them)
//   integer, number      a number input with the schema's bounds
//   boolean              a checkbox
//   string               a text input
//   `choicesFrom`        a select of the values on the acting actor's rollbridge
//                        sheet or state (`"of": "target"`: the target's); without
//                        `only`, a text input offering them (a datalist)
//   array, object        a JSON text field (the dialog cannot show the structure)
//
// A parameter's label is the welcome's `labels` entry (the ruleset's word in the
// user's language), else the schema's `title`, else its name made readable; its
// hint the welcome's `hints` entry, else the schema's `description`.
//
// The example fills in the parameters the action needs, an enum's choice and a
// choice from the sheet; for the rest it is only a placeholder, as the schema's
// default is: an example's number would stand in for the sheet's (sr2's example
// skill of 5 in place of the weapon's own skill). An empty field is left out, so
// the server's defaults apply; the server checks everything again.
//
// Foundry-independent (tests/foundry/js/forms.test.mjs): fields are plain objects,
// the dialog's content an HTML string, the entered values a plain object.

import { escapeHtml } from "./card.mjs";

/** A schema's type: its first besides "null" when it lists several. */
const typeOf = (schema) => (Array.isArray(schema?.type) ? schema.type.find((t) => t !== "null") : schema?.type);

/** `table[key]` when the table holds it itself, else undefined: a parameter named
 * "constructor" or "toString" finds no label, hint or example every object inherits. */
const own = (table, key) => (table && typeof table === "object" && Object.hasOwn(table, key) ? table[key] : undefined);

/** `attacker_pool` → "Attacker pool". */
export function readableName(name) {
  const words = String(name).replace(/[_-]+/g, " ").replace(/([a-z])([A-Z])/g, "$1 $2").trim().toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The value at `path` (field names joined by dots) inside `node`, or undefined. */
function valueAt(node, path) {
  let at = node;
  for (const key of String(path).split(".")) {
    if (at === null || typeof at !== "object" || Array.isArray(at)) return undefined;
    at = at[key];
  }
  return at;
}

/**
 * The choices `choicesFrom` names on an actor as this user's view of it holds it
 * (docs/plugins.md "Choices from the sheet"): a list's items (their `value` field
 * when it names one), an object's keys (its values' `value` field); texts and
 * finite numbers, each once, in the sheet's order. An acting actor this user sees
 * limited gives none; a target's limited view gives what it holds.
 */
export function choicesOn(schema, actor) {
  const from = schema?.choicesFrom;
  if (!from || !actor || (actor.limited && from.of !== "target")) return [];
  const found = "state" in from ? valueAt(actor.state, from.state) : valueAt(actor.sheet, from.sheet);
  const pick = (item) => (from.value ? valueAt(item, from.value) : item);
  let items = [];
  if (Array.isArray(found)) items = found.map(pick);
  else if (found && typeof found === "object") items = from.value ? Object.values(found).map(pick) : Object.keys(found);
  const plain = items.filter((v) => typeof v === "string" ? v !== "" : typeof v === "number" && Number.isFinite(v));
  return [...new Set(plain)];
}

/**
 * The fields of an action's dialog. `actor` and `target` are the acting actor and
 * the (first) target as this user's `state` holds them (undefined when unknown).
 * Each field: {name, kind, label, hint, required, more, value, placeholder,
 * options, min, max, maxLength, schema} (`more`: folded away at first); `kind` is "select", "integer", "number",
 * "checkbox", "text" or "json"; `value` is what the control starts with (a string,
 * or a boolean for a checkbox); `options` a select's [value, text] pairs, a text's
 * suggestions.
 * @param {any} spec the action's description in the welcome
 * @param {{actor?: any, target?: any}} [whose]
 * @returns {any[]}
 */
export function actionFields(spec, { actor, target } = {}) {
  const properties = spec?.params?.properties ?? {};
  const required = new Set(spec?.params?.required ?? []);
  const example = spec?.example ?? {};
  return Object.entries(properties).map(([name, described]) => {
    // a property's schema may be `true` (anything, as JSON Schema allows), or null or
    // a bare word in a plugin's odd schema: a plain text field, the server checks it
    const schema = described && typeof described === "object" && !Array.isArray(described) ? described : {};
    const type = typeOf(schema);
    /** @type {any} */
    const field = {
      name, schema, required: required.has(name),
      label: own(spec.labels, name) || schema.title || readableName(name),
      hint: own(spec.hints, name) || schema.description || "",
      kind: "text", value: "", placeholder: "", options: [],
    };
    const shown = (v) => (v === undefined || v === null ? "" : typeof v === "object" ? JSON.stringify(v) : String(v));
    const fromSheet = schema.choicesFrom ? choicesOn(schema, schema.choicesFrom.of === "target" ? target : actor) : [];
    if (Array.isArray(schema.enum)) {
      field.kind = "select";
      field.options = schema.enum.map((v) => [String(v), own(own(spec.choices, name), String(v)) || String(v)]);
      field.value = schema.enum.includes(own(example, name)) ? String(own(example, name)) : "";
    } else if (schema.choicesFrom && schema.choicesFrom.only && fromSheet.length) {
      field.kind = "select";
      field.options = fromSheet.map((v) => [String(v), String(v)]);
      const chosen = fromSheet.includes(own(example, name)) ? own(example, name) : field.required ? fromSheet[0] : "";
      field.value = String(chosen);
    } else if (type === "boolean") {
      field.kind = "checkbox";
      field.value = Boolean(own(example, name) ?? schema.default ?? false);
    } else if (type === "array" || type === "object") {
      field.kind = "json";
      field.placeholder = shown(own(example, name) ?? schema.default ?? (type === "array" ? [] : {}));
    } else {
      field.kind = type === "integer" || type === "number" ? type : "text";
      field.options = fromSheet.map((v) => [String(v), String(v)]);
      if (field.required) field.value = shown(own(example, name));
      else field.placeholder = shown(schema.default ?? own(example, name));
    }
    // shown at once: what the action needs, what its example sets, a choice from the
    // sheet; the rest folded under "More parameters"
    field.more = !field.required && !Object.hasOwn(example, name) && !schema.choicesFrom;
    if (schema.minimum !== undefined) field.min = schema.minimum;
    if (schema.maximum !== undefined) field.max = schema.maximum;
    if (schema.maxLength !== undefined) field.maxLength = schema.maxLength;
    return field;
  });
}

/**
 * The element id of a field's control (and of its hint and problem lines): the
 * form's own prefix (each dialog open has one, so two open at once share no id),
 * the field's place in the form (names that differ only in letters an id does not
 * carry, as Russian "сила" and "вода" do, stay apart), then the name as far as an
 * id carries it.
 */
export const controlId = (name, index = 0, form = "rollbridge") =>
  `${form}-param-${index}-${String(name).replace(/[^A-Za-z0-9_-]/g, "_")}`;

/** A field's control as HTML with the element id `id`, holding `value` (what the user entered, else the field's). */
function controlHtml(field, id, value, described, problem) {
  const common = `id="${id}" name="${escapeHtml(field.name)}"${field.required ? ' aria-required="true"' : ""}`
    + (described ? ` aria-describedby="${described}"` : "") + (problem ? ' aria-invalid="true"' : "");
  if (field.kind === "select") {
    const empty = field.required && field.options.length ? "" : '<option value=""></option>';
    const options = field.options.map(([v, text]) =>
      `<option value="${escapeHtml(v)}"${v === value ? " selected" : ""}>${escapeHtml(text)}</option>`).join("");
    return `<select ${common}>${empty}${options}</select>`;
  }
  if (field.kind === "checkbox") return `<input type="checkbox" ${common}${value ? " checked" : ""}>`;
  const number = field.kind === "integer" || field.kind === "number";
  const attrs = [
    `type="${number ? "number" : "text"}"`,
    field.kind === "integer" ? 'step="1"' : field.kind === "number" ? 'step="any"' : "",
    field.min !== undefined ? `min="${escapeHtml(field.min)}"` : "",
    field.max !== undefined ? `max="${escapeHtml(field.max)}"` : "",
    field.maxLength !== undefined && !number ? `maxlength="${escapeHtml(field.maxLength)}"` : "",
    `value="${escapeHtml(value)}"`,
    field.placeholder ? `placeholder="${escapeHtml(field.placeholder)}"` : "",
    field.options.length ? `list="${id}-choices"` : "",
  ].filter(Boolean).join(" ");
  const list = field.options.length
    ? `<datalist id="${id}-choices">${field.options.map(([v]) => `<option value="${escapeHtml(v)}"></option>`).join("")}</datalist>`
    : "";
  return `<input ${attrs} ${common}>${list}`;
}

/**
 * The dialog's content: a line naming who acts on whom (`who`, already text), a
 * note on the required mark, then each field with its label, control, hint and
 * problem (`problems`: name → the text to show). `values` are what the user
 * entered before (the dialog opened again over a problem), else each field's own;
 * `form` the prefix of its element ids (controlId), one for each dialog open.
 */
export function actionFormHtml(fields, { i18n, who = "", values = null, problems = {}, form = "rollbridge" }) {
  const row = (field) => {
    const id = controlId(field.name, fields.indexOf(field), form);
    const problem = problems[field.name] ?? "";
    const described = [field.hint ? `${id}-hint` : "", problem ? `${id}-problem` : ""].filter(Boolean).join(" ");
    const value = values && field.name in values ? values[field.name] : field.value;
    const mark = field.required ? ' <span class="rollbridge-required" aria-hidden="true">*</span>' : "";
    const label = `<label for="${id}">${escapeHtml(field.label)}${mark}</label>`;
    const control = controlHtml(field, id, value, described, problem);
    const hint = field.hint ? `<p class="hint" id="${id}-hint">${escapeHtml(field.hint)}</p>` : "";
    const line = problem ? `<p class="rollbridge-problem" id="${id}-problem" role="alert">${escapeHtml(problem)}</p>` : "";
    return `<div class="form-group rollbridge-field" data-kind="${field.kind}">${label}<div class="form-fields">${control}</div>${hint}${line}</div>`;
  };
  const main = fields.filter((f) => !f.more).map(row).join("");
  const folded = fields.filter((f) => f.more);
  // the fold is open when it holds a problem or a value the user entered
  const open = folded.some((f) => problems[f.name] || (values && values[f.name] !== undefined && values[f.name] !== f.value));
  const more = folded.length
    ? `<details class="rollbridge-more"${open ? " open" : ""}><summary>${escapeHtml(i18n.localize("ROLLBRIDGE.Dialog.More"))}</summary>${folded.map(row).join("")}</details>`
    : "";
  const head = who ? `<p class="rollbridge-who">${escapeHtml(who)}</p>` : "";
  const note = fields.some((f) => f.required)
    ? `<p class="rollbridge-required-note">${escapeHtml(i18n.localize("ROLLBRIDGE.Dialog.RequiredNote"))}</p>` : "";
  return `<div class="rollbridge-action-form">${head}${note}${main}${more}</div>`;
}

/**
 * What a number field holds when the browser could not read what was typed in it
 * ("1e", "abc"): a browser's number input then reads "" (HTML's value
 * sanitization) with `validity.badInput`, which would leave the field out as if
 * empty. This stands for it instead, and is no number, so the check says so.
 */
export const UNREADABLE = "?";

/**
 * What the dialog's form holds: each named control's value (a checkbox's
 * `checked`, UNREADABLE for a number typed that the browser could not read), from
 * the form's `elements` as the button callback hands them over.
 * @param {{elements: Iterable<any>} | null | undefined} form
 * @returns {Record<string, string | boolean>}
 */
export function enteredValues(form) {
  /** @type {Record<string, string | boolean>} */
  const values = {};
  for (const control of Array.from(form?.elements ?? [])) {
    if (!control?.name) continue;
    if (control.type === "checkbox") values[control.name] = Boolean(control.checked);
    else values[control.name] = control.validity?.badInput ? UNREADABLE : String(control.value ?? "");
  }
  return values;
}

/** A problem with what the user entered: its message key and data. */
const problem = (key, data = {}) => ({ key, data });

/** One field's value for the request (undefined: left out), or {problem}. */
function fieldValue(field, entered) {
  const { schema } = field;
  if (field.kind === "checkbox") {
    // sent when it differs from the schema's default, and always when the action
    // needs it (left out, a required false would be refused as missing)
    const checked = Boolean(entered);
    return { value: field.required || checked !== Boolean(schema.default ?? false) ? checked : undefined };
  }
  const entry = String(entered ?? "");
  const text = entry.trim();
  if (text === "") return field.required ? { problem: problem("ROLLBRIDGE.Dialog.Problem.Required") } : { value: undefined };
  if (field.kind === "select") {
    // a select's value is one it offered, as the sheet or the enum has it: untrimmed
    // (a weapon named "Ares Predator " is that, and the server matches it exactly)
    const allowed = Array.isArray(schema.enum) ? schema.enum : field.options.map(([v]) => v);
    const found = allowed.find((v) => String(v) === entry);
    if (found === undefined) return { problem: problem("ROLLBRIDGE.Dialog.Problem.NotAChoice") };
    const type = typeOf(schema);
    return { value: !Array.isArray(schema.enum) && (type === "integer" || type === "number") ? Number(found) : found };
  }
  if (field.kind === "json") {
    try {
      return { value: JSON.parse(text) };
    } catch {
      return { problem: problem("ROLLBRIDGE.Dialog.Problem.NotJson", { example: field.placeholder }) };
    }
  }
  if (field.kind === "integer" || field.kind === "number") {
    const pattern = field.kind === "integer" ? /^[+-]?\d+$/ : /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;
    const number = Number(text);
    if (!pattern.test(text) || !Number.isFinite(number)) {
      return { problem: problem(field.kind === "integer" ? "ROLLBRIDGE.Dialog.Problem.NotInteger" : "ROLLBRIDGE.Dialog.Problem.NotNumber") };
    }
    if (field.min !== undefined && number < field.min) return { problem: problem("ROLLBRIDGE.Dialog.Problem.Below", { min: field.min }) };
    if (field.max !== undefined && number > field.max) return { problem: problem("ROLLBRIDGE.Dialog.Problem.Above", { max: field.max }) };
    // a whole number past 2^53 is not the one typed once it is a JavaScript number
    // (12345678901234567891 would go as 12345678901234567000): said, not changed
    if (field.kind === "integer" && !Number.isSafeInteger(number)) {
      return number > 0
        ? { problem: problem("ROLLBRIDGE.Dialog.Problem.Above", { max: Number.MAX_SAFE_INTEGER }) }
        : { problem: problem("ROLLBRIDGE.Dialog.Problem.Below", { min: Number.MIN_SAFE_INTEGER }) };
    }
    return { value: number };
  }
  if (field.maxLength !== undefined && text.length > field.maxLength) {
    return { problem: problem("ROLLBRIDGE.Dialog.Problem.TooLong", { max: field.maxLength }) };
  }
  return { value: text };
}

/**
 * The action's params from what the user entered (`values`: name → text, or a
 * checkbox's boolean), or the problems found (name → {key, data}: a required
 * field empty, a number out of its bounds, a choice not offered, JSON that is
 * not): {params, problems}, `problems` empty when the params can be sent.
 */
export function paramsFrom(fields, values) {
  const params = {};
  const problems = {};
  for (const field of fields) {
    const { value, problem: found } = fieldValue(field, values?.[field.name]);
    if (found) problems[field.name] = found;
    else if (value !== undefined) params[field.name] = value;
  }
  return { params, problems };
}

/** The actions a user may pick from (`/rb do` alone): [name, label], in the welcome's order. */
export function actionChoices(ruleset) {
  const actions = ruleset?.actions ?? {};
  return Object.entries(actions).map(([name, spec]) => [name, spec?.label || readableName(name)]);
}

/** The content of the dialog that picks an action: a labelled select (`form`: its ids' prefix). */
export function actionPickHtml(ruleset, { i18n, form = "rollbridge" }) {
  const options = actionChoices(ruleset)
    .map(([name, label]) => `<option value="${escapeHtml(name)}">${escapeHtml(label)}</option>`).join("");
  const id = controlId("action", 0, form);
  return `<div class="form-group"><label for="${id}">${escapeHtml(i18n.localize("ROLLBRIDGE.Dialog.Action"))}</label>`
    + `<div class="form-fields"><select id="${id}" name="action">${options}</select></div></div>`;
}
