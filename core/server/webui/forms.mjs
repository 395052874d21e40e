// Forms built from the welcome: dice notation, and each ruleset action from its
// parameter schema (JSON Schema as the ruleset describes it: integers, numbers,
// booleans, strings, enums), with the actor and targets chosen from lists, and a
// parameter whose choices are on the acting actor's sheet (`choicesFrom`), or on
// its target's (`"of": "target"`), chosen from them.
// Each form turns into one protocol request; empty fields are left out, so the
// schema's defaults apply at the server, which checks everything again.
//
// Each form has a key (`data-form`: "roll", "action:NAME") and a status line
// beside its button: while its request waits, the button is aria-disabled (the
// focus stays on it; a submit then sends nothing: waitsForAnswer) and says so
// (showWaiting), and the answer is shown there (showOutcome), next to the
// form the viewer used, wherever the log is on the page. A form rebuilt while the
// viewer types in it keeps what was typed and the focus (replaceKeeping).

import { el } from "./render.mjs";
import { SECRET_BOX, paramLabel } from "./session.mjs";
import { counted, i18n } from "./texts.mjs";

let fieldCounter = 0;

/** A labelled field: <label for> and the control. */
export function field(labelText, control, hint = "") {
  fieldCounter += 1;
  control.id ||= `rb-field-${fieldCounter}`;
  const row = el("div", "field");
  const label = el("label", "", labelText);
  label.htmlFor = control.id;
  row.append(label, control);
  if (hint) row.append(el("small", "hint", hint));
  return row;
}

/** A <select> of [value, text] options. */
export function select(options, { name = "", empty = null } = {}) {
  const control = el("select");
  control.name = name;
  if (empty !== null) control.append(new Option(empty, ""));
  for (const [value, text] of options) control.append(new Option(text, value));
  return control;
}

/** A schema property's type: its first besides "null" when it lists several
 * (`["integer", "null"]`: an integer, or left out). */
const typeOf = (schema) => (Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type);

/** Whether a schema property holds JSON: a list or an object (modifiers, an item). */
const isJson = (schema) => typeOf(schema) === "array" || typeOf(schema) === "object";

/**
 * The control of one schema property. `example` is the action's example value of
 * it: put in as the value when `prefill` (a parameter the action needs, or a
 * choice of a list), else only shown greyed out as a hint (the schema's default
 * first), never sent: an example's number, modifier or label is not the viewer's
 * (an example's skill would stand in for the sheet's, its "dark −2" modify every
 * roll). A list or an object is written as JSON (`data-kind="json"`). `choices`
 * names an enum's values as the viewer reads them (the ruleset's translations, by
 * value), a value without one shows itself.
 */
export function controlFor(name, schema, example, choices = {}, { prefill = true } = {}) {
  let control;
  if (Array.isArray(schema.enum)) {
    const options = schema.enum.map((v) => [String(v), choices[String(v)] || String(v)]);
    control = select(options, { name, empty: i18n.localize("ROLLBRIDGE.Web.Field.Default") });
  } else if (typeOf(schema) === "boolean") {
    control = el("input");
    control.type = "checkbox";
    control.checked = Boolean((prefill ? example : undefined) ?? schema.default ?? false);
  } else {
    control = el("input");
    control.type = typeOf(schema) === "integer" || typeOf(schema) === "number" ? "number" : "text";
    if (typeOf(schema) === "integer") control.step = "1";
    if (schema.minimum !== undefined) control.min = String(schema.minimum);
    if (schema.maximum !== undefined) control.max = String(schema.maximum);
    if (schema.maxLength !== undefined) control.maxLength = schema.maxLength;
    // greyed out: a list's or an object's example (how to write it), else the default
    // (what an empty field means), else a text's example
    const hint = isJson(schema) && example !== undefined && example !== null ? JSON.stringify(example)
      : schema.default !== undefined && schema.default !== null
        ? (isJson(schema) ? JSON.stringify(schema.default) : String(schema.default))
        : example !== undefined && example !== null && control.type === "text" ? String(example) : "";
    if (hint && !(prefill && example !== undefined)) control.placeholder = hint;
  }
  control.name = name;
  control.dataset.kind = isJson(schema) ? "json" : typeOf(schema) ?? "string";
  if (example !== undefined && example !== null && prefill && control.type !== "checkbox") {
    control.value = isJson(schema) ? JSON.stringify(example) : String(example);
  }
  return control;
}

