// Whose a refusal is (docs/protocol.md, "Error codes"): the server marks every refusal a
// table's ruleset gave `details.origin: "ruleset"`, whatever its code and whatever the
// ruleset put there; the server's own carry no such mark. The module's handlers keyed on
// a code (a held request kept for `internal`, dropped for `not_remembered`; an approval
// marked settled for `not_pending`; a draw sent again without its actor for
// `not_found`; the hint after `dice_mismatch`…) read it through serversCode alone, so
// a ruleset's refusal that happens to share a code is shown as it is and never acted on.
// Foundry-independent (tests/foundry/js/origin.test.mjs).

/** `details.origin` of a ruleset's refusal. */
export const RULESET_ORIGIN = "ruleset";

/**
 * Whether `error` is a refusal a table's ruleset gave (its details carry an `origin`).
 * @param {any} error
 */
export function rulesetsRefusal(error) {
  const details = error?.details;
  return Boolean(details) && typeof details === "object" && Object.hasOwn(details, "origin");
}

/**
 * `error`'s code where it is the server's own refusal (or the client's: a connection's
 * `stopped`, a `timeout`), which the module may act on; null for a ruleset's.
 * @param {any} error
 * @returns {string | null}
 */
export function serversCode(error) {
  if (rulesetsRefusal(error)) return null;
  return typeof error?.code === "string" ? error.code : null;
}
