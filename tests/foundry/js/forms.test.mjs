// The dialog of a ruleset action (docs/foundry.md, "The action dialog"): its fields
// built from the action's parameter schema in the welcome (core/forms.mjs), what the
// user enters turned back into params and checked first, and the whole module in the
// Foundry stand-in opening it with DialogV2 for `/rb do ACTION [targets]`, `/rb do`
// and api.actionDialog, the test standing for the user and the server.
//
// The specs are sr2's as a real welcome carries them: `rollbridge rulesets sr2
// --json --locale L` prints the ruleset's description as the server's welcome gives
// it (core/protocol/table.py described_ruleset: the same Ruleset.describe(locale)),
// with its example sheets (Tukan's weapons, for `choicesFrom`).

import assert from "node:assert/strict";
import { test } from "node:test";

import {
  actionFields,
  actionFormHtml,
  controlId,
  enteredValues,
  paramsFrom,
  readableName,
} from "../../../adapters/foundry/module/scripts/core/forms.mjs";
import { parseChatCommand } from "../../../adapters/foundry/module/scripts/core/protocol.mjs";
import { localization } from "./localization.mjs";

import { CS, EN, GUARD, TUKAN } from "./forms-world.mjs";

const en = await localization("en");
const byName = (fields) => Object.fromEntries(fields.map((f) => [f.name, f]));

test("sr2's attack: each parameter's control from its schema, labelled in the welcome's words", () => {
  const fields = byName(actionFields(EN.actions.attack, { actor: TUKAN, target: GUARD }));
  // choicesFrom (only): Tukan's weapons, the example's chosen
  assert.equal(fields.weapon.kind, "select");
  assert.deepEqual(fields.weapon.options, [["Hackler", "Hackler"], ["Stun baton", "Stun baton"]]);
  assert.equal(fields.weapon.value, "Hackler");
  assert.equal(fields.weapon.label, "Weapon");
  // an enum: its values named as the welcome's `choices` name them, the example chosen
  assert.equal(fields.range.kind, "select");
  assert.deepEqual(fields.range.options.map(([v]) => v), ["short", "medium", "long", "extreme"]);
  assert.equal(fields.range.value, "short");
  // integers: their bounds; not required, so the default is a placeholder, never sent
  assert.equal(fields.rounds.kind, "integer");
  assert.equal(fields.rounds.min, 1);
  assert.equal(fields.rounds.max, 100);
  assert.equal(fields.rounds.value, "");
  assert.equal(fields.rounds.placeholder, "1");
  assert.equal(fields.rounds.label, "Rounds fired");
  assert.equal(fields.tn.min, -100);
  // the sheet's skill is not overridden by the example's
  assert.equal(fields.skill.value, "");
  assert.equal(fields.code.kind, "text");
  assert.ok(Object.values(fields).every((f) => !f.required));
  // shown at once: what the example sets and the choice from the sheet; the rest folded
  assert.deepEqual(Object.values(fields).filter((f) => !f.more).map((f) => f.name),
    ["weapon", "skill", "attacker_pool", "rounds", "range"]);
});

test("the folded parameters: under More parameters, open when one holds a problem", () => {
  const fields = actionFields(EN.actions.attack, { actor: TUKAN });
  const closed = actionFormHtml(fields, { i18n: en });
  assert.match(closed, /<details class="rollbridge-more"><summary>More parameters<\/summary>/);
  assert.ok(closed.indexOf('name="rounds"') < closed.indexOf("<details"), "rounds shown at once");
  assert.ok(closed.indexOf('name="code"') > closed.indexOf("<details"), "code folded");
  const values = Object.fromEntries(fields.map((f) => [f.name, f.value]));
  assert.match(actionFormHtml(fields, { i18n: en, values: { ...values, armor: "101" }, problems: { armor: "too big" } }),
    /<details class="rollbridge-more" open>/);
  assert.match(actionFormHtml(fields, { i18n: en, values }), /<details class="rollbridge-more">/);
});

