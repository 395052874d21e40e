// Foundry glue: the dialog of a ruleset action (`/rb do ACTION [targets]` without
// params, `/rb do` alone, api.actionDialog), shown with Foundry's own
// foundry.applications.api.DialogV2 (v12 and v13) and built by core/forms.mjs
// from the action's parameter schema in the welcome.
//
// DialogV2.wait resolves to the pressed button's callback value, or null when the
// dialog is dismissed (Escape, the close button) with rejectClose false — given
// here, as v12's default is true. The submit button is the default one, so Enter
// in a field submits; its callback reads the form's controls. What the user
// entered is checked before anything is sent: a problem (a required field empty,
// a number outside its bounds) opens the dialog again with what was entered and
// the problem beside its field, in the user's language; the browser's own
// validation is turned off in the form (its bubbles speak the browser's language,
// not Foundry's), so the check is always this one.

import { actionFields, actionFormHtml, actionPickHtml, enteredValues, paramsFrom } from "../core/forms.mjs";
import { RollbridgeError } from "../core/protocol.mjs";
import { escapeHtml } from "../core/card.mjs";

/**
 * The dialog's form: the browser's validation off (ours speaks the user's
 * language), the first field (or the first with a problem) focused. `dialog` is
 * what DialogV2 hands a render callback: its element on v12, the DialogV2 itself
 * on v13 (the v13 release notes: "DialogV2RenderCallback now expect[s] a DialogV2
 * instance in the dialog argument, rather than a DialogV2#element").
 */
function onRender(_event, dialog) {
  const element = dialog?.element ?? dialog;
  const form = element?.querySelector?.("form") ?? (element?.tagName === "FORM" ? element : null);
  if (form) form.noValidate = true;
  const first = element?.querySelector?.('[aria-invalid="true"]') ?? element?.querySelector?.(".rollbridge-action-form [name]");
  first?.focus?.();
}

/** Dialogs opened so far: each one's element ids start with its own number. */
let opened = 0;

/** The element ids' prefix of a dialog about to open (forms.mjs controlId): two
 * open at once (a macro's two calls) must not share an id, or a label of the second
 * would name the first's control. */
const newFormId = () => `rollbridge-dialog${++opened}`;

/**
 * A button's label as DialogV2 takes it: v12 writes the label into the button's
 * HTML (escaped here, so a ruleset's "Hit & Run <fast>" reads as written), v13 sets
 * it as the button's text (escaped, it would read "Hit &amp; Run").
 */
function buttonLabel(text) {
  return (game.release?.generation ?? 13) >= 13 ? text : escapeHtml(text);
}

/**
 * One DialogV2 with `content`, a default submit button and Cancel: resolves to the
 * form's values when submitted, null when cancelled or dismissed.
 * @param {{title: string, content: string, submit: string}} options `submit`: the submit button's label, as text
 * @returns {Promise<Record<string, string | boolean> | null>}
 */
async function ask({ title, content, submit }) {
  const result = await foundry.applications.api.DialogV2.wait({
    // v12.331's declarations take wait's `window` whole (a Partial, not a DeepPartial,
    // of the configuration); Foundry merges it into the window's defaults on both
    window: /** @type {any} */ ({ title }),
    content,
    modal: true,
    rejectClose: false,
    render: onRender,
    buttons: [
      {
        action: "submit", label: buttonLabel(submit), default: true, icon: "fa-solid fa-dice",
        callback: (_event, button) => ({ values: enteredValues(button.form) }),
      },
      { action: "cancel", label: buttonLabel(game.i18n.localize("ROLLBRIDGE.Dialog.Cancel")), icon: "fa-solid fa-xmark" },
    ],
  });
  // the submit button's callback value; Cancel's is its action, a dismissal null
  const values = /** @type {any} */ (result)?.values;
  return values && typeof values === "object" ? values : null;
}

/** The table's actors as the server shows them to this user now (a `state` reply),
 * else as the welcome did (the connection down). */
