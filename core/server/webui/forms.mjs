// Forms built from the welcome: dice notation, and each ruleset action from its
// parameter schema (JSON Schema as the ruleset describes it: integers, numbers,
// booleans, strings, enums), with the actor and targets chosen from lists.
// Each form turns into one protocol request; empty fields are left out, so the
// schema's defaults apply at the server, which checks everything again.

import { el } from "./render.mjs";
import { i18n } from "./texts.mjs";

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

/** The control of one schema property (with its example value filled in). */
export function controlFor(name, schema, example) {
  let control;
  if (Array.isArray(schema.enum)) {
    control = select(schema.enum.map((v) => [String(v), String(v)]), { name, empty: i18n.localize("ROLLBRIDGE.Web.Field.Default") });
  } else if (schema.type === "boolean") {
    control = el("input");
    control.type = "checkbox";
    control.checked = Boolean(example ?? schema.default ?? false);
  } else {
    control = el("input");
    control.type = schema.type === "integer" || schema.type === "number" ? "number" : "text";
    if (schema.type === "integer") control.step = "1";
    if (schema.minimum !== undefined) control.min = String(schema.minimum);
    if (schema.maximum !== undefined) control.max = String(schema.maximum);
    if (schema.maxLength !== undefined) control.maxLength = schema.maxLength;
    if (schema.default !== undefined) control.placeholder = String(schema.default);
  }
  control.name = name;
  control.dataset.kind = schema.type ?? "string";
  if (example !== undefined && control.type !== "checkbox") control.value = String(example);
  return control;
}

/** The value a control holds for the request, or undefined to leave it out. */
export function valueOf(control, schema) {
  if (control.type === "checkbox") {
    const fallback = Boolean(schema.default ?? false);
    return control.checked === fallback ? undefined : control.checked;
  }
  const text = control.value.trim();
  if (text === "") return undefined;
  if (schema.type === "integer") return Number.parseInt(text, 10);
  if (schema.type === "number") return Number(text);
  return text;
}

/** The actor list and the target choices of an action form. */
function actorChoices(session, spec) {
  const parts = {};
  if (spec.actor !== "none" && spec.actor !== undefined) {
    const mine = session.controllable().map((a) => [a.id, a.name]);
    const empty = spec.actor === "required" ? null : i18n.localize("ROLLBRIDGE.Web.Field.Nobody");
    parts.actor = select(mine, { name: "actor", empty });
  }
  if ((spec.max_targets ?? 0) > 0 || spec.max_targets === null) {
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
 * secret box). `submit(message)` gets the `resolve` request.
 */
export function actionForm(session, actionName, spec, submit) {
  const form = el("form", "action-form");
  form.dataset.action = actionName;
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
  for (const [name, schema] of Object.entries(properties)) {
    const control = controlFor(name, schema, example[name]);
    if (required.has(name)) control.required = true;
    controls[name] = control;
    const row = field(name, control, schema.description ?? "");
    if (required.has(name) || name in example) form.append(row);
    else more.append(row);
  }
  if (more.childElementCount > 1) form.append(more);
  let secret = null;
  if (session.role === "gm") {
    secret = el("input");
    secret.type = "checkbox";
    form.append(field(i18n.localize("ROLLBRIDGE.Web.Field.Secret"), secret));
  }
  const button = el("button", "", i18n.format("ROLLBRIDGE.Web.Button.Do", { action: actionName }));
  button.type = "submit";
  form.append(button);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const params = {};
    for (const [name, control] of Object.entries(controls)) {
      const value = valueOf(control, properties[name]);
      if (value !== undefined) params[name] = value;
    }
    const message = { type: "resolve", action: actionName, params };
    if (actor && actor.value) message.actor = actor.value;
    if (targets) {
      message.targets = [...targets.querySelectorAll("input:checked")].map((input) => input.value);
    }
    if (secret?.checked) message.secret = true;
    submit(message);
  });
  return form;
}

/** The dice form: notation, an optional label and actor; for the GM a secret box. */
export function rollForm(session, submit) {
  const form = el("form", "roll-form");
  const formula = el("input");
  formula.name = "formula";
  formula.required = true;
  formula.placeholder = "2d6+1, 4d6kh3, 3d6x";
  formula.autocomplete = "off";
  const label = el("input");
  label.name = "label";
  label.maxLength = 80;
  const actor = select(session.controllable().map((a) => [a.id, a.name]),
    { name: "actor", empty: i18n.localize("ROLLBRIDGE.Web.Field.Nobody") });
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
  form.append(button);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const message = { type: "roll", formula: formula.value.trim() };
    if (label.value.trim()) message.label = label.value.trim();
    if (actor.value) message.actor = actor.value;
    if (secret?.checked) message.secret = true;
    submit(message);
  });
  return form;
}