/** The value of a sheet choice list's entry "another value…" (a sheet's choice
 * that is this very text, NUL first, or the empty text is not offered: it would read
 * as that entry or as "(default)"). */
const OTHER = "\u0000other";

/** The value at `path` (field names joined by dots) inside `node`, or undefined. */
const valueAt = (node, path) => String(path).split(".").reduce(
  (at, key) => (at !== null && typeof at === "object" && !Array.isArray(at) ? at[key] : undefined), node);

/**
 * The choices a parameter's `choicesFrom` names on one actor's sheet or state (as
 * rollbridge.contract.sheet_choices reads them, docs/plugins.md): a list's items'
 * `value` field (the items without it), an object's keys (its values' `value`
 * field with it); texts and numbers only, each once, in the sheet's order. Choices
 * come only from what the viewer's own view of the actor holds. Of the acting actor
 * (the default `of`), an actor the viewer sees limited (an NPC to a player) gives
 * none: it acts only for actors it sees whole. Of a target (`"of": "target"`), the
 * view as the viewer holds it, limited or not: a player's view of an NPC holds only
 * what the ruleset's player_view shows, so a part it hides is offered by no one.
 * @param {object} schema the parameter's schema
 * @param {object|undefined} actor the actor as the session holds it (the acting
 *   actor, or the target for `"of": "target"`)
 * @returns {(string|number)[]}
 */
export function sheetChoices(schema, actor) {
  const from = schema?.choicesFrom;
  if (!from || !actor || (actor.limited && !ofTarget(schema))) return [];
  const found = "state" in from ? valueAt(actor.state, from.state) : valueAt(actor.sheet, from.sheet);
  const field = from.value ?? null;
  let items;
  if (Array.isArray(found)) items = found.map((item) => (field === null ? item : valueAt(item, field)));
  else if (found !== null && typeof found === "object") {
    items = field === null ? Object.keys(found) : Object.values(found).map((item) => valueAt(item, field));
  } else return [];
  // a Set: a sheet of thousands is read in one pass (this runs on every change of the table)
  const out = new Set();
  for (const item of items) {
    const plain = typeof item === "string" || (typeof item === "number" && Number.isFinite(item));
    if (plain) out.add(item);
  }
  return [...out];
}

/** Whether a parameter's choices are on the action's target (`"of": "target"`). */
export const ofTarget = (schema) => schema?.choicesFrom?.of === "target";

/**
 * The control of a parameter whose choices are on the acting actor's sheet
 * (`choicesFrom`): a select of them (`fillChoices`), and — when the rules take
 * other values (`only` not set) and the schema is free text or a number — an entry
 * "another value…" that shows a field to type it in (`control.otherInput`, put
 * after the select by the form). `example` is only a hint in that field.
 */
function sheetChoiceControl(name, schema, example) {
  const control = select([], { name });
  control.dataset.kind = typeOf(schema) ?? "string";
  control.dataset.sheetChoices = "true";
  const free = !schema.choicesFrom.only && !Array.isArray(schema.enum) && !isJson(schema)
    && typeOf(schema) !== "boolean";
  if (!free) return control;
  const other = controlFor(`${name}.other`, { ...schema, choicesFrom: undefined }, example, {}, { prefill: false });
  other.hidden = true;
  other.setAttribute("aria-label", i18n.localize("ROLLBRIDGE.Web.Field.OtherValue"));
  control.otherInput = other;
  control.addEventListener("change", () => { other.hidden = control.value !== OTHER; });
  return control;
}

