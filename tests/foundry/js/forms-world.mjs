// The world of the action dialog's tests (forms*.test.mjs): sr2's description as a
// real welcome carries it, and the whole module booted in the Foundry stand-in,
// welcomed as a player at an sr2 table of Tukan and a guard. The module is booted
// once a file (its hooks are registered when it is imported), so each generation
// and language has its own test file.
//
// `rollbridge rulesets sr2 --json --locale L` prints the ruleset's description as
// the server's welcome gives it (core/protocol/table.py described_ruleset: the same
// Ruleset.describe(locale)), with its example sheets (Tukan's weapons, for
// `choicesFrom`).

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";

import { FakeWebSocket } from "./fakes.mjs";
import { bootModule, Standin, until, world } from "./standin.mjs";

/** sr2's description as the server's welcome carries it in `lang`: from the Python
 * that runs the tests (`ROLLBRIDGE_PYTHON`, which tests/foundry/test_foundry_node.py
 * sets to its own), else `ROLLBRIDGE_CLI` or the `rollbridge` on the PATH. */
export function sr2(lang) {
  const python = process.env.ROLLBRIDGE_PYTHON;
  const [cli, ...head] = python ? [python, "-m", "rollbridge"] : [process.env.ROLLBRIDGE_CLI ?? "rollbridge"];
  const args = [...head, "rulesets", "sr2", "--json", "--locale", lang];
  let out;
  try {
    out = execFileSync(cli, args, { encoding: "utf8" });
  } catch (error) {
    if (error?.code !== "ENOENT") throw error;
    throw new Error(`${cli} is not on the PATH: activate the venv rollbridge is installed in, or set ROLLBRIDGE_PYTHON to its python`);
  }
  const [ruleset] = JSON.parse(out);
  return ruleset;
}

export const EN = sr2("en");
export const CS = sr2("cs");
/** Tukan and a guard as a player's view of the table holds them (sr2's example sheets). */
export const TUKAN = { id: "tukan", name: "Tukan", sheet: EN.example_sheets.Tukan };
export const GUARD = { id: "guard", name: "Guard A", sheet: EN.example_sheets["Guard A"], limited: true };

/**
 * The module booted in a world of `lang` (v`generation`), welcomed as a player at an
 * sr2 table of Tukan and a guard. Returns {api, ws, next}: next() waits for the next
 * request the module sends.
 */
export async function joined({ lang = "en", generation = 13, ruleset = null } = {}) {
  await world({ generation, user: "player", lang });
  const api = await bootModule();
  const ws = FakeWebSocket.last();
  ws.open();
  const hello = ws.messages().find((m) => m.type === "hello");
  ws.receive({
    type: "welcome", id: hello.id, protocol: 1, role: "player", epoch: 1, seq: 0, locale: lang,
    table: { id: "t1", ruleset: "sr2", actors: [TUKAN, GUARD] }, ruleset: ruleset ?? (lang === "cs" ? CS : EN),
  });
  let seen = ws.messages().length;
  const next = async () => {
    await until(() => ws.messages().length > seen, "a request");
    seen += 1;
    return ws.messages()[seen - 1];
  };
  return { api, ws, next };
}

/** Answer the dialog's `state` request with the table (Tukan and the guard). */
export async function answerState(ws, next) {
  const state = await next();
  assert.equal(state.type, "state");
  ws.receive({ type: "state", id: state.id, table: { id: "t1", actors: [TUKAN, GUARD] } });
}

/** The dialog open last, once there is one. */
export const openDialog = () => until(() => Standin.log.dialogs.at(-1), "the dialog");

/** The server's answer to a resolve request: its resolution event. */
export const result = (request) => ({
  type: "result", id: request.id,
  event: { type: "event", table: "t1", epoch: 1, seq: 1, kind: "resolution", request: request.id, data: { action: "attack" }, actors: [] },
});

/**
 * `/rb do attack guard` in the world `joined` made: the dialog's request equals the
 * JSON line's (`/rb do attack guard {…}`); Escape sends nothing and shows no error.
 */
export async function dialogRoundTrip({ ws, next }) {
  Hooks.call("chatMessage", {}, '/rb do attack guard {"weapon": "Stun baton", "rounds": 3, "range": "medium"}', {});
  const typed = await next();
  ws.receive(result(typed));

  assert.equal(Hooks.call("chatMessage", {}, "/rb do attack guard", {}), false);
  await answerState(ws, next);
  let dialog = await openDialog();
  assert.equal(dialog.title, "Attack");
  assert.equal(dialog.form.noValidate, true, "the browser's own check is off: ours speaks the user's language");
  assert.deepEqual(dialog.buttons.map((b) => [b.action, Boolean(b.default)]), [["submit", true], ["cancel", false]]);
  await dialog.submit("submit", { weapon: "Stun baton", rounds: "3", range: "medium" });
  const sent = await next();
  ws.receive(result(sent));
  const { id: _a, ...fromDialog } = sent;
  const { id: _b, ...fromJson } = typed;
  assert.deepEqual(fromDialog, fromJson);

  Hooks.call("chatMessage", {}, "/rb do attack guard", {});
  await answerState(ws, next);
  dialog = await openDialog();
  const before = ws.messages().length;
  dialog.escape();
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
  assert.equal(ws.messages().length, before, "nothing sent");
  assert.equal(Standin.log.dialogs.length, 0);
  assert.deepEqual(Standin.log.notifications.filter((n) => n.level === "error"), [], "a dismissal is no error");
}

/** sr2 in English, its success test labelled with markup's characters (a plugin's odd label). */
export const ODD_LABEL = "Hit & Run <fast>";
export const ODD = { ...EN, actions: { ...EN.actions, success_test: { ...EN.actions.success_test, label: ODD_LABEL } } };

/**
 * In the world `joined` made with the ruleset ODD: the submit button reads the
 * action's label as the ruleset gives it, whether the generation writes it as HTML
 * (v12) or as text (v13); cancelling sends nothing.
 */
export async function oddLabel({ api, ws, next }) {
  const done = api.actionDialog("success_test", { actor: "tukan" });
  await answerState(ws, next);
  const dialog = await openDialog();
  assert.equal(dialog.shownLabel("submit"), ODD_LABEL);
  assert.equal(dialog.title, ODD_LABEL);
  await dialog.submit("cancel");
  assert.equal(await done, null);
}