test("required fields get the example, booleans a checkbox, labels in the reader's language", () => {
  const fields = byName(actionFields(CS.actions.success_test, {}));
  assert.equal(fields.dice.required, true);
  assert.equal(fields.dice.value, "4");
  assert.equal(fields.tn.value, "5");
  assert.equal(fields.wound_modifier.kind, "checkbox");
  assert.equal(fields.wound_modifier.value, false);
  assert.equal(fields.dice.label, CS.actions.success_test.labels.dice);
  assert.notEqual(fields.dice.label, EN.actions.success_test.labels.dice, "the Czech welcome's word");
  // a parameter the welcome gives no label: its title, else its name made readable
  const bare = byName(actionFields({ params: { properties: { attacker_pool: { type: "integer" }, x: { type: "string", title: "Ex" } } } }));
  assert.equal(bare.attacker_pool.label, "Attacker pool");
  assert.equal(bare.x.label, "Ex");
  assert.equal(readableName("recoilCompensation"), "Recoil compensation");
});

test("choices from the sheet: none from a limited view of the acting actor; of the target from its view", () => {
  const noSheet = byName(actionFields(EN.actions.attack, { actor: { ...TUKAN, limited: true } }));
  assert.equal(noSheet.weapon.kind, "text", "no choices known: the name is typed, the server checks it");
  const spec = {
    params: { properties: { section: { type: "string", choicesFrom: { state: "vehicle.sections", value: "name", only: true, of: "target" } } } },
  };
  const target = { id: "rig", limited: true, state: { vehicle: { sections: [{ name: "cab" }, { name: "bed" }] } } };
  const fields = byName(actionFields(spec, { actor: TUKAN, target }));
  assert.deepEqual(fields.section.options, [["cab", "cab"], ["bed", "bed"]]);
  assert.equal(fields.section.value, "", "not required: the server's default unless one is chosen");
  // without `only`, a text field that suggests them
  const free = byName(actionFields({ params: { properties: { w: { type: "string", choicesFrom: { sheet: "weapons", value: "name" } } } } }, { actor: TUKAN }));
  assert.equal(free.w.kind, "text");
  assert.deepEqual(free.w.options.map(([v]) => v), ["Hackler", "Stun baton"]);
});

test("a schema the dialog cannot show (a list, an object) is a JSON field", () => {
  const spec = {
    params: {
      properties: { modifiers: { type: "array", items: { type: "object" } }, item: { type: ["object", "null"] } },
      required: ["item"],
    },
    example: { modifiers: [{ label: "dark", value: -2 }] },
  };
  const fields = actionFields(spec, {});
  assert.deepEqual(fields.map((f) => f.kind), ["json", "json"]);
  assert.equal(fields[0].placeholder, '[{"label":"dark","value":-2}]');
  const ok = paramsFrom(fields, { modifiers: '[{"label": "rain", "value": -1}]', item: '{"name": "Rope"}' });
  assert.deepEqual(ok, { params: { modifiers: [{ label: "rain", value: -1 }], item: { name: "Rope" } }, problems: {} });
  const bad = paramsFrom(fields, { modifiers: "[oops", item: "" });
  assert.deepEqual(bad.params, {});
  assert.equal(bad.problems.modifiers.key, "ROLLBRIDGE.Dialog.Problem.NotJson");
  assert.equal(bad.problems.item.key, "ROLLBRIDGE.Dialog.Problem.Required");
});

test("controls to params: typed values, empty fields left out, each problem named and nothing to send", () => {
  const fields = actionFields(EN.actions.attack, { actor: TUKAN });
  const { params, problems } = paramsFrom(fields, { weapon: "Hackler", rounds: " 3 ", range: "short", modifier: "-2", code: "" });
  assert.deepEqual(problems, {});
  assert.deepEqual(params, { weapon: "Hackler", rounds: 3, range: "short", modifier: -2 });
  const wrong = paramsFrom(fields, { weapon: "Laser", rounds: "0", range: "far", modifier: "2.5", armor: "101", code: "x".repeat(3) });
  assert.deepEqual(Object.fromEntries(Object.entries(wrong.problems).map(([k, v]) => [k, [v.key, v.data]])), {
    weapon: ["ROLLBRIDGE.Dialog.Problem.NotAChoice", {}],
    rounds: ["ROLLBRIDGE.Dialog.Problem.Below", { min: 1 }],
    range: ["ROLLBRIDGE.Dialog.Problem.NotAChoice", {}],
    modifier: ["ROLLBRIDGE.Dialog.Problem.NotInteger", {}],
    armor: ["ROLLBRIDGE.Dialog.Problem.Above", { max: 100 }],
  });
  // a checkbox is sent when it differs from the schema's default
  const test_ = actionFields(EN.actions.success_test, {});
  assert.deepEqual(paramsFrom(test_, { dice: "4", tn: "5", wound_modifier: true }).params, { dice: 4, tn: 5, wound_modifier: true });
  assert.deepEqual(paramsFrom(test_, { dice: "4", tn: "5", wound_modifier: false }).params, { dice: 4, tn: 5 });
  assert.deepEqual(Object.keys(paramsFrom(test_, { dice: "", tn: "5" }).problems), ["dice"]);
});

