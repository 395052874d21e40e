// `/rb odds` with Foundry's labels (flavour text, `2d6[fire]`), shared by the v12
// and v13 test files (odds_labels_v12.test.mjs, odds_labels_v13.test.mjs: the module
// is booted once a file). `/rb 2d6[fire]` rolls: the module sends Foundry's roll with
// its formula as typed, and the server's Foundry adapter drops the labels before the
// formula is parsed (adapters/foundry/dice_in.py formula_of). `/rb odds 2d6[fire]`
// must ask the odds of that same formula. The test answers as the server would, from
// rollbridge itself: the odds from `rollbridge odds --json` (which refuses a label,
// as the server's `odds` request does), the formula a roll rolls from the adapter's
// formula_of.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";

import { joinedModule, Standin, until } from "./standin.mjs";

/** The Python that runs rollbridge: `ROLLBRIDGE_PYTHON` (tests/foundry/test_foundry_node.py
 * sets it to its own), else the `python3` on the PATH (an activated venv's). */
const PYTHON = process.env.ROLLBRIDGE_PYTHON ?? "python3";

function python(args) {
  try {
    return { out: execFileSync(PYTHON, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }) };
  } catch (error) {
    if (error?.code === "ENOENT") throw new Error(`${PYTHON} is not on the PATH: set ROLLBRIDGE_PYTHON to the venv's python`);
    if (error?.stdout) return { out: error.stdout, failed: true };
    throw error;
  }
}

/** What `rollbridge odds --json FORMULA` prints: {distribution} (the server's
 * `distribution` of a formula's odds), or {error} (its refusal's code, message, details). */
export function rollbridgeOdds(formula) {
  const { out, failed } = python(["-m", "rollbridge", "odds", "--json", formula]);
  return failed ? { error: JSON.parse(out) } : { distribution: JSON.parse(out) };
}

/** The reply the server gives an `odds` request of a formula. */
function oddsReply(request) {
  const { distribution, error } = rollbridgeOdds(request.formula);
  if (error) return { type: "error", id: request.id, ...error };
  return { type: "result", id: request.id, distribution };
}

/** The formula the server's Foundry adapter rolls for a `foundry.roll`'s roll. */
function formulaRolled(roll) {
  const code = "import json, sys\nfrom rollbridge.adapters.foundry.dice_in import formula_of\n"
    + "print(json.dumps(formula_of(json.loads(sys.argv[1]))))";
  return JSON.parse(python(["-c", code, JSON.stringify(roll)]).out);
}

/**
 * On Foundry v`generation`: `/rb odds 2d6[fire]` asks the odds of `2d6` and posts
 * them, the formula `/rb 2d6[fire]` rolls; a formula of labels alone asks nothing
 * and says what to type (its `{params}` as written: it read "undefined").
 */
export async function labelsDropped(generation) {
  const { serve } = await joinedModule({ generation, system: "shadowrun5e", user: "player" });

  assert.equal(Hooks.call("chatMessage", {}, "/rb odds 2d6[fire] + 1d4[cold]", {}), false, "the command is consumed");
  const asked = await serve(oddsReply);
  assert.equal(asked.type, "odds");
  await until(() => Standin.log.messages.length, "the odds card");
  const card = Standin.log.messages.at(-1);
  assert.equal(card.flags.rollbridge.kind, "odds");
  assert.match(card.content, /data-outcome="3" data-probability="1\/144"/, "2d6 + 1d4's least total, 3, is 1/144");
  assert.deepEqual(Standin.log.notifications.filter((n) => n.level !== "info" || n.text.includes("odds")), []);

  Hooks.call("chatMessage", {}, "/rb 2d6[fire] + 1d4[cold]", {});
  const rolled = await serve((r) => ({ type: "error", id: r.id, code: "invalid", message: "the test rolls nothing" }));
  assert.equal(rolled.type, "foundry.roll");
  assert.equal(asked.formula, formulaRolled(rolled.roll), "the odds of what the roll rolls");

  const count = Standin.log.messages.length;
  const sent = Standin.log.notifications.length;
  Hooks.call("chatMessage", {}, "/rb odds [fire]", {});
  await until(() => Standin.log.notifications.length > sent, "a notice");
  assert.equal(Standin.log.notifications.at(-1).text,
    "rollbridge: odds of what? Type /rb odds 2d6+1 or /rb odds ACTION [targets] {params}.", "the text as written, no undefined");
  assert.equal(Standin.log.messages.length, count, "no card");
}
