"""Every error rollbridge raises, in one tree.

Each class carries a stable ``code`` that travels over the wire in error
replies (``{"type": "error", "code": ..., "message": ...}``) and is printed by
the CLI. Codes never change once released; messages may. A request that raises
any of these changes nothing.

.. code-block:: text

    RollbridgeError                      code
    ├── InvalidRequest                   invalid_request
    │   ├── InvalidParams                invalid_params
    │   ├── InvalidSheet                 invalid_sheet
    │   ├── InvalidSettings              invalid_settings
    │   ├── InvalidState                 invalid_state
    │   ├── NotationError                invalid_notation
    │   ├── DiceLimitExceeded            dice_limit
    │   └── NameControl                  name_control
    ├── DiceScriptError                  dice_mismatch
    │   ├── DiceScriptExhausted          dice_exhausted
    │   └── DiceScriptUnused             dice_unused
    ├── NotFound                         not_found
    │   ├── UnknownTable                 unknown_table
    │   ├── UnknownRuleset               unknown_ruleset
    │   ├── UnknownAction                unknown_action
    │   ├── UnknownActor                 unknown_actor
    │   ├── UnknownRequest               unknown_request
    │   ├── NotRemembered                not_remembered
    │   └── OddsUnavailable              odds_unavailable
    ├── RuleViolation                    rule_violation (rulesets pass their own code)
    ├── Conflict                         conflict
    │   ├── NothingToUndo                nothing_to_undo
    │   ├── NothingToRedo                nothing_to_redo
    │   ├── NotLatest                    not_latest
    │   └── EncounterState               encounter_state
    ├── Forbidden                        forbidden
    │   ├── AuthenticationFailed         unauthorized
    │   └── OddsHidden                   odds_hidden
    ├── RulesetUnavailable               ruleset_unavailable
    ├── PluginError                      plugin_error
    │   ├── PluginLoadError              plugin_load_failed
    │   ├── DuplicateRegistration        duplicate_registration
    │   └── AdapterProtocolField         adapter_protocol_field
    ├── ProtocolError                    protocol_error
    │   ├── UndecodableFrame             undecodable
    │   └── UnknownMessageType           unknown_type
    ├── Busy                             busy
    ├── LimitExceeded                    limit_exceeded
    │   ├── RateLimited                  rate_limited
    │   ├── TooManyConnections           too_many_connections
    │   └── EventTooLarge                event_too_large
    ├── StoreError                       store_error
    │   └── StoreUnavailable             store_error
    ├── CannotListen                     cannot_listen
    └── InternalError                    internal

Rulesets refuse an action the rules do not allow with :class:`RuleViolation`
and a code of their own (``pool_exhausted``, ``layer_occupied``, …), which
their docs list; the base code is ``rule_violation``.

Beside the tree, three warnings, no errors (they travel nowhere and have no code), the
conformance suite's words: :class:`PlainWordsWarning`, that a ruleset's words for
readers are plain strings, :class:`NeverResolvedWarning`, that an action's
example was refused with every seed, so no check of a resolution reached it, and
:class:`ToldTargetWarning`, that a dice group's hidden target is told by its dice'
success and failure tags.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextvars import ContextVar
from typing import Any, ClassVar

__all__ = [
    "AdapterProtocolField",
    "AuthenticationFailed",
    "Busy",
    "CannotListen",
    "Conflict",
    "DiceLimitExceeded",
    "DiceScriptError",
    "DiceScriptExhausted",
    "DiceScriptUnused",
    "DuplicateRegistration",
    "EncounterState",
    "EventTooLarge",
    "Forbidden",
    "InternalError",
    "InvalidParams",
    "InvalidRequest",
    "InvalidSettings",
    "InvalidSheet",
    "InvalidState",
    "LimitExceeded",
    "NameControl",
    "NeverResolvedWarning",
    "NotFound",
    "NotLatest",
    "NotRemembered",
    "NotationError",
    "NothingToRedo",
    "NothingToUndo",
    "OddsHidden",
    "OddsUnavailable",
    "PlainWordsWarning",
    "PluginError",
    "PluginLoadError",
    "ProtocolError",
    "RateLimited",
    "RollbridgeError",
    "RuleViolation",
    "RulesetUnavailable",
    "StoreError",
    "StoreUnavailable",
    "ToldTargetWarning",
    "TooManyConnections",
    "UndecodableFrame",
    "UnknownAction",
    "UnknownActor",
    "UnknownMessageType",
    "UnknownRequest",
    "UnknownRuleset",
    "UnknownTable",
]


#: How a message that is neither a string nor a text reads — a list, a map, an
#: exception, which may hold a ``Private`` value — in a locale for an audience:
#: ``(message, locale, hides)``. :mod:`rollbridge.text`, which imports this module
#: (and defines ``Private``), gives its ``render`` with :func:`read_messages_with`.
_reader: list[Callable[[Any, str, Any], str]] = [lambda message, locale, hides: str(message)]
#: How many private values rendering has met so far (:func:`rollbridge.text.privates_met`,
#: given with :func:`read_messages_with`): a message whose English reading did not move
#: it reads the same to players.
_privates_met: list[Callable[[], int]] = [lambda: 0]


def read_messages_with(
    reader: Callable[[Any, str, Any], str], privates_met: Callable[[], int] | None = None
) -> None:
    """Read an error's message that is neither a string nor a text with ``reader``
    (``reader(message, locale, hides)``): :mod:`rollbridge.text` gives its renderer,
    and its count of the private values rendering met (``privates_met``)."""
    _reader[0] = reader
    if privates_met is not None:
        _privates_met[0] = privates_met


#: The errors whose own ``__str__`` is being read (:func:`said_by`).
_saying: ContextVar[tuple[BaseException, ...]] = ContextVar("rollbridge_saying", default=())


def _says_itself(error: BaseException) -> bool:
    """Whether ``error``'s class (a ruleset's refusal) says itself with a ``__str__``
    of its own, not :class:`RollbridgeError`'s; not while that ``__str__`` is being
    read (one that reads ``self.message`` gets the arguments)."""
    for klass in type(error).__mro__:
        if "__str__" in vars(klass):
            return klass is not RollbridgeError and not any(met is error for met in _saying.get())
    return False


#: What stops the process — the operator's Ctrl-C, ``sys.exit`` — and passes every
#: guard that takes what a ruleset raises (an exception derived from
#: ``BaseException`` only too: ``GeneratorExit``, a class of its own) for its
#: failure: ``except STOPS: raise`` before ``except BaseException``. (Not in
#: ``__all__``, which lists the classes: the engine's, the protocol's.)
STOPS = (KeyboardInterrupt, SystemExit)


def said_by(error: BaseException) -> str:
    """``str(error)``, or its class's name where that raises or gives no string — a
    ``__str__`` of a ruleset's that fails (with an exception derived from
    ``BaseException`` only too, but :data:`STOPS`), a ``KeyError`` whose key's repr
    fails or recurses without end: the refusal holding it is read all the same, and
    the server's log line of a ruleset's failure written, never failed with a
    traceback. (Not in ``__all__``: it is :mod:`rollbridge.text`'s and
    :mod:`rollbridge.server.logs`'.)"""
    token = _saying.set((*_saying.get(), error))
    try:
        said = str(error)
    except STOPS:
        raise
    except BaseException:  # a GeneratorExit from a ruleset's __str__ too
        said = error.__class__.__name__
    finally:
        _saying.reset(token)
    return said


class RollbridgeError(Exception):
    """Base of every rollbridge error.

    :param message: what went wrong, naming the offending input: a
        :class:`rollbridge.text.Text` (a declared message, translated for each
        client's locale) or a plain string (English only: a message for the
        operator's log or a plugin author, which no player reads).
    :param code: overrides the class's stable code (rulesets use this with
        :class:`RuleViolation` to give each refusal its own code).
    :param details: JSON-serialisable facts a client may use (a field path,
        a limit, the value received).
    """

    code: ClassVar[str] = "error"

    def __init__(
        self, message: Any, *, code: str | None = None, details: dict[str, Any] | None = None
    ) -> None:
        #: The message as a text (None: a plain English string).
        self.text: Any = None
        met = _privates_met[0]()
        #: The message as given where it is a list, a tuple, a map or an exception,
        #: which may hold a ``Private`` value (a ruleset's slip): rendered for each
        #: audience, as inside a text, never as its repr (which holds the value); it is
        #: no text (``text`` stays None: no catalogue translates it). None otherwise.
        self.held: Any = None
        if isinstance(message, str):
            english = message
        elif hasattr(message, "render"):
            self.text, english = message, message.render()
        elif isinstance(message, list | tuple | Mapping | BaseException):
            self.held, english = message, _reader[0](message, "en", None)
        else:  # a number, a data class (read as its repr, its private values hidden)
            english = _reader[0](message, "en", None)
        super().__init__(english)
        #: The message in English.
        self.message: str = english
        if code is not None:
            self.code = code  # type: ignore[misc]  # instance override of the class code
        self.details: dict[str, Any] = dict(details or {})
        #: Whom the error was refused to where that is known when it is raised (a
        #: player: ``rollbridge resolve --as player``): their ``hides``, taken by
        #: :meth:`render` where it is given none. None: the GM, or said by the caller.
        self.hides: Any = None
        if _privates_met[0]() != met or isinstance(self.text, BaseException):
            # a private value in it (an error given as the message kept its English
            # reading, counting none): its arguments, which ``repr()`` and any code
            # reading ``args`` show (an asyncio task's repr, ``%r``, a list of errors
            # in a log line), are the players' reading too, as ``str()`` is
            try:
                said = self.render(hides=_hides_all)
            except STOPS:
                raise
            except BaseException:  # an ``instead`` that fails as it is read (a
                # ruleset's bug): where it is read for an audience, that request alone
                # is answered ``internal``; the GM's reading stands
                said = self.__class__.__name__
            self.args = (said,)

    def __getattr__(self, name: str) -> Any:
        """What :meth:`__init__` sets, for an error of a subclass whose own
        ``__init__`` never called it (a ruleset's ``class NoAmmo(RuleViolation)``
        that keeps its arguments itself): no text, no details, and its arguments as
        its message — rendered for each audience as a list given as the message is
        (a ``Private`` among them hidden from players), never read as missing and
        failing the request with a traceback."""
        if name in ("text", "hides"):
            return None
        if name == "details":
            return {}
        args = self.args
        own = _says_itself(self)
        if name == "held":
            held = (args[0] if len(args) == 1 else list(args)) if args else None
            return None if own or held.__class__ is str else held
        if name == "message":
            if own:
                return said_by(self)
            held = self.held
            if held is not None:
                return _reader[0](held, "en", None)
            # its one string, or its class's name where it holds no words (no
            # arguments, or a None: ``NoAmmo(weapon)`` of no weapon)
            return args[0] if args and args[0].__class__ is str else self.__class__.__name__
        raise AttributeError(name)

    def render(self, locale: str = "en", hides: Any = None) -> str:
        """The message in ``locale`` (English where it has no translation) for an
        audience: ``hides(actor_id, aspect)`` is true where it may not see a
        :class:`~rollbridge.text.Private` argument (left out as in views); None
        for the GM, who sees everything (or the error's own :attr:`hides`)."""
        if hides is None:
            hides = self.hides
        message = self.message
        if locale == "en" and hides is None and message.__class__ is str:
            return message
        text = self.text
        if text is not None:
            return (
                text.render(locale, hides)
                if hasattr(text, "render")
                else _reader[0](text, locale, hides)
            )
        if self.held is not None:
            return _reader[0](self.held, locale, hides)
        # a subclass's own ``message`` that is no string (its __init__ set it, never
        # calling ours): read as a message given so, a list holding itself too
        return message if message.__class__ is str else _reader[0](message, locale, hides)

    def to_dict(self, locale: str = "en", hides: Any = None) -> dict[str, Any]:
        """The error as it travels over the wire, its message in ``locale`` for an
        audience (``hides``: see :meth:`render`)."""
        data: dict[str, Any] = {"code": self.code, "message": self.render(locale, hides)}
        if self.details:
            data["details"] = self.details
        return data

    def __str__(self) -> str:
        """The message in English as players read it: a text's or a held message's
        private arguments "(hidden)" (or their ``instead``), for ``str()`` reaches
        whoever the string is given to — a log line an operator ships elsewhere, a
        player. The GM's reading is :attr:`message` (and :meth:`render` with no
        ``hides``)."""
        message = self.message
        if self.text is None and self.held is None:
            return message if message.__class__ is str else self.render(hides=_hides_all)
        return self.render(hides=_hides_all)

    def __repr__(self) -> str:
        """``RuleViolation('…')`` of what ``str()`` says — the players' reading — for
        Python's own repr shows the arguments, which a subclass that keeps its own
        (never calling ``__init__``) may hold a private value's stored form in."""
        return f"{self.__class__.__name__}({said_by(self)!r})"


def _hides_all(actor_id: str, aspect: str) -> bool:
    """An audience that may see no private value: what ``str()`` of an error reads as."""
    return True


class InvalidRequest(RollbridgeError):
    """A request is malformed: a field missing, ill-typed or out of range."""

    code = "invalid_request"


class InvalidParams(InvalidRequest):
    """An action's parameters fail its schema."""

    code = "invalid_params"


class InvalidSheet(InvalidRequest):
    """A character sheet fails its ruleset's checks."""

    code = "invalid_sheet"


class InvalidSettings(InvalidRequest):
    """Table settings fail the ruleset's settings schema."""

    code = "invalid_settings"


class InvalidState(InvalidRequest):
    """An actor's ruleset state, as a request supplies it (``actor.create`` or
    ``actor.update`` with ``state``), fails its ruleset's state schema or checks."""

    code = "invalid_state"


class NotationError(InvalidRequest):
    """Dice notation that cannot be parsed or makes no sense (``3d``, ``1d6x>=1``)."""

    code = "invalid_notation"


class DiceLimitExceeded(InvalidRequest):
    """A roll would pass a limit: dice per term, results per request, formula length."""

    code = "dice_limit"


class NameControl(InvalidRequest):
    """A table's or a token's name holds a control character (C0, C1, DEL), a line
    or paragraph separator or a bidirectional control (:mod:`rollbridge.names`)."""

    code = "name_control"


class DiceScriptError(RollbridgeError):
    """A supplied (scripted) die result does not fit the die it is used for."""

    code = "dice_mismatch"


class DiceScriptExhausted(DiceScriptError):
    """More dice were rolled than results were supplied."""

    code = "dice_exhausted"


class DiceScriptUnused(DiceScriptError):
    """Supplied results were left over after the roll."""

    code = "dice_unused"


class NotFound(RollbridgeError):
    """Something named by a request does not exist."""

    code = "not_found"


class UnknownTable(NotFound):
    """No table has this id (or it was deleted)."""

    code = "unknown_table"


class UnknownRuleset(NotFound):
    """No loaded plugin registered a ruleset with this id."""

    code = "unknown_ruleset"


class UnknownAction(NotFound):
    """The ruleset has no action of this name."""

    code = "unknown_action"


class UnknownActor(NotFound):
    """The table has no actor with this id."""

    code = "unknown_actor"


class UnknownRequest(NotFound):
    """A request id named by the request (a pending approval, an earlier roll) is unknown."""

    code = "unknown_request"


class NotRemembered(NotFound):
    """A request sent only to repeat (``"repeat": true``) names an id whose reply
    the table no longer remembers, or never had: it is not run."""

    code = "not_remembered"


class OddsUnavailable(NotFound):
    """The ruleset computes no odds for this action (its ``odds`` hook said None)."""

    code = "odds_unavailable"


class RuleViolation(RollbridgeError):
    """The rules do not allow this (spending dice one does not have, a second chip)."""

    code = "rule_violation"


class Conflict(RollbridgeError):
    """The table is not in a state where this request makes sense."""

    code = "conflict"


class NothingToUndo(Conflict):
    """Undo was asked for but no undoable event remains."""

    code = "nothing_to_undo"


class NothingToRedo(Conflict):
    """Redo was asked for but nothing was undone since the last change."""

    code = "nothing_to_redo"


class NotLatest(Conflict):
    """Undo or redo named an event (``seq``) that is not the one it would take:
    the table moved on since the client looked."""

    code = "not_latest"


class EncounterState(Conflict):
    """Turn control that does not fit the encounter (next turn with none running)."""

    code = "encounter_state"


class Forbidden(RollbridgeError):
    """The caller's role does not allow this request."""

    code = "forbidden"


class AuthenticationFailed(Forbidden):
    """The token opens no table, or not this one."""

    code = "unauthorized"


class OddsHidden(Forbidden):
    """A player asked for odds involving an actor whose sheet or state players do
    not see in whole (the ruleset's player view of it is None, or makes no valid
    one), whether the ruleset's ``odds`` would read it or not: players' odds are
    computed from what they see alone. ``details.actor`` names the actor and
    ``details.part`` the part (``sheet`` or ``state``). Asking again with it stated
    in ``assume`` computes the odds from the assumptions."""

    code = "odds_hidden"


class RulesetUnavailable(RollbridgeError):
    """A table's ruleset is not installed, or only at an incompatible major version."""

    code = "ruleset_unavailable"


class PluginError(RollbridgeError):
    """A plugin could not be loaded or registered."""

    code = "plugin_error"


class PluginLoadError(PluginError):
    """A plugin failed to import or to run its registration hook."""

    code = "plugin_load_failed"


class DuplicateRegistration(PluginError):
    """Two plugins registered a ruleset (or adapter) under the same id."""

    code = "duplicate_registration"


class AdapterProtocolField(PluginError):
    """An adapter names a field of the plain protocol's frames as one its dialect adds
    (:attr:`~rollbridge.adapter.Adapter.event_fields`): :meth:`Adapter.plain` would take
    it off every line ``rollbridge verify`` reads."""

    code = "adapter_protocol_field"


class ProtocolError(RollbridgeError):
    """A message breaks the wire protocol."""

    code = "protocol_error"


class UndecodableFrame(ProtocolError):
    """A frame is neither valid msgpack nor valid JSON, or not a map."""

    code = "undecodable"


class UnknownMessageType(ProtocolError):
    """A message's ``type`` is not part of the protocol."""

    code = "unknown_type"


class Busy(RollbridgeError):
    """The server has too many changes waiting to be written; nothing was done.
    The same request may be sent again shortly (its id was not used)."""

    code = "busy"


class LimitExceeded(RollbridgeError):
    """A limit the operator set for the server was reached; nothing was done."""

    code = "limit_exceeded"


class RateLimited(LimitExceeded):
    """Too many requests per second from this connection, or at this table; nothing
    was done. ``details.retry_after`` says in how many seconds one is accepted."""

    code = "rate_limited"


class TooManyConnections(LimitExceeded):
    """Too many connections with this join token (a connection from an address
    with too many is closed before its ``hello``, with close code 1013)."""

    code = "too_many_connections"


class EventTooLarge(LimitExceeded):
    """The event a request would make is larger than the server stores for one
    event (a roll of thousands of dice); nothing was done."""

    code = "event_too_large"


class StoreError(RollbridgeError):
    """The store failed to read or write; nothing was acknowledged."""

    code = "store_error"


class StoreUnavailable(StoreError):
    """The store as a whole refuses to write (or read) for now, whatever is asked
    of it: its disk is full, its file is locked by another program, removed or
    replaced, Redis is gone, out of memory, refusing writes or set to lose them. No
    commit can succeed until that changes, so a batch that failed this way is not
    tried again commit by commit. ``details["reason"]`` names the cause
    (``disk_full``, ``io``, ``locked``, ``read_only``, ``file_replaced``,
    ``unreachable``, ``out_of_memory``, ``not_persisting``, ``not_durable``);
    clients see ``store_error`` as for any store failure.

    A batch of commits that is not one transaction (Redis's) may meet it after some
    of its commits were written: :attr:`written` counts those, the first ones."""

    #: Commits of the batch that failed so written before the failure (the first ones).
    written = 0


class CannotListen(RollbridgeError):
    """The server cannot listen on the address and port it was given: another
    program holds the port, the port needs privileges, or the address is not this
    machine's (``details``: ``host``, ``port``, and ``errno`` where the system gave
    one). Raised by :meth:`rollbridge.server.app.Server.start`, before it takes any
    client; ``rollbridge serve`` says it in one line and exits 1."""

    code = "cannot_listen"


class InternalError(RollbridgeError):
    """Something failed that is not the caller's fault (a ruleset raised)."""

    code = "internal"


class NeverResolvedWarning(UserWarning):
    """The conformance suite's warning (:mod:`rollbridge.testing`): an action's example
    the rules refused with every seed, so that none of the suite's checks of a
    resolution (its texts, its private values, its dice) reached that action. A
    warning, not a failure: the built-in rulesets' and older plugins' examples of
    actions for a wounded actor were so; ``example_states`` on the conformance class
    starts the example actors where the action can be done (``action_states``: just
    before that action), and ``-W error::rollbridge.exceptions.NeverResolvedWarning``
    makes it fail."""


class PlainWordsWarning(UserWarning):
    """The conformance suite's warning (:mod:`rollbridge.testing`): a ruleset that
    ships catalogues gives words people read (an action's summary, a label, a hint)
    as a plain string, which reads in English in every language. A warning, not a
    failure: plain strings are allowed, and plugins written before the check pass.
    ``-W error::rollbridge.exceptions.PlainWordsWarning`` makes it fail."""


class ToldTargetWarning(UserWarning):
    """The conformance suite's warning (:mod:`rollbridge.testing`): a dice group whose
    ``target`` players may not see (an NPC's number, ``Private``) shows them its dice
    tagged ``success`` or ``failure`` — the lowest success and the highest failure
    bracket the hidden number (``count_successes`` tags every kept die) — or its count
    of ``successes`` beside its dice, which brackets it as well. A warning, not
    a failure: a ruleset may mean it (a range players may know), and rulesets written
    before the check pass (docs/plugins.md, "Dice").
    ``-W error::rollbridge.exceptions.ToldTargetWarning`` makes it fail."""