test("the form's HTML: every control labelled, required marked, a problem tied to its field", () => {
  const fields = actionFields(EN.actions.success_test, {});
  const html = actionFormHtml(fields, { i18n: en, who: "Tukan <acts>", values: { dice: "", tn: "5" }, problems: { dice: "This field is required." } });
  for (const [index, field] of fields.entries()) {
    const id = controlId(field.name, index);
    assert.ok(html.includes(`<label for="${id}">`), `${field.name} has a label`);
    assert.match(html, new RegExp(`id="${id}" name="${field.name}"`));
  }
  assert.match(html, /id="rollbridge-param-0-dice" name="dice" aria-required="true" aria-describedby="rollbridge-param-0-dice-hint rollbridge-param-0-dice-problem" aria-invalid="true"/);
  assert.match(html, /<p class="rollbridge-problem" id="rollbridge-param-0-dice-problem" role="alert">This field is required.<\/p>/);
  assert.ok(html.includes(en.localize("ROLLBRIDGE.Dialog.RequiredNote")));
  assert.ok(html.includes("Tukan &lt;acts&gt;"), "the names are text");
  assert.match(html, /<input type="number" step="1" min="1" max="100" value="" placeholder="5"|name="tn"/);
  assert.ok(html.includes('<input type="checkbox" id="rollbridge-param-3-wound_modifier"'));
  // what was entered is shown again
  assert.match(html, /type="number"[^>]*value="5"[^>]*id="rollbridge-param-1-tn"/);
  assert.deepEqual(enteredValues({ elements: [{ name: "a", value: "1" }, { name: "b", type: "checkbox", checked: true }, { value: "x" }] }), { a: "1", b: true });
});

test("the chat command: /rb do ACTION [targets] without params opens the dialog; with them resolves as before", () => {
  assert.deepEqual(parseChatCommand("/rb do attack guard"), { kind: "dialog", action: "attack", targets: ["guard"] });
  assert.deepEqual(parseChatCommand("/rb do"), { kind: "pick" });
  assert.deepEqual(parseChatCommand('/rb do attack guard {"rounds": 3}'), { kind: "resolve", action: "attack", targets: ["guard"], params: { rounds: 3 } });
  assert.equal(parseChatCommand("/rb double").kind, "roll");
});


test("an odd sheet: a choice with spaces around it is offered and sent as the sheet has it", () => {
  // a Foundry item typed "Ares Predator " keeps its space on the rollbridge sheet, and
  // sr2 matches the weapon's name exactly: the select's value is the sheet's, unchanged
  const actor = { ...TUKAN, sheet: { ...TUKAN.sheet, weapons: [{ name: "Ares Predator " }, { name: " Hackler" }] } };
  const fields = actionFields(EN.actions.attack, { actor });
  const weapon = byName(fields).weapon;
  assert.deepEqual(weapon.options.map(([v]) => v), ["Ares Predator ", " Hackler"]);
  for (const name of ["Ares Predator ", " Hackler"]) {
    const { params, problems } = paramsFrom(fields, { weapon: name, range: "short" });
    assert.deepEqual(problems, {}, JSON.stringify(name));
    assert.equal(params.weapon, name);
  }
  // a value the select never offered is still refused, spaces or none
  assert.equal(paramsFrom(fields, { weapon: "Ares Predator", range: "short" }).problems.weapon.key, "ROLLBRIDGE.Dialog.Problem.NotAChoice");
  assert.equal(paramsFrom(fields, { weapon: "   ", range: "short" }).problems.weapon, undefined, "blank: left to the server's default");
});