/**
 * Put `actor`'s choices (the acting actor's, or the target's) into a sheet choice
 * control: "(default)" first unless the
 * parameter is required and the actor has choices, "another value…" last when the
 * rules take others. What was chosen stays chosen while it is offered; else a
 * required parameter takes the first choice, and with no choice at all a free one
 * is typed.
 */
function fillChoices(control, schema, actor, required) {
  const before = control.value;
  const values = sheetChoices(schema, actor).filter((value) => value !== OTHER && value !== "");
  const free = Boolean(control.otherInput);
  control.replaceChildren();
  if (!required || values.length === 0) control.append(new Option(i18n.localize("ROLLBRIDGE.Web.Field.Default"), ""));
  for (const value of values) control.append(new Option(String(value), String(value)));
  if (free) control.append(new Option(i18n.localize("ROLLBRIDGE.Web.Field.Other"), OTHER));
  if ([...control.options].some((option) => option.value === before)) control.value = before;
  else if (values.length === 0 && free) control.value = OTHER;
  else control.value = required && values.length ? String(values[0]) : "";
  if (free) control.otherInput.hidden = control.value !== OTHER;
}

/** A field written as JSON that is not: what the viewer is told, in their language. */
export class NotJson extends Error {
  /** @param {string} field the field's label @param {string} example what to write */
  constructor(field, example) {
    super(`${field}: not JSON`);
    this.field = field;
    this.example = example;
  }
}

/** The value a control holds for the request, or undefined to leave it out.
 * @throws {NotJson} for a list's or an object's field that is not JSON */
export function valueOf(control, schema) {
  if (control.otherInput && control.value === OTHER) return valueOf(control.otherInput, schema);
  if (control.dataset.sheetChoices && control.value !== "") {
    // a choice from the sheet is sent as the sheet spells it, spaces and all (sr2
    // finds a weapon by its exact name); a number as a number
    const kind = typeOf(schema);
    if (Array.isArray(schema.enum)) return schema.enum.find((v) => String(v) === control.value);
    return kind === "integer" || kind === "number" ? Number(control.value) : control.value;
  }
  if (control.type === "checkbox") {
    const fallback = Boolean(schema.default ?? false);
    return control.checked === fallback ? undefined : control.checked;
  }
  const text = control.value.trim();
  if (text === "") return undefined;
  if (isJson(schema)) {
    try {
      return JSON.parse(text);
    } catch {
      const example = control.placeholder || (typeOf(schema) === "array" ? "[]" : "{}");
      throw new NotJson(control.labels?.[0]?.textContent || control.name, example);
    }
  }
  if (Array.isArray(schema.enum)) return schema.enum.find((v) => String(v) === text);
  if (typeOf(schema) === "integer") return Number.parseInt(text, 10);
  if (typeOf(schema) === "number") return Number(text);
  return text;
}

/**
 * The list of the actors a form may name ("for", "actor"), "(nobody)" first unless
 * `required`: a player who plays one actor has it chosen (a roll or a hit is their
 * character's, counted in its statistics, unless they choose nobody); the GM,
 * who plays them all, nobody.
 */
function actorSelect(session, required) {
  const mine = session.controllable().map((a) => [a.id, a.name]);
  const empty = required ? null : i18n.localize("ROLLBRIDGE.Web.Field.Nobody");
  const control = select(mine, { name: "actor", empty });
  if (session.role === "player" && mine.length === 1) control.value = mine[0][0];
  return control;
}

/** The actor list and the target choices of an action form; none for an action on
 * every actor (`every_actor`: the server takes them all, and refuses one named — the
 * form offered every actor to tick, and a GM who ticked one read the server's refusal
 * in the wire's words, sr2's *new turn*). */
