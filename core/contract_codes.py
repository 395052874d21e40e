"""Which refusal codes are a ruleset's to give.

Two rules, of two strengths. The conformance suite holds every refusal it meets to
the documented one: a code of the ruleset's own, none of rollbridge's
(:func:`rollbridge_codes`) and none a client gives a request it could not send or
acts on in a reply (:data:`CLIENT_CODES`) — :func:`foreign_code`. A table turns into
the ruleset's failure (``internal``, logged naming the ruleset, the table and the
code) only a refusal whose code a client acts on (:data:`ACTED_ON`: ``busy`` is sent
again, ``stopped`` held and asked for again, …) — :func:`acted_on` — whatever its
class: any other reaches the client as the ruleset's refusal, which every client
shows as it is (docs/plugins.md, "Errors"), marked ``details.origin: "ruleset"``
(:func:`origin_marked`) so that no client takes it for the server's own.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from types import MappingProxyType, MemberDescriptorType
from typing import Any

from rollbridge.exceptions import STOPS, InternalError, RollbridgeError

__all__ = [
    "ACTED_ON",
    "CLIENT_CODES",
    "CODE",
    "DETAILS_READ",
    "FOREIGN",
    "RULESET_ORIGIN",
    "acted_on",
    "foreign_code",
    "origin_marked",
    "rollbridge_codes",
    "servers_own",
    "well_formed",
    "wire_code",
]

_HELD = "the Foundry module holds a request refused so and asks for it again"
_RETRIED = "every client sends the request again"
_HELLO = "a hello refused so is tried again"

#: The codes a client acts on in the reply to a request a ruleset answers (a
#: ``resolve``, an approval, ``odds``, a ``hello``'s description of the ruleset…),
#: and what it does: adapters/client/connection.mjs, core/server/webui/table.mjs, the
#: Foundry module (adapters/foundry/module/scripts: core/held.mjs, core/odds.mjs,
#: foundry/buttons.mjs, foundry/client.mjs) and ``rollbridge connect``
#: (core/cli/reconnect.py).
ACTED_ON: Mapping[str, str] = MappingProxyType(
    {
        "busy": _RETRIED,
        "rate_limited": _RETRIED,
        "internal": _HELD,
        "store_error": _HELD,
        "stopped": _HELD + " at every connection",
        "refused": _HELD + " at every connection",
        "too_many_connections": _HELLO,
        "ruleset_unavailable": _HELLO,
        "unauthorized": "a hello refused so ends the connection, the token refused",
        "not_remembered": "the web view and the Foundry module drop a request asked again",
        "odds_hidden": "the web view and the Foundry module show the NPC's odds hidden",
        "held_dice_secret": "the web view asks for the GM's dice",
        "not_pending": "the Foundry module marks the approval settled",
    }
)

#: The codes no class of rollbridge's has that clients give or act on: the browser
#: client (adapters/client/connection.mjs) rejects a request its connection could not
#: send with ``stopped`` or ``refused`` (the Foundry module keeps a held request
#: rejected so, and asks for it again at the next connection); the web view reads an
#: approval refused ``held_dice_secret`` as one needing the GM's dice, the Foundry
#: module one refused ``not_pending`` as settled.
CLIENT_CODES = frozenset({"stopped", "refused", "held_dice_secret", "not_pending"})

#: A ruleset's own refusal code: lowercase letters, digits and underscores, at most 64,
#: not starting with an underscore, with a letter among them (docs/protocol.md, "Error
#: codes": clients take a code as an opaque string; ``2nd_wind_used`` is one, ``42``
#: would read as a number, ``No Skill`` as no code a client could key on).
CODE = re.compile(r"(?=[0-9_]*[a-z])[a-z0-9][a-z0-9_]{0,63}")


def well_formed(code: object) -> bool:
    """Whether ``code`` is a refusal code a client may be sent (:data:`CODE`): a table
    reads a ruleset's refusal with any other — ``"No Skill"``, ``""``, ``3`` — as the
    ruleset's failure (``internal``), and the conformance suite fails it. A code of a
    ``str`` class of the ruleset's own (an ``enum.StrEnum``) is judged as the plain
    string it holds, which is what its reply carries (:func:`wire_code`)."""
    if isinstance(code, str):
        code = str.__str__(code)
    return code.__class__ is str and CODE.fullmatch(code) is not None  # type: ignore[arg-type]


#: Whose a code :func:`foreign_code` names is, as the conformance suite says it.
FOREIGN = {
    "rollbridge": "one of rollbridge's own",
    "client": "one a client gives a request it could not send or acts on in a reply",
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
    it is the ruleset's — or the code of rollbridge's class it is, or derives from
    (``RuleViolation``'s ``rule_violation``, a ruleset's ``class NoAmmo(RuleViolation)``
    that keeps it, ``InvalidParams``' ``invalid_params``)."""
    code = refused.code
    for kind in type(refused).__mro__:
        if kind.__module__ == RollbridgeError.__module__:
            if code == kind.code:  # type: ignore[attr-defined]
                return None
            break
    if code in rollbridge_codes():
        return "rollbridge"
    return "client" if code in CLIENT_CODES else None


def wire_code(refused: RollbridgeError) -> Any:
    """``refused``'s code as the wire carries it: a code of a str class of the ruleset's
    own (an ``enum.StrEnum``, a class with an equality or hash of its own) as the plain
    string it holds, which is what its reply says; any other code as it is. What a
    client reads is what :func:`acted_on` and :func:`origin_marked` must read: until 7
    December 2026, late, a ruleset's ``StrEnum`` ``invalid_request`` was never marked."""
    code = refused.code
    return str.__str__(code) if isinstance(code, str) else code


