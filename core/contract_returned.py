"""What a ruleset's hook returned, checked: :func:`returned` gives it back when it is
of the type the contract says, and raises :class:`~rollbridge.exceptions.InternalError`
naming the ruleset, the hook (and the field) and the type it was otherwise — never the
value, which may be an NPC's detail. The engine checks every hook's result so
(``initial_state``, ``adjust``, ``resolve``, a turn hook, ``odds``), and
:meth:`~rollbridge.contract.Ruleset.validate_state` the ``initial_state`` it lays a
supplied state over (docs/plugins.md, "What the engine does for you")."""

from __future__ import annotations

from typing import Any

from rollbridge.exceptions import InternalError
from rollbridge.text import Messages

__all__ = ["returned"]

say = Messages("rollbridge")


def returned(
    ruleset: str,
    value: Any,
    expected: type,
    hook: str,
    *,
    optional: bool = False,
    field: str = "",
) -> Any:
    """``value``, what the ruleset ``ruleset``'s ``hook`` returned (or its ``field``:
    one set after the result was made, past its shape check, ``made.outcome = [...]``),
    when it is an ``expected`` (or None, where ``optional``).

    :raises InternalError: anything else, naming the ruleset, the hook, the field and
        the type it was (code ``internal``)."""
    if isinstance(value, expected) or (optional and value is None):
        return value
    words = {
        "ruleset": repr(ruleset),
        "returned": type(value).__name__,
        "hook": hook,
        "expected": expected.__name__ + (" | None" if optional else ""),
    }
    if field:
        raise InternalError(
            say(
                "internal.ruleset_returned_field",
                "ruleset {ruleset} returned {returned} as the {field} of {hook}, not {expected}",
            )(field=field, **words)
        )
    raise InternalError(
        say(
            "internal.ruleset_returned",
            "ruleset {ruleset} returned {returned} from {hook}, not {expected}",
        )(**words)
    )
