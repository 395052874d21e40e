"""Which refusal codes are a ruleset's to give: none of rollbridge's own and none the
browser client gives a request it could not send — clients act on those (``busy`` and
``rate_limited`` are sent again, ``internal`` reads as the server's failure, a
Foundry request refused ``stopped`` or ``refused`` is asked for again at every
connection). The conformance suite holds every refusal it meets to it, and the engine
every refusal a ruleset raises at a table (docs/plugins.md, "Errors")."""

from __future__ import annotations

from functools import cache

from rollbridge.exceptions import RollbridgeError

__all__ = ["CLIENT_CODES", "FOREIGN", "foreign_code", "rollbridge_codes"]

#: The codes the browser client (adapters/client/connection.mjs) rejects a request
#: with that its connection could not send; the Foundry module keeps a held request
#: rejected so, and asks for it again at the next connection.
CLIENT_CODES = frozenset({"stopped", "refused"})

#: Whose a code :func:`foreign_code` names is, as the server's log says it.
FOREIGN = {
    "rollbridge": "one of rollbridge's own",
    "client": "one the browser client gives a request it could not send",
}


@cache
def rollbridge_codes() -> frozenset[str]:
    """The codes of rollbridge's own errors (every class of :mod:`rollbridge.exceptions`;
    not a ruleset's own subclass, which the walk meets too: its code is the ruleset's)."""
    found: set[str] = set()
    classes: list[type] = [RollbridgeError]
    while classes:
        kind = classes.pop()
        if kind.__module__ == RollbridgeError.__module__:
            found.add(kind.code)  # type: ignore[attr-defined]
        classes.extend(kind.__subclasses__())
    return frozenset(found)


def foreign_code(refused: RollbridgeError) -> str | None:
    """Whose ``refused``'s code is when it is not the ruleset's to give: ``"rollbridge"``
    (one of rollbridge's own codes) or ``"client"`` (:data:`CLIENT_CODES`); None when
    it is the ruleset's — or rollbridge's own class with its own code
    (``RuleViolation``'s ``rule_violation``, ``InvalidParams``' ``invalid_params``)."""
    code, kind = refused.code, type(refused)
    if kind.__module__ == RollbridgeError.__module__ and code == kind.code:
        return None
    if code in rollbridge_codes():
        return "rollbridge"
    return "client" if code in CLIENT_CODES else None