function actorChoices(session, spec) {
  const parts = {};
  if (spec.actor !== "none" && spec.actor !== undefined) parts.actor = actorSelect(session, spec.actor === "required");
  if (!spec.every_actor && ((spec.max_targets ?? 0) > 0 || spec.max_targets === null)) {
    const box = el("fieldset", "targets");
    box.append(el("legend", "", spec.max_targets === 1
      ? i18n.localize("ROLLBRIDGE.Web.Field.Target") : i18n.localize("ROLLBRIDGE.Web.Field.Targets")));
    for (const actor of session.actors.values()) {
      const input = el("input");
      input.type = spec.max_targets === 1 ? "radio" : "checkbox";
      input.name = "target";
      input.value = actor.id;
      const label = el("label", "target");
      label.append(input, document.createTextNode(` ${actor.name}`));
      box.append(label);
    }
    parts.targets = box;
  }
  return parts;
}

/**
 * The form of one action: its actor, targets, parameters (and for the GM a
 * secret box). `submit(message, form)` gets the `resolve` request and this form;
 * with `odds`, an *Odds* button beside it gives `odds(message, form)` the same
 * action as an `odds` request (nothing rolled).
 */
export function actionForm(session, actionName, spec, submit, odds = null) {
  const form = el("form", "action-form");
  form.dataset.action = actionName;
  form.dataset.form = `action:${actionName}`;
  if (spec.summary) form.append(el("p", "summary", spec.summary));
  const { actor, targets } = actorChoices(session, spec);
  if (actor) form.append(field(i18n.localize("ROLLBRIDGE.Web.Field.Actor"), actor));
  if (targets) form.append(targets);
  const properties = spec.params?.properties ?? {};
  const example = spec.example ?? {};
  const controls = {};
  const required = new Set(spec.params?.required ?? []);
  // the parameters the action needs or its example fills in are shown; the rest folded
  const more = el("details", "more-params");
  more.append(el("summary", "", i18n.localize("ROLLBRIDGE.Web.Field.MoreParams")));
  // the ruleset's words for its parameters in the viewer's language (the welcome's
  // `labels`, `hints`, `choices`), else its schema's title or its name humanised
  // (paramLabel), and its schema's description
  const hints = spec.hints ?? {};
  // the actor the viewer acts as, of those it may act for (never a view it sees
  // limited): a parameter whose choices are on its sheet offers them
  const acting = () => (actor ? session.controllable().find((a) => a.id === actor.value) : undefined);
  // the one target chosen, as the viewer holds it (a player's limited view of an
  // NPC too): a parameter whose choices are on the target's sheet offers them
  const oneTarget = targets && spec.max_targets === 1;
  const targeted = () => session.actors.get(targets.querySelector("input:checked")?.value);
  for (const [name, schema] of Object.entries(properties)) {
    // an example fills in what the action needs and a list's choice; the rest it
    // shows as a hint only (controlFor)
    const prefill = required.has(name) || Array.isArray(schema.enum);
    const whose = !schema.choicesFrom ? null : ofTarget(schema) ? (oneTarget ? targets : null) : actor;
    const fromSheet = Boolean(whose);
    const control = fromSheet ? sheetChoiceControl(name, schema, example[name])
      : controlFor(name, schema, example[name], spec.choices?.[name] ?? {}, { prefill });
    if (fromSheet) {
      const chosen = ofTarget(schema) ? targeted : acting;
      const refill = () => fillChoices(control, schema, chosen(), required.has(name));
      refill();
      whose.addEventListener("change", refill); // another actor, or another target, chosen
    }
    if (required.has(name)) control.required = true;
    controls[name] = control;
    const row = field(paramLabel(spec, name), control, hints[name] || schema.description || "");
    if (control.otherInput) control.after(control.otherInput);
    // a list of the actor's own is shown too: the thing to pick (techlevel's item to
    // don by name), though the example gives a new one instead
    if (required.has(name) || name in example || fromSheet) form.append(row);
    else more.append(row);
  }
  if (more.childElementCount > 1) form.append(more);
  let secret = null;
  if (session.role === "gm") {
    secret = el("input", "secret-box");
    secret.type = "checkbox";
    // named so that a form built anew (an actor added) keeps it checked (formState),
    // and the page loaded anew in another language (kept.mjs): unnamed, it came back
    // unchecked, and the GM's next press was made in the open. No parameter's name
    // (a schema key: kept.mjs's isName) has a colon
    secret.name = SECRET_BOX;
    // an action the ruleset always keeps secret: the box checked, not to be unchecked,
    // and saying why (an unchecked box promised an open roll the server never makes)
    const always = session.alwaysSecret(actionName);
    const row = field(i18n.localize("ROLLBRIDGE.Web.Field.Secret"), secret,
      always ? i18n.localize("ROLLBRIDGE.Web.Field.AlwaysSecret") : "");
    if (always) {
      // unavailable, yet a stop of the keyboard (aria-disabled, not disabled): Tab went
      // past a disabled box, and a screen reader's user tabbing through the form never
      // heard it checked, nor why; a press leaves it checked
      secret.checked = true;
      secret.setAttribute("aria-disabled", "true");
      secret.addEventListener("click", (event) => event.preventDefault());
      const hint = row.querySelector(".hint");
      hint.id = `${secret.id}-why`;
      secret.setAttribute("aria-describedby", hint.id);
    }
    form.append(row);
  }
  // the action's own label names what the button does ("Attack", "Útok"); an action
  // without one reads "Do attack_roll"
  const named = spec.label && spec.label !== actionName;
  const button = el("button", "", named ? spec.label : i18n.format("ROLLBRIDGE.Web.Button.Do", { action: actionName }));
  button.type = "submit";
  form.append(...formButtons(button, odds), el("p", "form-status"), el("div", "form-odds"));
  /** The action as the form has it (type `type`), or null when a field is not JSON (said beside the form). */
  const collect = (type) => {
    const params = {};
    try {
      for (const [name, control] of Object.entries(controls)) {
        const value = valueOf(control, properties[name]);
        if (value !== undefined) params[name] = value;
      }
    } catch (error) {
      if (!(error instanceof NotJson)) throw error;
      const text = i18n.format("ROLLBRIDGE.Web.Field.NotJson", { field: error.field, example: error.example });
      showOutcome(form, text, "error");
      return null;
    }
    const message = { type, action: actionName, params };
    if (actor && actor.value) message.actor = actor.value;
    // the action needs an actor and the list has none (a player the GM has given no
    // character yet): said in the page's words, nothing sent (the server's refusal
    // named the wire's `actor` and the action's key, 'trait')
    if (actor && !actor.value && spec.actor === "required") {
      showOutcome(form, i18n.localize(session.role === "gm" ? "ROLLBRIDGE.Web.Field.NoActorYet"
        : "ROLLBRIDGE.Web.Field.NoActor"), "error");
      return null;
    }
    if (targets) {
      message.targets = [...targets.querySelectorAll("input:checked")].map((input) => input.value);
      // too few chosen: said beside the form in the page's words, nothing sent (the
      // server's refusal named the wire's `targets` and the action's key, 'harm')
      const least = Number.isInteger(spec.min_targets) ? spec.min_targets : 0;
      if (message.targets.length < least) {
        showOutcome(form, spec.max_targets === 1 ? i18n.localize("ROLLBRIDGE.Web.Field.ChooseTarget")
          : counted(i18n, "ROLLBRIDGE.Web.Field.ChooseTargets", least), "error");
        return null;
      }
    }
    return message;
  };
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    if (waitsForAnswer(form)) return;
    const message = collect("resolve");
    if (!message) return;
    if (secret?.checked) message.secret = true;
    submit(message, form);
  });
  onOdds(form, odds, () => collect("odds"));
  return form;
}

