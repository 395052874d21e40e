// Whose a refusal is (core/origin.mjs; docs/protocol.md, "Error codes"): the server
// marks every refusal a ruleset gave `details.origin: "ruleset"`, and each of the
// module's handlers keyed on a code reads the server's own alone. Before 7 December
// 2026, late night, only `invalid_request`'s field was read so: a ruleset's
// `not_remembered`, `not_found` or `odds_hidden` that reached the module would have been
// acted on as the server's.

import assert from "node:assert/strict";
import { test } from "node:test";

import { notRemembered, refusedForNow } from "../../../adapters/foundry/module/scripts/core/held.mjs";
import { oddsResult } from "../../../adapters/foundry/module/scripts/core/odds.mjs";
import { rulesetsRefusal, serversCode } from "../../../adapters/foundry/module/scripts/core/origin.mjs";

const rulesets = (code, details = {}) => ({ code, message: "x", details: { ...details, origin: "ruleset" } });

test("serversCode: the code of the server's own refusal; null for a ruleset's, whatever it holds", () => {
  assert.equal(serversCode({ code: "dice_mismatch" }), "dice_mismatch");
  assert.equal(serversCode({ code: "not_found", details: { actor: "a1" } }), "not_found");
  assert.equal(serversCode(rulesets("not_found")), null);
  assert.equal(serversCode({ code: "x", details: { origin: "server" } }), null, "any mark is the ruleset's: the server writes none");
  assert.equal(serversCode(null), null);
  assert.equal(serversCode({ code: 3 }), null, "no code of the protocol's");
  assert.equal(rulesetsRefusal(rulesets("too_high")), true);
  assert.equal(rulesetsRefusal({ code: "too_high", details: null }), false);
});

test("the handlers keyed on a code act on the server's refusal alone", () => {
  assert.equal(notRemembered({ code: "not_remembered" }), true);
  assert.equal(notRemembered(rulesets("not_remembered")), false, "a ruleset's: the held request is not dropped");
  assert.equal(refusedForNow({ code: "busy" }), true);
  assert.equal(refusedForNow(rulesets("busy")), false);
  assert.deepEqual(oddsResult({ error: { code: "odds_hidden", details: { actor: "g" } } }), { kind: "hidden", actor: "g" });
  assert.equal(oddsResult({ error: rulesets("odds_hidden", { actor: "g" }) }), null, "a ruleset's: no odds, not hidden ones");
});