async function tableActors(client) {
  try {
    const reply = await client.request({ type: "state" });
    if (Array.isArray(reply?.table?.actors)) return reply.table.actors;
  } catch (error) {
    console.info(`rollbridge | the dialog's sheets from the welcome: ${error?.code ?? error?.message ?? error}`);
  }
  return client.welcome?.table?.actors ?? [];
}

/** The welcome's ruleset description, or a typed error when there is none yet. */
function rulesetOf(client) {
  const ruleset = client.welcome?.ruleset;
  if (!ruleset?.actions) {
    throw new RollbridgeError("not_connected", "rollbridge: no ruleset yet (not connected)", undefined, {
      key: "ROLLBRIDGE.Dialog.NoRuleset", data: {},
    });
  }
  return ruleset;
}

/**
 * Let the user pick one of the table's actions (`/rb do` alone): its name, or
 * null when cancelled.
 */
export async function pickAction(client) {
  const ruleset = rulesetOf(client);
  const values = await ask({
    title: game.i18n.localize("ROLLBRIDGE.Dialog.PickTitle"),
    content: actionPickHtml(ruleset, { i18n: game.i18n, form: newFormId() }),
    submit: game.i18n.localize("ROLLBRIDGE.Dialog.Next"),
  });
  const name = values ? String(values.action ?? "") : "";
  return name && Object.hasOwn(ruleset.actions, name) ? name : null;
}

/**
 * The dialog of `action`: resolves to the resolution's event (as `resolve` does)
 * or null when the user cancels (nothing sent); an action without parameters is
 * resolved at once, without a dialog. `actor`, `targets`, `speaker` and
 * `rollMode` are taken as `resolve` takes them (the selected token's actor, the
 * user's targeted tokens by default). A refusal by the server rejects with its
 * error, as `resolve` does.
 * @param {any} client the module's FoundryClient
 * @param {string} action
 * @param {{actor?: any, targets?: any[], speaker?: any, rollMode?: string}} [options]
 */
export async function actionDialog(client, action, options = {}) {
  const ruleset = rulesetOf(client);
  // the table's own actions only: `/rb do toString` names none (every object inherits it)
  const spec = Object.hasOwn(ruleset.actions, action) ? ruleset.actions[action] : undefined;
  if (!spec) {
    const known = Object.keys(ruleset.actions).join(", ");
    throw new RollbridgeError("unknown_action", `rollbridge: no action ${action} (known: ${known})`, undefined, {
      key: "ROLLBRIDGE.Dialog.UnknownAction", data: { action, actions: known },
    });
  }
  const speaker = options.speaker ?? ChatMessage.getSpeaker();
  const actorId = client.actorFor({ actor: options.actor, speaker });
  const targetIds = client.targetsFor(options.targets);
  const actors = await tableActors(client);
  const find = (id) => actors.find((a) => a?.id === id);
  const fields = actionFields(spec, { actor: find(actorId), target: find(targetIds[0]) });
  const name = (id) => find(id)?.name ?? id;
  const who = actorId || targetIds.length
    ? game.i18n.format(targetIds.length ? "ROLLBRIDGE.Dialog.WhoOnWhom" : "ROLLBRIDGE.Dialog.Who", {
      actor: actorId ? name(actorId) : game.i18n.localize("ROLLBRIDGE.Dialog.Nobody"),
      targets: targetIds.map(name).join(", "),
    })
    : "";
  // the action's label in the user's language (the welcome's), else its name
  const title = spec.label || action;
  const resolve = (params) => client.resolve(action, {
    speaker, actor: actorId ?? undefined, targets: targetIds, params, rollMode: options.rollMode,
  });
  // an action without parameters (sr2's new_turn) has nothing to ask: it goes at once
  if (!fields.length) return resolve({});
  let values = null;
  let problems = {};
  const form = newFormId();
  for (;;) {
    values = await ask({
      title,
      content: actionFormHtml(fields, { i18n: game.i18n, who, values, problems, form }),
      submit: spec.label || action,
    });
    if (!values) return null;
    const checked = paramsFrom(fields, values);
    problems = Object.fromEntries(Object.entries(checked.problems)
      .map(([param, { key, data }]) => [param, game.i18n.format(key, data)]));
    if (!Object.keys(problems).length) return resolve(checked.params);
  }
}