/** A form's submit button, and beside it (with `odds`) its *Odds* button. */
function formButtons(button, odds) {
  if (!odds) return [button];
  const row = el("div", "buttons");
  const ask = el("button", "odds-button", i18n.localize("ROLLBRIDGE.Web.Button.Odds"));
  ask.type = "button";
  ask.name = "odds";
  row.append(button, ask);
  return [row];
}

/** The *Odds* button of `form` asks `odds(message(), form)` (nothing when
 * `message()` gives null: the form said why). */
function onOdds(form, odds, message) {
  const ask = form.querySelector('button[name="odds"]');
  if (!odds || !ask) return;
  ask.addEventListener("click", () => {
    const request = message();
    if (request) odds(request, form);
  });
}

/** The dice form: notation, an optional label and actor; for the GM a secret box.
 * `submit(message, form)` gets the `roll` request and this form; with `odds`, an
 * *Odds* button gives `odds(message, form)` the notation's `odds` request. */
export function rollForm(session, submit, odds = null) {
  const form = el("form", "roll-form");
  form.dataset.form = "roll";
  const formula = el("input");
  formula.name = "formula";
  formula.required = true;
  formula.placeholder = "2d6+1, 4d6kh3, 3d6x";
  formula.autocomplete = "off";
  const label = el("input");
  label.name = "label";
  label.maxLength = 80;
  const actor = actorSelect(session, false);
  form.append(field(i18n.localize("ROLLBRIDGE.Web.Field.Dice"), formula),
    field(i18n.localize("ROLLBRIDGE.Web.Field.Label"), label), field(i18n.localize("ROLLBRIDGE.Web.Field.For"), actor));
  let secret = null;
  if (session.role === "gm") {
    secret = el("input");
    secret.type = "checkbox";
    secret.name = "secret";
    form.append(field(i18n.localize("ROLLBRIDGE.Web.Field.Secret"), secret));
  }
  const button = el("button", "", i18n.localize("ROLLBRIDGE.Web.Button.Roll"));
  button.type = "submit";
  form.append(...formButtons(button, odds), el("p", "form-status"), el("div", "form-odds"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    if (waitsForAnswer(form)) return;
    const message = { type: "roll", formula: formula.value.trim() };
    if (label.value.trim()) message.label = label.value.trim();
    if (actor.value) message.actor = actor.value;
    if (secret?.checked) message.secret = true;
    submit(message, form);
  });
  // the notation's odds: none typed, the browser says the field is needed
  onOdds(form, odds, () => (formula.reportValidity() ? { type: "odds", formula: formula.value.trim() } : null));
  return form;
}