def acted_on(refused: RollbridgeError) -> str | None:
    """What a client does with a reply refused as ``refused`` is, raised by a ruleset,
    where it acts on its code (:data:`ACTED_ON`); None where every client shows it as
    the ruleset's refusal. Never for rollbridge's own :class:`InternalError`, which a
    table gives for a ruleset's failure (a call within the ruleset's call)."""
    if refused.__class__ is InternalError:
        return None
    code = wire_code(refused)
    return ACTED_ON.get(code) if code.__class__ is str else None


#: The codes whose ``details`` a client acts on: ``invalid_request``'s ``details.field``
#: (the Foundry module reads ``at`` as a table's log that no longer reaches back there,
#: ``….repeat`` as a server older than ``repeat``: core/held.mjs; ``….requester_sees``
#: as one older than that field: core/rollmode.mjs). Since 7 December 2026, late night,
#: every refusal a ruleset gives is marked (:func:`origin_marked`), these among them.
DETAILS_READ = frozenset({"invalid_request"})

#: ``details.origin`` of a refusal a ruleset gave, whatever its code.
RULESET_ORIGIN = "ruleset"


def origin_marked(refused: RollbridgeError) -> RollbridgeError:
    """A copy of ``refused``, raised by a ruleset, with ``details.origin`` set to
    :data:`RULESET_ORIGIN` whatever its code (its other details kept; details that are
    no map replaced; a mark the ruleset wrote itself overwritten): the wire then says it
    is not the server's own, so a client keyed on the server's codes (``not_allowed``,
    ``dice_mismatch``, ``invalid_request``'s ``at``…) never acts on it
    (docs/protocol.md, "Error codes"). Rollbridge's own :class:`InternalError` is
    returned as it is: the ruleset's failure, read as the table's own (:func:`acted_on`).
    The ruleset's own object is left as it was (:func:`_copied`): until 7 December 2026,
    night, the mark was set on it, and a ruleset that keeps a refusal and raises it
    again found its details changed. Nor is a refusal rollbridge's own code raised
    within the ruleset's call (:func:`servers_own`: the requester's supplied dice that
    a d10 cannot show, too few of them — ``dice_mismatch``, ``dice_exhausted``), which
    is the server's own: until 7 December 2026, late night, it was marked, and the
    Foundry module said nothing of the player's dice on a GM's Approve it refused."""
    if refused.__class__ is InternalError or _noted_servers_own(refused):
        return refused
    details = refused.details
    kept = dict(details) if isinstance(details, Mapping) else {}
    marked = _copied(refused)
    marked.details = {**kept, "origin": RULESET_ORIGIN}
    return marked


#: What :func:`servers_own` notes on a refusal: an object of this module's own, which
#: a ruleset's class that writes the attribute (or a ``__getattr__`` that answers any
#: name) does not hold.
_SERVERS = object()
_NOTE = "_rollbridge_servers_own"


def servers_own(refused: RollbridgeError) -> RollbridgeError:
    """``refused``, raised by rollbridge's own code that a ruleset calls (the table's
    dice source within ``resolve``), noted as the server's own: :func:`origin_marked`
    leaves it unmarked wherever the ruleset lets it through. A ruleset's refusal of
    the same code, an object of its own, is marked as ever."""
    setattr(refused, _NOTE, _SERVERS)
    return refused


def _noted_servers_own(refused: RollbridgeError) -> bool:
    """Whether :func:`servers_own` noted ``refused`` (read from its own ``__dict__``:
    a property or ``__getattr__`` of a ruleset's class is never asked)."""
    return vars(refused).get(_NOTE) is _SERVERS


def _copied(refused: RollbridgeError) -> RollbridgeError:
    """A shallow copy of ``refused`` — its class, arguments, attributes (its
    ``__dict__``'s and its slots'), cause and traceback — made without calling its
    class's ``__init__`` (a ruleset's own class may take other arguments than the ones
    it keeps in ``args``). A ``__new__`` of the class's own that refuses ``args`` (one
    that requires a keyword, or checks its argument) is passed over for the next one of
    its bases: until rev29a the copy failed there, and a refusal the ruleset meant was
    answered as its failure; a slot was not copied, and a message read from one read
    otherwise."""
    kind = type(refused)
    copy = None
    for base in kind.__mro__:  # its own __new__ first, a built-in exception's last
        make = base.__dict__.get("__new__")
        if make is None:
            continue
        try:
            copy = make(kind, *refused.args)
            break
        except STOPS:
            raise
        except BaseException:  # it wants other arguments (or refuses these): the next's
            continue
    if copy is None:  # (BaseException's takes any; a class of its own may forbid it)
        raise TypeError(f"{kind.__name__} cannot be copied")
    copy.__dict__.update(refused.__dict__)
    for base in kind.__mro__:  # the slots of the ruleset's classes
        for slot in base.__dict__.values():
            if isinstance(slot, MemberDescriptorType):
                try:
                    slot.__set__(copy, slot.__get__(refused, kind))
                except AttributeError:  # a slot never set, or one no copy may set
                    continue
    copy.__cause__ = refused.__cause__
    copy.__context__ = refused.__context__
    copy.__suppress_context__ = refused.__suppress_context__
    return copy.with_traceback(refused.__traceback__)