test("an odd schema: a parameter described as null, true or a text is a plain text field, not a crash", () => {
  // JSON Schema allows `true` (anything) for a property; a plugin's schema may hold
  // null or a bare word where an object belongs
  const spec = { params: { properties: { anything: true, nothing: null, word: "string", note: { type: "string" } }, required: ["nothing"] } };
  const fields = actionFields(spec, { actor: TUKAN });
  assert.deepEqual(fields.map((f) => [f.name, f.kind, f.label]), [
    ["anything", "text", "Anything"], ["nothing", "text", "Nothing"], ["word", "text", "Word"], ["note", "text", "Note"],
  ]);
  const html = actionFormHtml(fields, { i18n: en });
  assert.ok(html.includes(`<label for="${controlId("nothing", 1)}">Nothing`), html);
  assert.deepEqual(paramsFrom(fields, { anything: "x", nothing: "y", word: "", note: "z" }), {
    params: { anything: "x", nothing: "y", note: "z" }, problems: {},
  });
  assert.equal(paramsFrom(fields, { nothing: "" }).problems.nothing.key, "ROLLBRIDGE.Dialog.Problem.Required");
});

test("a parameter named as what every object inherits (constructor, toString) is labelled by its name, no example", () => {
  const spec = {
    params: { properties: { constructor: { type: "string" }, toString: { type: "integer", minimum: 1 } }, required: ["toString"] },
    labels: {}, hints: {}, example: {}, choices: {},
  };
  const fields = byName(actionFields(spec, {}));
  assert.deepEqual([fields.constructor.label, fields.constructor.hint, fields.constructor.placeholder, fields.constructor.more], ["Constructor", "", "", true]);
  assert.deepEqual([fields.toString.label, fields.toString.value], ["To string", ""]);
  assert.deepEqual(paramsFrom(Object.values(fields), { constructor: "x", toString: "2" }).params, { constructor: "x", toString: 2 });
});

test("parameters named in another script (Russian сила, вода): each label tied to its own control, hint and problem", () => {
  const spec = {
    params: { properties: { сила: { type: "integer", minimum: 1 }, вода: { type: "integer", minimum: 1 } }, required: ["сила", "вода"] },
    labels: { сила: "Сила", вода: "Вода" }, hints: { сила: "Сколько силы.", вода: "Сколько воды." },
  };
  const fields = actionFields(spec, {});
  const html = actionFormHtml(fields, { i18n: en, problems: { вода: "Это поле обязательно." } });
  const ids = [...html.matchAll(/ id="([^"]+)"/g)].map(([, id]) => id);
  assert.equal(new Set(ids).size, ids.length, `no id twice: ${ids.join(" ")}`);
  // each label names the control in its row, and that control's hint and problem are its own
  const rows = html.split('<div class="form-group rollbridge-field"').slice(1);
  assert.equal(rows.length, 2);
  for (const row of rows) {
    const [, forId, label] = row.match(/<label for="([^"]+)">([^<]+)/);
    const [, id, name, described] = row.match(/<input [^>]*id="([^"]+)" name="([^"]+)"[^>]*aria-describedby="([^"]+)"/);
    assert.equal(forId, id, `${name}: the label names its own control`);
    assert.equal(label.trim(), spec.labels[name]);
    for (const part of described.split(" ")) assert.ok(row.includes(`id="${part}"`), `${name}: ${part} is in its row`);
  }
  // two forms open at once (each dialog its own prefix) share no id either
  const other = actionFormHtml(fields, { i18n: en, form: "rollbridge-dialog2" });
  const otherIds = [...other.matchAll(/ id="([^"]+)"/g)].map(([, id]) => id);
  assert.deepEqual(otherIds.filter((id) => ids.includes(id)), []);
});

test("a whole number too large to stay exact is said, not sent changed; a required checkbox is sent unchecked too", () => {
  const spec = {
    params: { properties: { n: { type: "integer" }, sure: { type: "boolean" }, loud: { type: "boolean" } }, required: ["sure"] },
  };
  const fields = actionFields(spec, {});
  const big = paramsFrom(fields, { n: "12345678901234567891", sure: true });
  assert.deepEqual(big.params, { sure: true });
  assert.deepEqual([big.problems.n.key, big.problems.n.data], ["ROLLBRIDGE.Dialog.Problem.Above", { max: Number.MAX_SAFE_INTEGER }]);
  assert.equal(paramsFrom(fields, { n: "-12345678901234567891" }).problems.n.key, "ROLLBRIDGE.Dialog.Problem.Below");
  assert.deepEqual(paramsFrom(fields, { n: String(Number.MAX_SAFE_INTEGER), sure: false, loud: false }), {
    params: { n: Number.MAX_SAFE_INTEGER, sure: false }, problems: {},
  });
});