/** The words of a form's button while its request waits: sent and not yet
 * answered, or held until the connection is back. */
const WAITING_WORDS = {
  sending: "ROLLBRIDGE.Web.Button.Sending",
  queued: "ROLLBRIDGE.Web.Button.Queued",
};

/**
 * Show whether a form's request waits: `how` "sending" or "queued" makes its button
 * aria-disabled and says so on it; null gives the button back its own words. Not
 * `disabled`: a disabled button loses the keyboard's focus (to the page's body) and
 * a screen reader's place; an aria-disabled one keeps them, is read as unavailable,
 * and a submit meanwhile sends nothing (waitsForAnswer). Focus a form built anew
 * meanwhile left on the page's body goes back to its button.
 * @param {HTMLFormElement} form a form of this module
 * @param {"sending"|"queued"|null} how
 */
export function showWaiting(form, how) {
  const button = form.querySelector('button[type="submit"]');
  if (!button) return;
  button.dataset.words ??= button.textContent;
  if (how) {
    if (document.activeElement === button) form.dataset.hadFocus = "true";
    button.setAttribute("aria-disabled", "true");
    button.textContent = i18n.localize(WAITING_WORDS[how]);
    form.dataset.waiting = how;
    return;
  }
  button.removeAttribute("aria-disabled");
  button.textContent = button.dataset.words;
  delete form.dataset.waiting;
  if (form.dataset.hadFocus && (!document.activeElement || document.activeElement === document.body)) {
    button.focus();
  }
  delete form.dataset.hadFocus;
}

/** Whether a form's request waits for its answer (showWaiting): its submit — a
 * click on its aria-disabled button, Enter in a field — then sends nothing. */
export function waitsForAnswer(form) {
  return Boolean(form.dataset.waiting);
}

/** Say how a form's request ended on its status line (`kind` "error" for a
 * refusal, with the server's error `code` kept as the line's data-code), and
 * bring the line into view. */
export function showOutcome(form, text, kind = "info", code = "") {
  const line = form.querySelector(".form-status");
  if (!line) return;
  line.textContent = text;
  line.dataset.kind = kind;
  line.dataset.code = code ?? "";
  if (text) line.scrollIntoView({ block: "nearest" });
}

/** What the viewer has in a form: each named control's value (a checkbox's or
 * radio's by its value too), the open folds, the focused control and its caret. */
export function formState(form) {
  const values = [...form.elements].filter((control) => control.name).map((control) =>
    control.type === "checkbox" || control.type === "radio"
      ? { name: control.name, value: control.value, checked: control.checked }
      : { name: control.name, value: control.value });
  const focused = form.contains(document.activeElement) ? document.activeElement : null;
  return {
    values,
    open: [...form.querySelectorAll("details")].map((details) => details.open),
    focus: focused && {
      name: focused.name, value: focused.value,
      caret: typeof focused.selectionStart === "number" ? [focused.selectionStart, focused.selectionEnd] : null,
    },
  };
}

/** The control of `form` a saved entry names (a checkbox or radio by its value too). */
function controlNamed(form, entry) {
  return [...form.elements].find((control) => control.name === entry.name
    && (!(control.type === "checkbox" || control.type === "radio") || control.value === entry.value));
}

/** Put a saved state into a form built anew (a choice that is gone stays as built;
 * a state without `focus` leaves the focus where it is). */
export function restoreState(form, state) {
  for (const entry of state.values) {
    const control = controlNamed(form, entry);
    // unavailable (an always secret action's box): as built, whatever was kept
    if (!control || control.getAttribute("aria-disabled") === "true") continue;
    if ("checked" in entry) {
      if (control.checked === entry.checked) continue;
      control.checked = entry.checked;
      // what depends on it follows (the target's choices), before their own entries
      control.dispatchEvent(new Event("change", { bubbles: true }));
    } else if (control.tagName !== "SELECT") control.value = entry.value;
    else if (control.value !== entry.value && [...control.options].some((o) => o.value === entry.value)) {
      control.value = entry.value;
      control.dispatchEvent(new Event("change")); // what depends on the choice follows it
    }
  }
  form.querySelectorAll("details").forEach((details, index) => {
    if (state.open?.[index]) details.open = true;
  });
  const focus = state.focus && controlNamed(form, state.focus);
  if (!focus) return;
  focus.focus();
  if (state.focus.caret) focus.setSelectionRange(...state.focus.caret);
}

/** Whether a keyboard is composing a word in the page: an Android keyboard composes
 * every word as it is typed (and a Chinese or Japanese input method each phrase). */
let composing = false;
/** What a finger or the mouse is pressing, from its press until it is lifted, or null. */
let pressed = null;
/** The forms built anew while a word was being composed in the form their box
 * holds, by box (the latest of each): put in once the word is done or the field left. */
const deferred = new Map();

function putDeferred() {
  for (const [box, node] of [...deferred]) {
    deferred.delete(box);
    replaceKeeping(box, node);
  }
}

/** Put the deferred forms (and what waits in afterLift) in a task later, not at once: a tap on *Roll* ends the
 * word (the field is left) between its press and its click, and a form built anew
 * in between took the button away with the click — the roll was never sent. A task
 * later the click has done what it does; a press still held waits for its lift. */
const putLater = () => setTimeout(lifted, 0);

/** What waits for the press to be lifted (:func:`afterLift`), called a task after it. */
const onLift = new Set();

/**
 * Whether a finger or the mouse is pressing on something inside `node` now: what is
 * drawn there anew should wait (:func:`afterLift`), or the press's click is lost with
 * the element pressed (a click goes only where the press began and ended).
 * @param {Node | null | undefined} node
 */
export const pressedIn = (node) => Boolean(pressed && node?.contains(pressed));

/**
 * Call `callback` a task after the press that is held now is lifted (its click
 * done first), or the word being composed now is in, once.
 * @param {() => void} callback
 */
export const afterLift = (callback) => onLift.add(callback);

/**
 * Whether a keyboard is composing a word in a field inside `node` now: what is drawn
 * there anew should wait (:func:`afterLift`, which also waits for the word to be in).
 * @param {Node | null | undefined} node
 */
export const composingIn = (node) => Boolean(composing && node?.contains(document.activeElement));

function lifted() {
  putDeferred();
  const waiting = [...onLift];
  onLift.clear();
  waiting.forEach((callback) => callback());
}

if (globalThis.document) {
  const on = (types, listener) => types.forEach((type) => document.addEventListener(type, listener, true));
  on(["compositionstart"], () => {
    composing = true;
  });
  // the word is in the field by then: the form is built anew after it
  on(["compositionend", "focusout"], () => {
    composing = false;
    putLater();
  });
  on(["pointerdown"], (event) => {
    // a press that can end in a click: the main button, a finger, a pen's tip (the
    // right button's release goes to its context menu, and no click comes)
    if (event.button === 0) pressed = event.target;
  });
  // lifted, cancelled (a scroll, a drag), or a long press that opened the phone's
  // menu: no click comes after a menu, nor a lift the page sees
  on(["pointerup", "pointercancel", "contextmenu"], () => {
    pressed = null;
    setTimeout(lifted, 0);
  });
}

/**
 * Put `node` in `box` in place of what it holds; when both are the same form
 * (the same data-form), what the viewer typed or chose there, the open folds and
 * the focus with its caret are carried over (the GM added or renamed an actor
 * while the viewer was typing). While a keyboard composes a word in the form, the
 * form is left as it is until the word is done: a field replaced meanwhile kept the
 * letters but not the word being composed, which an Android keyboard then wrote
 * again ("fas fast"); so is a form a finger or the mouse is pressing on, until it
 * is lifted (its click goes to the button pressed). A request of the form still
 * waiting keeps its button saying so.
 * @param {HTMLElement} box the form's place
 * @param {HTMLElement} node the form built anew
 */
export function replaceKeeping(box, node) {
  const old = box.querySelector("form");
  if (composingIn(old) || pressedIn(old)) {
    deferred.set(box, node);
    return;
  }
  deferred.delete(box);
  const same = old && node.matches?.("form") && old.dataset.form === node.dataset.form;
  const state = same ? formState(old) : null;
  const outcome = same ? old.querySelector(".form-status") : null;
  box.replaceChildren(node);
  if (!state) return;
  restoreState(node, state);
  const line = node.querySelector(".form-status");
  if (line && outcome) {
    line.textContent = outcome.textContent;
    if (outcome.dataset.kind) line.dataset.kind = outcome.dataset.kind;
    if (outcome.dataset.code) line.dataset.code = outcome.dataset.code;
  }
  const odds = old.querySelector(".form-odds");
  if (odds) node.querySelector(".form-odds")?.replaceChildren(...odds.childNodes);
  // a request of the form still waiting: its button goes on saying so
  if (old.dataset.waiting) {
    if (old.dataset.hadFocus) node.dataset.hadFocus = old.dataset.hadFocus;
    showWaiting(node, old.dataset.waiting);
  }
}
