"""Text as data: what a ruleset says, as a message id and named arguments.

A ruleset never writes its narration or its explanation steps as finished
sentences. It says *which* message and *with what*: a :class:`Text` holds a
message id (``sr2.attack.hit``) and named arguments, and an argument that is
one actor's own detail — an NPC's armour, its boxes — is wrapped in
:class:`Private`, naming the actor whose detail it is and the aspect of it
(``sheet``, ``details``: each ruleset names its own, and says with
:meth:`~rollbridge.contract.Ruleset.reveals` which aspects the table's
settings show to players). The same marking works on any value of an outcome,
on a parameter and on a dice group's fields.

Texts are rendered when a view is built: for the GM in full; for players with
each hidden argument replaced by what the ruleset gave as ``instead`` (by
default the word "(hidden)"), never by rewriting a rendered sentence. Rendering
takes a locale: English is the reference every message is declared in, and the
domain's gettext catalogues (:mod:`rollbridge.i18n`) hold the other languages,
looked up by the message's key (the gettext context) and its English template
(the ``msgid``); plural messages choose their form by the locale's CLDR rule.

Messages are declared once, per domain (a ruleset's id), by a :class:`Messages`
named ``say`` (the name the catalogue tools extract: ``say(key, template)`` and
``say.plural(key, one, other)``, with literal strings)::

    from pathlib import Path
    from rollbridge.text import Messages, Private

    say = Messages("hitpoints", catalogs=Path(__file__).with_name("locale"))
    HITS = say("hits", "{attacker} hits {target} for {amount}.")
    POINTS = say.plural("points", "{count} point", "{count} points")

    narration = HITS(attacker=a.name, target=t.name,
                     amount=Private(POINTS(count=7), of=t.id, aspect="details"))

A template is Python's ``str.format`` syntax restricted to plain names
(``{attacker}``, ``{delta:+d}``); a list argument is joined with ``", "``, or with
the separator given as its format (``{parts: }`` joins with a space). An argument
its spec does not fit (``{armour:d}`` given None or a float) reads as its plain
value, without the spec, and a WARNING names the message, the argument and the spec
once (:func:`misformatted` counts them; the conformance suite fails a ruleset whose
examples give one): a ruleset's slip never takes a table's request down.

Stored form (what events keep; plain data): a text is
``{"id": "sr2.attack.hit", "args": {...}}``; inside ``args`` a nested text has
the same shape and a private argument is ``{"private": value, "of": actor id,
"aspect": aspect, "instead": value?}``. :func:`extract` turns a ruleset's
output into that form and lists where its texts and private values are (a
private value outside a text as ``[path, of, aspect, instead?, instead is a
text?]``; the last mark came in December 2026, and entries without it are read
as before it); :func:`view_of` builds an audience's view from it.
"""

from __future__ import annotations

import contextvars
import logging
import operator
import re
import string
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rollbridge import exceptions, i18n
from rollbridge.contract_shapes import expect
from rollbridge.exceptions import PluginError, RollbridgeError, said_by
from rollbridge.plain import JSON, NotPlain, as_plain_type, pack, unpack
from rollbridge.text_stored import ELIDED, MAX_NESTING, privatize

__all__ = [
    "HIDDEN",
    "LOCALES",
    "NOTHING",
    "Hides",
    "Message",
    "Messages",
    "Places",
    "Private",
    "Text",
    "catalogue_generation",
    "extract",
    "forget",
    "instead_in_outcome",
    "message",
    "messages_of",
    "misformatted",
    "privates_met",
    "privatized",
    "render",
    "revealed",
    "revealing",
    "stored",
    "stored_data",
    "stored_private",
    "unreadable_renamings",
    "untranslated",
    "view_of",
    "view_pair",
]

log = logging.getLogger("rollbridge.text")

#: The locales rollbridge's own texts are translated into (English is the reference;
#: a plugin may ship more: :func:`rollbridge.i18n.known_locales`).
LOCALES: tuple[str, ...] = i18n.LOCALES

#: ``hides(actor_id, aspect)``: whether the audience may not see that actor's
#: detail of that aspect. None: the audience sees everything (the GM).
Hides = Callable[[str, str], bool] | None


class _NoInstead:
    """:class:`Private`'s ``instead`` left out. One object: a copy, a deep copy or a
    pickle of a private value (of a refusal holding one) keeps it, as :meth:`__reduce__`
    names it, rather than a new object a reader would take for what to show."""

    __slots__ = ()

    def __reduce__(self) -> str:
        return "_NO_INSTEAD"

    def __repr__(self) -> str:
        return "<no instead>"


_NO_INSTEAD = _NoInstead()
_MESSAGES: dict[str, Message] = {}
#: Message ids a domain renamed since (:meth:`Messages.renamed`): the old id's text,
#: kept in the events of older tables, is read as this says — the new id and the
#: arguments it takes.
_RENAMED: dict[str, Callable[[Mapping[str, Any], Hides], tuple[str, Mapping[str, Any]]]] = {}
#: The ids each renamed id may read as (for :func:`unreadable_renamings`).
_RENAMED_TO: dict[str, tuple[str, ...]] = {}
#: Singular messages' templates by (id, locale); for plural messages, the catalogue.
_templates: dict[tuple[str, str], Any] = {}
#: (message id, locale) of every message whose locale's catalogue lacks it.
_missing: set[tuple[str, str]] = set()
#: (message id, locale) of every message rendered in English for want of a translation
#: in a locale some domain ships a catalogue of (as many as the messages and catalogues).
_untranslated: set[tuple[str, str]] = set()
#: (message id, locale) of the messages last rendered in a locale written as a
#: language's name that no catalogue is shipped for, oldest first; at most
#: :data:`MAX_UNCATALOGUED`: such a name comes from outside at times (a table's locale
#: in a log given to ``rollbridge verify``), and a log of a thousand tables' locales
#: must not grow it without end.
_uncatalogued: dict[tuple[str, str], None] = {}
#: How many times a domain's catalogues were forgotten (:func:`forget`): a text's
#: renderings kept from an earlier generation are made anew.
_generation = 0
#: The ids of the messages whose English templates give a placeholder a format spec
#: (``{delta:+d}``): only there must an argument put in as text ignore its spec.
_SPECS: set[str] = set()
_formatter = string.Formatter()


class Text:
    """A text as data: a registered message id and its named arguments.

    Arguments are plain values (text, numbers, booleans, null), other
    :class:`Text`, :class:`Private` values, or lists of these. Make one by
    calling a :class:`Message`, which checks the argument names. (A plain class
    with slots, not a dataclass: rulesets make many of them per resolution.)
    """

    __slots__ = ("_rendered", "args", "id")

    def __init__(self, id: str, args: Mapping[str, Any] | None = None) -> None:
        self.id = id
        self.args = {} if args is None else args
        #: Its renderings: by locale in English, by (locale, generation) in another
        #: language (:func:`_live`).
        self._rendered: dict[Any, str] | None = None

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not Text:
            return NotImplemented
        return self.id == other.id and self.args == other.args  # type: ignore[attr-defined]

    __hash__ = None  # type: ignore[assignment]  # its arguments are a mutable map

    def __repr__(self) -> str:
        """``Text(id, args)``, a private value among the arguments hidden as
        :meth:`Private.__repr__` hides it — a stored private form too (a map holding
        ``"of"``, which the renderer reads as one): :func:`revealed` shows them."""
        return f"Text({self.id!r}, {privatized(dict(self.args))!r})"

    def render(self, locale: str = "en", hides: Hides = None) -> str:
        """The text in ``locale`` for an audience (``hides``: see :data:`Hides`)."""
        return render(self, locale=locale, hides=hides)

    def __str__(self) -> str:
        return self.render()


#: A format spec, as the format-specification mini-language writes one: what
#: :meth:`Private.__format__` reads of it is the fill, the alignment and the width.
_FORMAT_SPEC = re.compile(
    r"(?:(?P<fill>.)?(?P<align>[<>=^]))?[-+ ]?z?#?(?P<zero>0)?(?P<width>[0-9]*)[,_]?"
    r"(?:\.[0-9]+)?[bcdeEfFgGnosxX%]?",
    re.DOTALL,
)


class Private:
    """A value that is one actor's own detail.

    :param value: the value (plain data or a :class:`Text`).
    :param of: the id of the actor whose detail it is (a ``str``). Players see it
        when a player controls that actor, or when the ruleset reveals ``aspect``.
        Anything else — ``None`` (no actor: ``context.actor and context.actor.id``
        where no actor acts), an :class:`~rollbridge.contract.Actor` for its id — is
        a ``TypeError`` as it is made: it names no actor a player could control (a
        stored form with ``of`` null, kept from before or built so, is read as hidden
        from players unless ``aspect`` is revealed: :func:`stored_private`).
    :param aspect: which of the actor's details it is (``sheet``, ``details``, …;
        the ruleset's :meth:`~rollbridge.contract.Ruleset.reveals` decides per
        table settings).
    :param instead: what an audience that may not see it gets instead. Left
        out: in a text, the word "(hidden)"; in an outcome, parameter or dice
        group, the field (or list item) is dropped.
    """

    __slots__ = ("aspect", "instead", "of", "value")

    def __init__(
        self, value: Any, of: str, aspect: str = "details", instead: Any = _NO_INSTEAD
    ) -> None:
        if of.__class__ is not str or aspect.__class__ is not str:
            _check_private(of, aspect)
        self.value = value
        self.of = of
        self.aspect = aspect
        self.instead = instead

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not Private:
            return NotImplemented
        return (self.value, self.of, self.aspect, self.instead) == (
            other.value,  # type: ignore[attr-defined]
            other.of,  # type: ignore[attr-defined]
            other.aspect,  # type: ignore[attr-defined]
            other.instead,  # type: ignore[attr-defined]
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        """Python's picture of it — what a list, a map, a data class or an exception
        holding it shows in a plain string (``f"{armors}"``), ``!r``, ``%r``, a log
        line — without the value, as :meth:`__str__` has none: ``Private(<hidden>,
        of='orc', aspect='armor')``. :func:`revealed` shows the value (a test's
        failure, a debugging print); so does :attr:`value`."""
        instead = "" if self.instead is _NO_INSTEAD else f", instead={self.instead!r}"
        met = _revealing.get()
        if met is None:
            value = _HIDDEN_REPR
        else:
            met[0] += 1
            value = repr(self.value)
        return f"Private({value}, of={self.of!r}, aspect={self.aspect!r}{instead})"

    def __str__(self) -> str:
        """What ``str()``, an f-string or ``%s`` makes of it — a plain string, which
        reaches every audience alike — never the value: what players would read of it
        in English, "(hidden)" (or ``instead``). Give it as an argument of a
        :class:`Text` for each audience to read it as it may."""
        return render(self, hides=_hides_everything)

    def __format__(self, spec: str) -> str:
        """An f-string's or ``format()``'s reading with a spec (``f"{skill:d}"``,
        ``f"{skill:>4}"``): :meth:`__str__`'s word, padded by the spec's fill,
        alignment and width alone (right, a number's place, where it says ``=`` or
        ``0``) — its sign, zeros, grouping, precision and type are a number's, which
        would make another number of the word (``instead=5`` read ``5000000000`` as
        ``010``): never the value, and no ``TypeError`` from a plugin's log line."""
        word = str(self)
        found = _FORMAT_SPEC.fullmatch(spec)
        if found is None or not found["width"]:
            return word
        align = found["align"] or (">" if found["zero"] else "<")
        fill = found["fill"] or " "
        try:
            return format(word, f"{fill}{'>' if align == '=' else align}{found['width']}")
        except ValueError:  # a width past what Python formats
            return word

    def render(self, locale: str = "en", hides: Hides = None) -> str:
        """The value as an audience reads it where it stands alone (a ruleset's
        refusal whose whole message is a private value): as in a text, "(hidden)"
        (or ``instead``) where ``hides`` says the audience may not see it."""
        return render(self, locale=locale, hides=hides)


def privatized(value: Any) -> Any:
    """``value`` with every stored private form in it (a map holding ``"of"``, as the
    renderer reads one: ``{"private": 7, "of": "orc", "aspect": "armor"}``) the
    :class:`Private` it stands for, in maps, lists, tuples and data classes: what
    writes ``value`` as Python does — a repr, a refusal's ``details`` — then hides
    it as it hides a :class:`Private`. The same object where it holds none; never
    changed in place (:func:`rollbridge.text_stored.privatize`)."""
    return privatize(value, Private)


#: What :meth:`Private.__repr__` writes for the value.
_HIDDEN_REPR = "<hidden>"
#: Inside :func:`revealing` only: how many :class:`Private` values
#: :meth:`Private.__repr__` has shown (one count in a list); None: it hides them.
_revealing: contextvars.ContextVar[list[int] | None] = contextvars.ContextVar(
    "rollbridge_revealing", default=None
)


def revealed(value: Any) -> str:
    """``repr(value)`` with the value of every :class:`Private` in it shown, however
    deep — in a list, a map, a :class:`Text`'s arguments, a data class: for an
    author's debugging and a test's failure (the conformance suite's pytest plugin
    shows a failed comparison holding a private value so). Never give it to a text,
    a refusal or a log line a player may read."""
    return revealing(value)[0]


def revealing(value: Any) -> tuple[str, int]:
    """:func:`revealed` of ``value`` and how many :class:`Private` values its repr
    showed (0: none, and the repr is Python's own) — read in one ``repr``, so an
    object whose repr changes from one reading to the next is never taken for one
    holding a private value."""
    met = [0]
    token = _revealing.set(met)
    try:
        return repr(value), met[0]
    finally:
        _revealing.reset(token)


@dataclass(frozen=True, slots=True)
class Message:
    """A message a domain declared: its id and its English template(s).

    :param id: ``domain.key``.
    :param template: the English text (the singular, for a plural message).
    :param plural: the English plural, for a message chosen by a count.
    :param count: the argument that chooses between ``template`` and ``plural``.
    :param names: the placeholders the templates name.
    :param domain: the domain (whose catalogues translate it).
    :param key: the id within the domain (the gettext context of its translations).
    """

    id: str
    template: str
    plural: str | None = None
    count: str | None = None
    names: frozenset[str] = frozenset()
    domain: str = ""
    key: str = ""

    def __call__(self, **args: Any) -> Text:
        """A :class:`Text` of this message. :raises TypeError: for missing or
        unknown argument names."""
        if args.keys() != self.names:
            missing = sorted(self.names - args.keys())
            extra = sorted(args.keys() - self.names)
            raise TypeError(
                f"message {self.id!r} takes {sorted(self.names)}: "
                f"missing {missing}, unknown {extra}"
            )
        return Text(self.id, args)

    def template_for(self, count: Any) -> str:
        """The English template for this count (English: one, or other)."""
        if self.plural is not None and count != 1:
            return self.plural
        return self.template


def _names(template: str, where: str) -> set[str]:
    names = set()
    try:
        parsed = list(_formatter.parse(template))
    except ValueError as exc:
        raise PluginError(f"message {where}: bad template {template!r}: {exc}") from None
    for _literal, name, spec, conversion in parsed:
        if name is None:
            continue
        if not name.isidentifier() or conversion is not None or (spec and "{" in spec):
            raise PluginError(
                f"message {where}: placeholders are plain names ({{name}} or {{name:spec}}), "
                f"not {{{name}{'!' + conversion if conversion else ''}}}"
            )
        names.add(name)
    return names


def forget(domain: str) -> None:
    """Forget what was read of ``domain``'s catalogues (:func:`rollbridge.i18n.forget`)
    and the templates taken from them, so that its next text reads them anew: they
    were given since (a :class:`Messages` naming the folder after a text of the
    domain was rendered) or compiled again (:mod:`rollbridge.catalogs`). Its messages
    noted among :func:`untranslated` are forgotten too: they read in English in the
    catalogues before, and one still missing is noted again where it is read again
    (the conformance suite's locale tests fail on what an earlier test noted)."""
    global _generation
    i18n.forget(domain)
    _generation += 1  # what texts kept of their renderings is of the catalogues before
    for key in _of_domain(_templates, domain):
        del _templates[key]
    for key in _of_domain(_uncatalogued, domain):
        del _uncatalogued[key]
    _missing.difference_update(_of_domain(_missing, domain))
    _untranslated.difference_update(_of_domain(_untranslated, domain))


def _of_domain(keys: Iterable[tuple[str, str]], domain: str) -> list[tuple[str, str]]:
    """The ``(message id, locale)`` of ``keys`` whose message is of ``domain``."""
    return [key for key in keys if _MESSAGES[key[0]].domain == domain]


def catalogue_generation() -> int:
    """How many times this process forgot a domain's catalogues (:func:`forget`): a
    rendering kept elsewhere than on its :class:`Text` (a table's description of its
    ruleset for a ``welcome``) is of the catalogues before when the count moved."""
    return _generation


class Messages:
    """The messages of one domain (a ruleset's id, or ``rollbridge``).

    ``say = Messages("sr2", catalogs=folder)``; ``HIT = say("attack.hit", "English
    template")`` declares ``sr2.attack.hit``; ``say.plural(key, one, other,
    count="count")`` declares a message chosen by a count. A declaration may also
    stand where the text is made (``say("refused", "...")(name=...)``): declaring
    the same message again is cheap and changes nothing.

    :param domain: the domain's name: a ruleset's id, or ``rollbridge``.
    :param catalogs: the folder of the domain's catalogues
        (``<lang>/LC_MESSAGES/<domain>.mo``); one declaration per domain gives it,
        the domain's other :class:`Messages` may leave it out. None: English only.
    """

    def __init__(self, domain: str, *, catalogs: Path | None = None) -> None:
        if not domain or not all(part.isidentifier() for part in domain.split(".")):
            raise PluginError(f"message domain {domain!r} must be a dotted name")
        self.domain = domain
        if catalogs is not None:
            given = i18n.catalogs_of(domain)
            i18n.register(domain, catalogs)
            if i18n.catalogs_of(domain) != given:  # a text of it may have been rendered
                forget(domain)

    def __call__(self, key: str, template: str) -> Message:
        """Declare a message. :raises PluginError: for a bad template, or an id
        declared before with another template."""
        return self._declare(key, template, None, None)

    def plural(self, key: str, one: str, other: str, *, count: str = "count") -> Message:
        """Declare a message with an English singular and plural, chosen by ``count``."""
        return self._declare(key, one, other, count)

    def _declare(self, key: str, template: str, plural: str | None, count: str | None) -> Message:
        message_id = f"{self.domain}.{key}"
        known = _MESSAGES.get(message_id)
        if known is not None and (known.template, known.plural, known.count) == (
            template, plural, count
        ):  # fmt: skip
            return known
        names = _names(template, message_id)
        if plural is not None:
            other = _names(plural, message_id)
            if other != names:
                raise PluginError(
                    f"message {message_id}: the plural has {sorted(other)}, "
                    f"the singular {sorted(names)}"
                )
            if count not in names:
                raise PluginError(f"message {message_id}: the count {count!r} is not in it")
        declared = Message(message_id, template, plural, count, frozenset(names), self.domain, key)
        if known is not None and (known.template, known.plural) != (template, plural):
            raise PluginError(f"message {message_id} is declared twice, differently")
        _MESSAGES[message_id] = declared
        if any(spec for t in (template, plural or "") for _, _, spec, _ in _formatter.parse(t)):
            _SPECS.add(message_id)
        else:
            _SPECS.discard(message_id)
        return declared

    def renamed(
        self,
        old: str,
        to: str | None = None,
        *,
        by: str | None = None,
        keys: Mapping[str, str] | None = None,
    ) -> None:
        """Declare that the message ``old`` of this domain was renamed, so that the
        texts older tables keep under that id read as the new message does (else
        they read ``[domain.old] arg=value``): ``to`` its new key; or, where one
        message became several (a word in an argument made its own message, for a
        language's grammar), ``by`` the argument whose value chooses the new key in
        ``keys`` — that argument is left out, the others kept. A value ``keys`` does
        not name keeps the old id (read as an undeclared message). A private value
        chooses for the audience that sees it; where it is hidden, and where the
        value is a text, the old id is kept (read with the value hidden, or the text).

        :raises PluginError: ``old`` is a declared message's key, or neither or both of
            ``to`` and ``by``/``keys`` are given."""
        if (to is None) == (by is None or keys is None):
            raise PluginError(f"renamed {old!r}: give either to=KEY or by=ARGUMENT and keys")
        old_id = f"{self.domain}.{old}"
        if old_id in _MESSAGES:
            raise PluginError(f"renamed {old!r}: {old_id} is a declared message")
        domain = self.domain
        if to is not None:
            new_id = f"{domain}.{to}"
            _RENAMED[old_id] = lambda args, _hides: (new_id, args)
            _RENAMED_TO[old_id] = (new_id,)
            return
        chosen = {value: f"{domain}.{key}" for value, key in (keys or {}).items()}
        _RENAMED_TO[old_id] = tuple(chosen.values())
        chooser = by

        def read(args: Mapping[str, Any], hides: Hides) -> tuple[str, Mapping[str, Any]]:
            value = args.get(chooser)
            if isinstance(value, Private | Mapping):  # a private value chooses where seen
                if isinstance(value, Private) or "of" in value:
                    _privates_met[0] += 1  # the reading differs by audience
                value = _shown_count(value, hides)  # None where hidden, or a text
            new_id = chosen.get(value) if isinstance(value, str) else None
            if new_id is None:
                return old_id, args
            return new_id, {name: arg for name, arg in args.items() if name != chooser}

        _RENAMED[old_id] = read


def unreadable_renamings(domain: str) -> list[tuple[str, str]]:
    """The renamings of ``domain`` (:meth:`Messages.renamed`) whose new id is no
    declared message, directly or through the renamings of that id: ``(old id, new
    id)`` pairs, each of which leaves an older table's text reading ``[new.id]
    arg=value`` (a key misspelt, a message dropped since). The conformance suite
    checks them once every message of the ruleset is declared."""

    def readable(new_id: str, met: frozenset[str]) -> bool:
        if new_id in _MESSAGES:
            return True
        if new_id in met or new_id not in _RENAMED_TO:
            return False
        return all(readable(later, met | {new_id}) for later in _RENAMED_TO[new_id])

    prefix = f"{domain}."
    return [
        (old_id, new_id)
        for old_id, new_ids in sorted(_RENAMED_TO.items())
        if old_id.startswith(prefix)
        for new_id in new_ids
        if not readable(new_id, frozenset({old_id}))
    ]


def message(message_id: str) -> Message | None:
    """The declared message with this id, if any."""
    return _MESSAGES.get(message_id)


def messages_of(domain: str) -> list[Message]:
    """The messages of ``domain`` declared so far in this process, by id (a message
    declared where its text is made is among them once that code has run)."""
    return sorted(
        (declared for declared in _MESSAGES.values() if declared.domain == domain),
        key=lambda declared: declared.id,
    )


say = Messages("rollbridge", catalogs=Path(__file__).with_name("locale"))
#: What a hidden argument of a text reads as when its ruleset gave nothing instead.
# Translators: what players read in place of a detail that is not theirs to see.
HIDDEN = say("hidden", "(hidden)")
_HIDDEN_DATA = {"id": HIDDEN.id}
#: How a yes/no argument reads (English keeps Python's words, as it always has).
# Translators: a true value shown in a text, e.g. "(destroyed: True)".
TRUE = say("value.true", "True")
# Translators: a false value shown in a text, e.g. "(destroyed: False)".
FALSE = say("value.false", "False")


# -- rendering -------------------------------------------------------------------


class _Number:
    """A number argument in a language that writes numbers otherwise than English:
    formatted by its spec, then given that language's decimal point and digit-group
    separator (:func:`rollbridge.i18n.number`: ``{limit:,}`` reads "1.000.000" in
    German, a float 0.5 "0,5")."""

    __slots__ = ("locale", "value")

    def __init__(self, value: int | float, locale: str) -> None:
        self.value, self.locale = value, locale

    def __format__(self, spec: str) -> str:
        return i18n.number(self.value, spec, self.locale)

    def __str__(self) -> str:  # an item of a list argument: the number as written plainly
        return i18n.number(self.value, "", self.locale)


class _Verbatim(str):
    """Text put in place of an argument: any format spec is ignored."""

    __slots__ = ()

    def __format__(self, spec: str) -> str:
        return str(self)


class _Nothing(str):
    """None as an argument: a dash, in every language and for every audience (Python's
    "None" is no word of a reader's). A format spec does not fit it, as it does not fit
    None: the line reads the dash and the argument is noted as misformatted."""

    __slots__ = ()

    def __format__(self, spec: str) -> str:
        if spec:
            raise TypeError(f"unsupported format string passed to NoneType.__format__: {spec!r}")
        return str(self)


#: What None reads as.
NOTHING = "\u2014"
_NOTHING = _Nothing(NOTHING)


class _Joined(list):
    """A list argument: joined with ``", "``, or with its format spec."""

    __slots__ = ()

    def __format__(self, spec: str) -> str:
        return (spec or ", ").join(str(item) for item in self)

    def __str__(self) -> str:  # a list inside a list: its items, not Python's brackets
        return ", ".join(str(item) for item in self)


def _hides_everything(actor_id: str, aspect: str) -> bool:
    """An audience that may see no private value (:meth:`Private.__str__`)."""
    return True


def render(value: Any, *, locale: str = "en", hides: Hides = None) -> str:
    """A :class:`Text`, a stored text (``{"id", "args"}``), a :class:`Private`
    value or a plain string, rendered in ``locale`` for an audience.

    What a ruleset gives as a refusal's whole message besides — a list or a tuple, a
    plain map, a stored private value, an exception (a :class:`RuleViolation` of its
    own, a ``ValueError``) — reads as it would as an argument of a text: a private
    value in it as that audience may see it, never Python's repr of it (which holds
    the value).

    :param hides: ``hides(actor_id, aspect)`` is true where the audience may not
        see that detail; None for the GM, who sees everything.
    """
    if value.__class__ is str:
        return value
    if isinstance(value, Text):
        return _live(value, locale, hides)
    if isinstance(value, Mapping) and "id" in value:
        return _render(value["id"], value.get("args") or {}, locale, hides, False)
    kind = value.__class__
    if kind is Private or isinstance(value, _HOLDERS) or hasattr(kind, "__dataclass_fields__"):
        # alone, as in a text (never its repr: the value); a data class as its repr
        # with the private values in it hidden, a stored form's too
        return str(_argument(value, locale, hides, True, wrap=False))
    return str(value)


#: What may hold a private value where a whole message stands (:func:`render`).
_HOLDERS = (Mapping, list, tuple, BaseException)


def _read_message(message: Any, locale: str, hides: Hides) -> str:
    """An error's message that is a list, a map or an exception, as :func:`render`
    reads it (:func:`rollbridge.exceptions.read_messages_with`)."""
    return render(message, locale=locale, hides=hides)


#: How many private arguments the renderer has met (in this process): a text whose
#: rendering did not move it reads the same to every audience. Threads render too
#: (reads of a past seq, exports): ``_privates_met[0] += 1`` is one step to them, for
#: CPython with its GIL lets another thread run only at a call or a jump back (the
#: eval breaker), never between the item's read, the addition and the store — so no
#: thread writes back a count from before another's addition, which could make a
#: rendering that met a private argument look as if it met none. A build without the
#: GIL would need a count per thread.
_privates_met = [0]


def privates_met() -> int:
    """How many private arguments rendering has met so far (a counter: a view whose
    building did not move it holds no private argument in its texts)."""
    return _privates_met[0]


exceptions.read_messages_with(_read_message, privates_met)


def _read_renamed(
    message_id: str, args: Mapping[str, Any], hides: Hides
) -> tuple[str, Mapping[str, Any]]:
    """The id and arguments an older table's text reads as, following every renaming
    since: an id renamed twice (old to mid, mid to new) reads as the newest message,
    not as the undeclared middle one. A renaming that leads back to an id met on the
    way stops there (it is read as that undeclared id, not followed round)."""
    met = {message_id}
    while message_id not in _MESSAGES and message_id in _RENAMED:
        renamed_id, args = _RENAMED[message_id](args, hides)
        if renamed_id in met:
            break
        met.add(renamed_id)
        message_id = renamed_id
    return message_id, args


def _render(message_id: str, args: Mapping[str, Any], locale: str, hides: Hides, live: bool) -> str:
    if message_id.__class__ is not str:  # a map's "id" that names no message: 3, a list
        message_id = str(message_id)
    if args.__class__ is not dict and not isinstance(args, Mapping):  # a map's "args": [1]
        args = _NO_ARGS
    declared = _MESSAGES.get(message_id)
    if declared is None and message_id in _RENAMED:  # an older table's text
        message_id, args = _read_renamed(message_id, args, hides)
        declared = _MESSAGES.get(message_id)
    return _declared(declared, message_id, args, locale, hides, live)


def _declared(
    declared: Message | None,
    message_id: str,
    args: Mapping[str, Any],
    locale: str,
    hides: Hides,
    live: bool,
) -> str:
    """``message_id`` (``declared``, None where no message has it) rendered with
    ``args`` (a map): :func:`_render` once it found the message, and :func:`_fresh`
    directly (a live text's message is declared, its arguments a map)."""
    if not args and declared is not None and declared.plural is None:
        template = _translate(declared, locale, None)
        try:
            return template.format_map(_NO_ARGS)
        except _SLIPS:  # a stored text without its args
            return _leniently(declared, template, _NO_ARGS, locale, _NO_ARGS)
    # English without format specs takes nested texts as plain strings (no _Verbatim)
    plain = locale == "en" and message_id not in _SPECS
    template = None
    if declared is not None:  # the template first: a translation may have specs of its own
        count = args.get(declared.count) if declared.count is not None else None
        shown = count is not None and count.__class__ is not int  # None first: Mapping's
        if shown and isinstance(count, Private | Mapping):  # isinstance runs Python code
            count = _shown_count(count, hides)
        if locale == "en":  # the declared template (Message.template_for), without a call
            plural = declared.plural
            template = plural if plural is not None and count != 1 else declared.template
        else:
            template = _translate(declared, locale, count)
    # a language that writes numbers otherwise than English, where the template has specs
    numbers = not plain and locale != "en" and _numbered(message_id, locale, template)
    values = {}
    for name, arg in args.items():  # text and numbers as they are, without a call
        kind = arg.__class__
        if kind is int:
            values[name] = _Number(arg, locale) if numbers else arg
        elif kind is str:  # right-to-left text kept from reordering the line around it
            values[name] = (
                arg if arg.isascii() or _RTL.search(arg) is None else f"\u2068{arg}\u2069"
            )
        elif kind is Text:  # a nested text, rendered already for this locale or now
            cache = arg._rendered
            if cache is None:  # nothing kept on it: rendered now
                known = _fresh(arg, locale, hides)
            else:
                known = cache.get(locale)
                if known is None:
                    known = _live(arg, locale, hides)
            values[name] = known if plain else _Verbatim(known)
        elif kind is Private:  # _argument's, without its calls where the value is seen
            _privates_met[0] += 1
            if hides is not None and hides(arg.of, arg.aspect):
                instead = HIDDEN() if arg.instead is _NO_INSTEAD else arg.instead
                shown = str(_argument(instead, locale, hides, True))
                values[name] = shown if plain else _Verbatim(shown)
                continue
            value = arg.value
            if value.__class__ is Text:
                cache = value._rendered
                if cache is None:
                    known = _fresh(value, locale, hides)
                else:
                    known = cache.get(locale)
                    if known is None:
                        known = _live(value, locale, hides)
                values[name] = known if plain else _Verbatim(known)
            else:
                values[name] = _seen(value, locale, hides, True, not plain)
        else:
            values[name] = _argument(arg, locale, hides, live, not plain)
    if declared is None or template is None:
        log.warning("no message %r is declared (a ruleset of another version?)", message_id)
        listed = ", ".join(f"{k}={v}" for k, v in values.items())
        return f"[{message_id}] {listed}".rstrip()
    try:
        return template.format_map(values)
    except _SLIPS:  # an argument its spec does not fit
        return _leniently(declared, template, values, locale, args)


_NO_ARGS: dict[str, Any] = {}
#: What ``str.format_map`` raises for an argument missing or not fitting its spec:
#: ``OverflowError`` too, for an integer out of a character's range under ``{n:c}``.
_SLIPS = (KeyError, ValueError, IndexError, TypeError, OverflowError)


def _numbered(message_id: str, locale: str, template: str | None) -> bool:
    """Whether an integer argument of ``message_id`` may read otherwise in
    ``locale`` than in English: the message has format specs (``{limit:,}``, an
    integer ``{x:.1f}``) in English or in ``template``, its translation (a translator
    may group a count the English writes plainly), and the language other symbols
    for them."""
    if not i18n.writes_numbers_otherwise(locale):
        return False
    return message_id in _SPECS or (template is not None and _specified(template))


#: Whether a template (a translation, or English standing in for it) gives any of
#: its placeholders a format spec (as many as the translations rendered).
_specs_in: dict[str, bool] = {}


def _specified(template: str) -> bool:
    """Whether ``template`` gives a placeholder a format spec (``{limit:,}``)."""
    found = _specs_in.get(template)
    if found is None:
        try:
            found = any(spec for _, name, spec, _ in _formatter.parse(template) if name)
        except ValueError:  # not a template (_fit reads English for such a translation)
            found = False
        _specs_in[template] = found
    return found


#: Right-to-left letters and marks (Hebrew, Arabic, Syriac, Thaana, N'Ko and the
#: rest up to U+08FF, their presentation forms, the historic scripts of the SMP; RLM
#: and ALM). A text argument holding one (a name, a label) is rendered between FSI
#: and PDI (U+2068, U+2069): otherwise "Dodge" + RLM before "3 + 1d100" shows as
#: "Dodge1 + 3d100", the numbers of the line reordered around it.
_RTL = re.compile(
    "[\u0590-\u08ff\u200f\u061c\ufb1d-\ufdff\ufe70-\ufefe\U00010800-\U00010fff\U0001e800-\U0001efff]"
)


def _shown_count(count: Any, hides: Hides) -> Any:
    """A private count as the audience sees it: its value, or None when hidden (a
    hidden count reads as the general plural)."""
    if isinstance(count, Private):
        value, of, aspect = count.value, count.of, count.aspect
    elif "of" in count:
        value, of, aspect = count.get("private"), count["of"], count.get("aspect", "details")
    else:
        return None  # a text as the count
    if hides is not None and hides(of, aspect):
        return None
    return value


def _live(text: Text, locale: str, hides: Hides) -> str:
    """A Text rendered; kept on it when it holds no private argument (it then reads
    the same to every audience, and rulesets reuse their texts).

    English reads no catalogue: it is kept by its locale, read as it is (here and by
    :func:`_render`, for a nested text). Another language is kept by its locale and
    the :data:`_generation` of the catalogues, so that after :func:`forget` it is
    rendered anew from the catalogues given or compiled since, not read as before
    (in English, for want of them), and English pays no check for it."""
    cache = text._rendered
    if cache is not None:
        known = cache.get(locale)
        if known is not None:
            return known
        if locale != "en":
            known = cache.get((locale, _generation))
            if known is not None:
                return known
    return _fresh(text, locale, hides)


def _fresh(text: Text, locale: str, hides: Hides) -> str:
    """:func:`_live` of a text none of whose kept renderings fits (the callers that
    looked in ``_rendered`` already call it directly): rendered now, from its
    declared message without :func:`_render`'s look at the id and the renamings."""
    declared = _MESSAGES.get(text.id)
    if declared is None:
        raise NotPlain(f"text {text.id!r}", "is not a declared message")
    args = text.args
    if args.__class__ is not dict and not isinstance(args, Mapping):
        args = _NO_ARGS  # (as _render reads such a map's "args")
    met = _privates_met[0]
    rendered = _declared(declared, text.id, args, locale, hides, True)
    if _privates_met[0] == met:
        cache = text._rendered
        if cache is None:
            text._rendered = cache = {}
        cache[locale if locale == "en" else (locale, _generation)] = rendered
    return rendered


def _leniently(
    declared: Message,
    template: str,
    values: Mapping[str, Any],
    locale: str,
    args: Mapping[str, Any],
) -> str:
    """``template`` filled placeholder by placeholder, where filling it at once failed.

    An argument its format spec does not fit — None or a float under ``{n:d}``, text
    under ``{n:,}`` — reads as its plain value, without the spec, and is noted
    (:func:`misformatted`; a WARNING the first time for each message, naming the
    argument and the spec, and its value where ``args``, the arguments as given, hold
    it plainly): a ruleset's slip must not take the table's request down.
    A placeholder without an argument (a text stored by another version of its
    ruleset) reads as the word for a hidden value."""
    parts = []
    for literal, name, spec, _conversion in _formatter.parse(template):
        parts.append(literal)
        if name is None:
            continue
        if name not in values:  # warned once: an old event is read at every view
            _warn_once((declared.id, name), "message %r has no argument %r (stored by another "
                       "version of it?); it reads as hidden", declared.id, name)  # fmt: skip
            parts.append(_live(HIDDEN(), locale, None))
            continue
        value = values[name]
        try:
            parts.append(format(value, spec))
        except (ValueError, TypeError, OverflowError):  # OverflowError: -1 under {n:c}
            _note_misformatted(declared.id, name, spec, value, args.get(name))
            parts.append(format(value, ""))
    return "".join(parts)


#: How many times each ``(message id, argument, format spec, the argument's type)``
#: was rendered without its spec, for the spec did not fit the value (as many keys as
#: the declared messages' placeholders and the types given them).
_misformatted: dict[tuple[str, str, str, str], int] = {}


def misformatted() -> dict[tuple[str, str, str, str], int]:
    """``{(message id, argument, spec, the argument's type): times}``: each argument
    this process rendered without its format spec, for the spec did not fit its value
    (``{armour:d}`` given None or a float). A copy: a test compares two of them (the
    conformance suite fails a ruleset whose examples' texts add to it)."""
    return dict(_misformatted)


#: What a WARNING was logged for, once each: a message with an argument that did not
#: fit its spec (its id), a message stored without an argument (its id and the name).
_warned: set[str | tuple[str, str]] = set()


def _warn_once(key: str | tuple[str, str], said: str, *args: Any) -> None:
    """Log the WARNING ``said`` the first time for ``key`` (as many as the declared
    messages' placeholders: a view is built anew for each reader, a table's old
    events read at each)."""
    if key not in _warned:
        _warned.add(key)
        log.warning(said, *args)


def _note_misformatted(message_id: str, name: str, spec: str, value: Any, given: Any) -> None:
    """Count an argument rendered without its spec; WARN the first time for the message,
    quoting the value where it was ``given`` plainly (a scalar), else naming its type
    alone: a private value rendered for the GM is an NPC's number, and the log line
    reaches whoever reads the log (a player's request renders the GM's view too); a
    list, a map or a text may hold one."""
    plain = value.value if value.__class__ is _Number else value
    if plain.__class__ is _Nothing:
        plain = None
    kind = type(plain).__name__
    key = (message_id, name, spec, kind)
    _misformatted[key] = _misformatted.get(key, 0) + 1
    if given.__class__ in _QUOTABLE:
        said = repr(plain)
    elif given.__class__ is Private or (isinstance(given, Mapping) and "of" in given):
        said = f"a private {kind}"
    else:
        said = f"a {kind}"
    _warn_once(
        message_id,
        "message %r: its argument %r, %s, does not fit the format spec %r; it reads "
        "without the spec (give the template a spec every value of the argument fits, "
        "or the argument a value the spec formats)",
        message_id, name, said, spec,
    )  # fmt: skip


#: The arguments a WARNING about a format spec quotes (a scalar holds no private value).
_QUOTABLE = frozenset((int, float, str, bool, type(None)))


#: Whether a translated template names only the message's placeholders.
_fitting: dict[tuple[str, str], bool] = {}
#: The count a plural message is rendered for when its count is hidden: the general plural.
HIDDEN_COUNT = 5


def _translate(declared: Message, locale: str, count: Any) -> str:
    """The template of ``declared`` in ``locale``: the catalogue's translation, or the
    English one where the catalogue has none or names other placeholders."""
    if locale == "en":
        return declared.template_for(count)
    key = (declared.id, locale)
    found = _templates.get(key)
    if found is None:
        if locale not in i18n.known_locales():  # English, no catalogue looked for
            if _LANGUAGE_TAG.fullmatch(locale):  # noted for a catalogue's tests: "fr"
                _note_uncatalogued(key)
            return declared.template_for(count)
        catalogue = i18n.translation(declared.domain, locale)
        if not i18n.holds(catalogue, declared.key, declared.template):
            _missing.add(key)
        if declared.plural is None:
            raw = catalogue.pgettext(declared.key, declared.template)
            found = _fit(declared, raw)
            if found is not raw:  # a misfit: English stands in for it
                _missing.add(key)
        else:
            found = catalogue
        _templates[key] = found
    if key in _missing:
        _untranslated.add(key)
    if found.__class__ is str:
        return found
    number = count if count.__class__ is int else HIDDEN_COUNT
    raw = found.npgettext(declared.key, declared.template, declared.plural, number)
    template = _fit(declared, raw, count)
    if template is not raw:
        _untranslated.add(key)
    return template


#: How many (message id, locale) of locales without a catalogue :func:`untranslated`
#: keeps: the most recently rendered (a catalogue's tests render a few of them).
MAX_UNCATALOGUED = 1024
#: A locale's name as a language is written (``fr``, ``pt_BR``, ``zh-Hant``): one no
#: catalogue has is noted as untranslated; other names (``../x``, a thousand digits)
#: are noted nowhere.
_LANGUAGE_TAG = re.compile(r"[A-Za-z]{2,8}(?:[_-][A-Za-z0-9]{1,8}){0,2}")


def untranslated() -> frozenset[tuple[str, str]]:
    """``(message id, locale)`` of each message this process rendered in a locale
    whose catalogue lacks it (it read in English): what a test of a catalogue asserts
    stays empty. Of a locale no catalogue is shipped for (``fr``), only the
    :data:`MAX_UNCATALOGUED` pairs rendered last are kept."""
    return frozenset(_untranslated.union(_uncatalogued))


def _note_uncatalogued(key: tuple[str, str]) -> None:
    """Note ``key`` among :data:`_uncatalogued` as the newest, the oldest dropped
    past :data:`MAX_UNCATALOGUED`."""
    _uncatalogued.pop(key, None)
    _uncatalogued[key] = None
    if len(_uncatalogued) > MAX_UNCATALOGUED:
        del _uncatalogued[next(iter(_uncatalogued))]


def _fit(declared: Message, template: str, count: Any = None) -> str:
    """``template`` if it names no placeholder the message lacks; else English."""
    if template is declared.template or template is declared.plural:
        return template
    key = (declared.id, template)
    fits = _fitting.get(key)
    if fits is None:
        try:
            fits = _names(template, declared.id) <= declared.names
        except PluginError:
            fits = False
        if not fits:
            log.warning("the translation %r of %s does not fit it; English is used",
                        template, declared.id)  # fmt: skip
        _fitting[key] = fits
    return template if fits else declared.template_for(count)


def _argument(arg: Any, locale: str, hides: Hides, live: bool, wrap: bool = True) -> Any:
    """An argument as ``format_map`` takes it. ``wrap``: text put in as
    :class:`_Verbatim` and a list as :class:`_Joined`, for a template that may give
    them a format spec; without it (an English template with no spec, :func:`_render`'s
    ``plain``) as the plain strings they format to, with no Python ``__format__``."""
    kind = arg.__class__
    if kind is str or kind is int:
        return arg
    if arg is None:
        return _NOTHING if wrap else NOTHING
    if kind is float:  # 0.5 reads "0,5" in Czech, German and Russian
        return arg if locale == "en" else _Number(arg, locale)
    if kind is bool:
        return arg if locale == "en" else _Verbatim(_live((TRUE if arg else FALSE)(), locale, None))
    if kind is dict or kind is list or kind is tuple:
        reading = _containers_read.get()
        if reading and (len(reading) >= MAX_NESTING or any(met is arg for met in reading)):
            # a list or map met again inside itself (a ruleset's refusal holding a list
            # that holds itself), or nested past what any refusal's words need: an
            # ellipsis, as Python's "[...]", not a RecursionError failing the refusal
            return _Verbatim(ELIDED) if wrap else ELIDED
        if not wrap and kind is not dict:  # a list of text alone (dice chains) holds no
            for item in arg:  # other list: joined as _container joins it, not noted
                if item.__class__ is not str:
                    break
            else:
                return ", ".join(arg)
        token = _containers_read.set((*reading, arg))
        try:
            return _container(arg, locale, hides, live, wrap)
        finally:
            _containers_read.reset(token)
    return _other_argument(arg, locale, hides, live, wrap)


#: The lists, tuples and maps :func:`_argument` is reading, outermost first.
_containers_read: contextvars.ContextVar[tuple[Any, ...]] = contextvars.ContextVar(
    "rollbridge_containers_read", default=()
)


def _container(arg: Any, locale: str, hides: Hides, live: bool, wrap: bool) -> Any:
    """:func:`_argument` of a dict, a list or a tuple it is not reading already."""
    if arg.__class__ is dict:  # a stored text or private argument
        if "of" in arg:
            _privates_met[0] += 1
            if hides is not None and hides(arg["of"], arg.get("aspect", "details")):
                instead = arg.get("instead", _HIDDEN_DATA)
                shown = str(_argument(instead, locale, hides, False))
                return _Verbatim(shown) if wrap else shown
            return _seen(arg.get("private"), locale, hides, False, wrap)
        if "id" in arg:
            shown = _render(arg["id"], arg.get("args") or _NO_ARGS, locale, hides, False)
            return _Verbatim(shown) if wrap else shown
        # a plain map (neither a text nor a private value): its entries, "key: value"
        shown = ", ".join(
            f"{key}: {_argument(item, locale, hides, live)!s}" for key, item in arg.items()
        )
        return _Verbatim(shown) if wrap else shown
    if not wrap:  # what _Joined formats to without a spec (its items as they were;
        # one of text alone :func:`_argument` joined already)
        return ", ".join([str(_argument(item, locale, hides, live)) for item in arg])
    return _Joined(_argument(item, locale, hides, live) for item in arg)


def _other_argument(arg: Any, locale: str, hides: Hides, live: bool, wrap: bool) -> Any:
    """:func:`_argument` of what is neither a plain scalar nor a dict, list or tuple."""
    kind = arg.__class__
    if kind is Text:
        return _Verbatim(_live(arg, locale, hides)) if wrap else _live(arg, locale, hides)
    elif kind is Private:
        _privates_met[0] += 1
        if hides is not None and hides(arg.of, arg.aspect):
            instead = HIDDEN() if arg.instead is _NO_INSTEAD else arg.instead
            shown = str(_argument(instead, locale, hides, True))
            return _Verbatim(shown) if wrap else shown
        return _seen(arg.value, locale, hides, True, wrap)
    if isinstance(arg, Mapping):  # a read-only map: as a dict
        return _argument(dict(arg), locale, hides, live, wrap)
    if isinstance(arg, list | tuple):  # a named tuple, a list of its own: as a list
        return _argument(list(arg), locale, hides, live, wrap)
    if isinstance(arg, BaseException):  # a refusal (or any exception) given as a value
        shown = _exception(arg, locale, hides, live)
        return _Verbatim(shown) if wrap else shown
    if hasattr(arg.__class__, "__dataclass_fields__"):
        # a data class reads as its repr: a stored private form in it hidden there as
        # a Private is (by its own repr), never Python's picture of the map
        return privatized(arg)
    return arg


def _exception(error: BaseException, locale: str, hides: Hides, live: bool) -> str:
    """An exception as an audience reads it: a rollbridge error (a ruleset's refusal)
    in ``locale`` with its private arguments as the audience may see them; another
    exception as ``str()`` reads it — its one argument, or all of them — but each
    rendered as an argument, so that a :class:`Private` in it is never its repr; one
    whose class has words of its own (a ``__str__`` of a ruleset's or a library's) as
    they say (a :class:`Private` they write in reads "(hidden)", as in any plain
    string). One met again inside itself (an exception among its own arguments)
    reads as its class's name there, and so does one whose words fail to be read."""
    reading = _exceptions_read.get()
    if any(met is error for met in reading):
        return error.__class__.__name__
    token = _exceptions_read.set((*reading, error))
    try:
        return _exception_words(error, locale, hides, live)
    finally:
        _exceptions_read.reset(token)


#: The exceptions :func:`_exception` is reading, outermost first.
_exceptions_read: contextvars.ContextVar[tuple[BaseException, ...]] = contextvars.ContextVar(
    "rollbridge_exceptions_read", default=()
)


def _exception_words(error: BaseException, locale: str, hides: Hides, live: bool) -> str:
    """:func:`_exception` of an exception it is not reading already."""
    if isinstance(error, RollbridgeError):
        # rendered here, never read from the English kept on it: the text holding this
        # one must count its private arguments
        text = error.text if error.held is None else error.held
        if text is None:
            text = error.message  # a subclass may have set it to a list of its own
            if text.__class__ is str:
                return text
        if (
            text.__class__ is Text
            or text.__class__ is Private
            or isinstance(text, _HOLDERS)
            or not hasattr(text, "render")
        ):
            return render(text, locale=locale, hides=hides)
        return str(text.render(locale, hides))
    if _own_words(error.__class__):
        return said_by(error)  # its class's name where its words raise
    args = error.args
    if not args:
        return error.__class__.__name__  # no words: its class's name, not an empty line
    if _says_args_otherwise(error.__class__) and not any(_held_words(arg) for arg in args):
        # nothing in it read per audience or language: Python's own words (a KeyError
        # quotes its key, an OSError names its errno, a UnicodeDecodeError its byte)
        return said_by(error)  # its class's name where its words raise
    if len(args) == 1:
        return str(_argument(args[0], locale, hides, live, False))
    return str(_argument(list(args), locale, hides, live, False)) if args else ""


def _held_words(value: Any, depth: int = 0) -> bool:
    """Whether ``value`` (an exception's argument) holds what each audience or
    language reads otherwise — a :class:`Private`, a :class:`Text`, their stored
    forms, an exception — within a few levels of lists, tuples and maps."""
    kind = value.__class__
    if kind is Private or kind is Text or isinstance(value, Text | BaseException):
        return True
    if depth >= 8:
        return True  # deeper than a refusal's words go: read item by item, to be safe
    if isinstance(value, Mapping):
        return (
            "of" in value
            or "id" in value
            or any(_held_words(item, depth + 1) for item in value.values())
        )
    if isinstance(value, list | tuple):
        return any(_held_words(item, depth + 1) for item in value)
    return False


def _says_args_otherwise(kind: type) -> bool:
    """Whether a built-in exception class says its arguments in words of its own
    (``KeyError``, ``OSError``), not as ``BaseException`` does (the one argument, or
    the tuple of them)."""
    for klass in kind.__mro__:
        if "__str__" in vars(klass):
            return klass is not BaseException
    return False


def _own_words(kind: type) -> bool:
    """Whether an exception class says itself with a ``__str__`` of its own, not
    Python's (which reads its arguments: :func:`_exception` reads them so)."""
    for klass in kind.__mro__:
        if "__str__" in vars(klass):
            return klass.__module__ != "builtins"
    return False


def _seen(value: Any, locale: str, hides: Hides, live: bool, wrap: bool) -> Any:
    """A private value as an audience that may see it reads it: as :func:`_argument`
    puts it in, but an integer as a number of the reader's language wherever the
    template may give it a spec (``wrap``, outside English): ``{limit:,}`` of a private
    1000 reads "1.000" in German, not "1,000" (one, there)."""
    if value.__class__ is int and wrap and locale != "en":
        return _Number(value, locale)
    return _argument(value, locale, hides, live, wrap)


# -- the stored form ---------------------------------------------------------------

Path = tuple[Any, ...]


def extract(value: Any, *, where: str = "value") -> tuple[Any, list[list[Any]], list[list[Any]]]:
    """A ruleset's output, and where its texts and private values are.

    :returns: ``(data, texts, privates)``: ``data`` is ``value`` with every
        :class:`Private` outside a text replaced by its value (the maps and lists on
        the way copied, nothing else; texts are kept as they are: :func:`stored`
        gives their stored form when the data is packed); ``texts``, the paths (lists
        of keys and indices) of the texts; ``privates``, one ``[path, of, aspect]``
        (plus ``instead`` and whether it is a text, when given) per private value.

    Under a top-level ``outcome`` key (a resolution's outcome), a stored private form
    the ruleset built (:func:`stored_private`) is read as the :class:`Private` it
    stands for, so players never get its value as plain data. Elsewhere such a map is
    data: a follow-up's ``apply`` keeps private values in that form for the action it
    names, which gets them back as it kept them.

    Whether the data is plain is checked where it is packed and encoded for the
    wire (``Table._stage``), not here.
    """
    texts: list[list[Any]] = []
    privates: list[list[Any]] = []
    data = _extract(value, [], texts, privates, 0)
    return data, texts, privates


MAX_OUTPUT_DEPTH = 64


def _extract(value: Any, path: list[Any], texts: list, privates: list, depth: int) -> Any:
    """``value`` with the Privates outside texts replaced; the same object when
    nothing inside it changed. Scalars are passed over without a call."""
    kind = value.__class__
    if kind is dict:
        if depth > MAX_OUTPUT_DEPTH:
            raise NotPlain("/".join(map(str, path)), f"nested more than {MAX_OUTPUT_DEPTH} levels")
        if "private" in value and "of" in value and path and path[0] == "outcome":
            made = stored_private(value)
            if made is not None:  # a stored private form a ruleset built: as its Private,
                # one level deeper, as the map was (a chain of forms, each the value of the
                # next, is refused past MAX_OUTPUT_DEPTH, never a RecursionError)
                return _extract(made, path, texts, privates, depth + 1)
        out = None
        for key, item in value.items():
            k = item.__class__
            if k is str or k is int or k is bool or k is float or item is None:
                continue
            if k is Text:  # a text is kept as it is: only where it stands is noted
                texts.append([*path, key])
                continue
            path.append(key)
            new = _extract(item, path, texts, privates, depth + 1)
            path.pop()
            if new is not item:
                if out is None:
                    out = dict(value)
                out[key] = new
        return value if out is None else out
    if kind is list or kind is tuple:
        if depth > MAX_OUTPUT_DEPTH:
            raise NotPlain("/".join(map(str, path)), f"nested more than {MAX_OUTPUT_DEPTH} levels")
        changed = None
        for index, item in enumerate(value):
            k = item.__class__
            if k is str or k is int or k is bool or k is float or item is None:
                continue
            if k is Text:
                texts.append([*path, index])
                continue
            path.append(index)
            new = _extract(item, path, texts, privates, depth + 1)
            path.pop()
            if new is not item:
                if changed is None:
                    changed = list(value)
                changed[index] = new
        return value if changed is None else changed
    if kind is Text:
        texts.append(path.copy())
        return value
    if kind is Private:
        entry: list[Any] = [path.copy(), value.of, value.aspect]
        if value.instead is not _NO_INSTEAD:
            # what stands instead, and whether it is a text (_instead renders it
            # then): the mark, not the place, tells, for the value itself is a text
            # only if it is one
            instead = value.instead
            within: list[list[Any]] = []
            read = _extract(instead, path, [], within, depth + 1)
            if within:  # a private value (in an outcome, a stored form) within: hidden
                instead = _hidden_within(instead, path[:1] == ["outcome"], path, depth + 1)
                if instead is _LEFT_OUT:  # nothing players may see stands instead
                    privates.append(entry)
                    return _extract(value.value, path, texts, privates, depth)
                read = _extract(instead, path, [], [], depth + 1)
            instead_text = instead.__class__ is Text
            entry += [read, instead_text]
            if instead_text and not isinstance(value.value, Mapping):
                # noted among the texts as well, as before the mark, for code that
                # reads events without it (a map there it would take for a text)
                texts.append(path.copy())
        privates.append(entry)
        inner = value.value
        k = inner.__class__
        if k is int or k is str or k is bool or k is float or inner is None:
            return inner  # a scalar (most private values: an NPC's number) without a call
        return _extract(inner, path, texts, privates, depth)
    if kind is str or kind is int or kind is bool or kind is float or value is None:
        return value
    if isinstance(value, Mapping):
        return _extract(dict(value), path, texts, privates, depth)
    return value  # a scalar, or not plain: the packing refuses it, naming it


#: What :func:`_hidden_within` reads a private value with nothing instead as.
_LEFT_OUT = object()


def _hidden_within(value: Any, outcome: bool, path: list[Any], depth: int) -> Any:
    """A private value's ``instead`` as the audience that gets it may read it: each
    :class:`Private` in it (and in an outcome each stored form, as :func:`extract`
    reads one there) replaced by what stands instead of it, or left out — from a map,
    from a list, or the whole ``instead`` (:data:`_LEFT_OUT`) where it is one itself.
    That audience may not see the value ``instead`` stands for, nor, so, another one
    within (review plugins-23: its number reached players as plain data)."""
    if depth > MAX_OUTPUT_DEPTH:
        raise NotPlain("/".join(map(str, path)), f"nested more than {MAX_OUTPUT_DEPTH} levels")
    kind = value.__class__
    if kind is dict and outcome and "private" in value and "of" in value:
        value = stored_private(value) or value
        kind = value.__class__
    if kind is Private:
        if value.instead is _NO_INSTEAD:
            return _LEFT_OUT
        return _hidden_within(value.instead, outcome, path, depth + 1)
    if kind is dict or (kind is not Text and isinstance(value, Mapping)):
        items = {k: _hidden_within(v, outcome, path, depth + 1) for k, v in value.items()}
        if all(items[k] is v for k, v in value.items()):
            return value
        return {k: v for k, v in items.items() if v is not _LEFT_OUT}
    if kind is list or kind is tuple:
        found = [_hidden_within(item, outcome, path, depth + 1) for item in value]
        if all(new is old for new, old in zip(found, value, strict=True)):
            return value
        return [item for item in found if item is not _LEFT_OUT]
    return value


def instead_in_outcome(instead: Any) -> tuple[Any, bool]:
    """An ``instead`` in an outcome as :func:`extract` keeps it since 7 December 2026
    (each private value or stored form in it hidden, :func:`_hidden_within`), and
    whether anything of it is left (:mod:`rollbridge.engine.forms` reads so the
    ``instead`` of an event stored before)."""
    try:
        found = _hidden_within(instead, True, ["outcome"], 0)
    except NotPlain:
        return instead, True
    return (None, False) if found is _LEFT_OUT else (found, True)


def stored_private(value: Mapping[str, Any]) -> Private | None:
    """The :class:`Private` a stored private form stands for — a map of ``private``,
    ``of`` (an actor id, or null: no actor's, hidden from every player unless its
    aspect is revealed), ``aspect`` and ``instead`` (optional) and nothing else, as
    :func:`stored` writes one — or None where ``value`` is no such map. :func:`extract`
    reads one a ruleset built into a resolution's outcome so: a player never gets an
    NPC's number its ruleset kept in that form and put back."""
    aspect = value.get("aspect", "details")
    of = value["of"]
    if (
        value.__class__ is not dict
        or not value.keys() <= _STORED_KEYS
        or (of.__class__ is not str and of is not None)
        or aspect.__class__ is not str
    ):
        return None
    if of is None:  # no actor's (rev28a): kept from a Private(of=None) made before
        # author28 refused one, or built so — no player controls it, so it is hidden
        # from players as that Private was, unless the ruleset reveals its aspect
        return _nobodys(value, aspect)
    if "instead" in value:
        return Private(value["private"], of=of, aspect=aspect, instead=value["instead"])
    return Private(value["private"], of=of, aspect=aspect)


def _nobodys(value: Mapping[str, Any], aspect: str) -> Private:
    """The :class:`Private` of no actor (``of`` None) a stored form with ``of`` null
    stands for — which :class:`Private` itself refuses to be made as."""
    made = Private.__new__(Private)
    made.value, made.of, made.aspect = value["private"], None, aspect  # type: ignore[assignment]
    made.instead = value.get("instead", _NO_INSTEAD)
    return made


def _check_private(of: Any, aspect: Any) -> None:
    """:raises TypeError: ``of`` is no actor's id or ``aspect`` no name (each a ``str``;
    a subclass is one), naming the field and what was given (never the value)."""
    expect("Private", "of", of, (str,), "the id of the actor whose detail it is (a str)")
    expect("Private", "aspect", aspect, (str,), "a str")


#: The keys of a stored private form (:func:`stored`).
_STORED_KEYS = frozenset(("private", "of", "aspect", "instead"))


def stored_data(value: Any) -> Any:
    """``value`` as an event stores it: plain data, its texts and marks in their
    stored form. :raises NotPlain: for what is not plain data (packing checks it)."""
    return unpack(pack(value, stored))


def stored(value: Any) -> Any:
    """The stored form of a :class:`Text` or :class:`Private` (the ``default`` hook
    of the packers): ``{"id", "args"}`` and ``{"private", "of", "aspect",
    "instead"?}``; a subclass of a plain scalar type (an IntEnum) as that type,
    a named tuple as a list.
    :raises TypeError: for anything else."""
    kind = value.__class__
    if kind is Text:
        if value.id not in _MESSAGES:
            raise TypeError(f"text {value.id!r} is not a declared message")
        args = value.args
        return {"id": value.id, "args": args if args.__class__ is dict else dict(args)}
    if kind is Private:
        data = {"private": value.value, "of": value.of, "aspect": value.aspect}
        if value.instead is not _NO_INSTEAD:
            data["instead"] = value.instead
        return data
    if isinstance(value, Mapping):  # a read-only map a ruleset shares (MappingProxyType)
        return dict(value)
    return as_plain_type(value)  # an IntEnum, a named tuple: as the reference writes it


class Places:
    """Where an event's texts and private values are, as a tree of its data's keys,
    walked once per view. ``children`` by key or index; ``privates``, the indices of
    the entries marking this very value (in the list of private entries it was made
    from); ``text``, whether a text stands here.

    A tree holds only paths, so the events whose texts and private values stand at
    the same places (a ruleset's results of one shape) share one: :meth:`of` keeps
    them. Nothing may change a tree it returns.
    """

    __slots__ = ("children", "leaf", "privates", "text", "textual")

    def __init__(self) -> None:
        self.children: dict[Any, Places] = {}
        self.privates: tuple[int, ...] = ()
        self.text = False
        #: A text stands here or below: a view that hides nothing goes only there.
        self.textual = False
        #: A text alone here: no private value marks it, nothing below it (the pair
        #: walk renders it where it stands, without a call for the node).
        self.leaf = False

    @classmethod
    def of(cls, texts: Sequence[Sequence[Any]], privates: Sequence[Sequence[Any]]) -> Places:
        """The tree of the paths in ``texts`` and ``privates`` (see :func:`extract`),
        made once per shape: the same paths give the same (shared) tree."""
        shape = (tuple(map(tuple, texts)), tuple(map(tuple, map(_PATH_OF, privates))))
        found = _SHAPES.get(shape)
        if found is None:
            if len(_SHAPES) >= MAX_SHAPES:  # a bound, not a policy: shapes recur
                _SHAPES.clear()
            found = _SHAPES[shape] = cls._made(*shape)
        return found

    @classmethod
    def _made(cls, texts: Sequence[Sequence[Any]], paths: Sequence[Sequence[Any]]) -> Places:
        """A new tree of the paths of texts and private values (``paths``: one per entry)."""
        root = cls()
        for index, path in enumerate(paths):
            if path:
                node = root
                for key in path:  # (written out, not a method: it runs per key of every path)
                    child = node.children.get(key)
                    if child is None:
                        child = node.children[key] = cls()
                    node = child
                node.privates = (*node.privates, index)
        for path in texts:
            if path:
                node = root
                node.textual = True
                for key in path:
                    child = node.children.get(key)
                    if child is None:
                        child = node.children[key] = cls()
                    node = child
                    node.textual = True
                node.text = True
        nodes = [root]
        for node in nodes:
            node.leaf = node.text and not node.children and not node.privates
            nodes.extend(node.children.values())
        return root


#: A private entry's path (:meth:`Places.of`: the keys made in C, without a comprehension).
_PATH_OF = operator.itemgetter(0)
#: The trees :meth:`Places.of` made, by their paths; at most :data:`MAX_SHAPES`.
_SHAPES: dict[tuple[tuple[tuple[Any, ...], ...], ...], Places] = {}
#: How many trees are kept (an sr2 attack has a few shapes: hit, miss, botch, …).
MAX_SHAPES = 512

_DROP = object()


def view_of(
    data: JSON,
    texts: Sequence[Sequence[Any]],
    privates: Sequence[Sequence[Any]],
    *,
    locale: str = "en",
    hides: Hides = None,
    memo: dict[int, tuple[Any, str]] | None = None,
    places: Places | None = None,
) -> JSON:
    """The stored ``data`` as an audience sees it: private values it may not see
    replaced or dropped, every text rendered. Copies only what it changes;
    ``data`` itself is never modified.

    :param memo: shared by the views of one event in one locale: a text with no
        private argument reads the same to every audience, so it is rendered once.
    :param places: ``Places.of(texts, privates)``, when the caller keeps it.
    """
    if not texts and not (privates and hides is not None):
        return data
    if places is None:
        places = Places.of(texts, privates)
    return _view(data, places, privates, locale, hides, memo)


def _view(
    value: Any,
    node: Places,
    entries: Sequence[Sequence[Any]],
    locale: str,
    hides: Hides,
    memo: dict | None,
) -> Any:
    if node.privates and hides is not None:
        for index in node.privates:
            entry = entries[index]
            if hides(entry[1], entry[2]):
                if len(entry) <= 3:
                    return _DROP
                return _instead(entry, node, locale, hides, memo)
    children = node.children
    if children:
        kind = value.__class__
        if kind is dict:
            out = None
            for key, child in children.items():
                if hides is None and not child.textual:
                    continue  # only private values below: nothing to do for the GM
                if key in value:
                    item = value[key]
                    new = _view(item, child, entries, locale, hides, memo)
                    if new is not item:
                        if out is None:
                            out = dict(value)
                        if new is _DROP:
                            del out[key]
                        else:
                            out[key] = new
            if out is not None:
                value = out
        elif kind is list or kind is tuple:
            out_list = None
            dropped = []
            size = len(value)
            for key, child in children.items():
                if hides is None and not child.textual:
                    continue
                if key.__class__ is int and 0 <= key < size:
                    item = value[key]
                    new = _view(item, child, entries, locale, hides, memo)
                    if new is not item:
                        if out_list is None:
                            out_list = list(value)
                        if new is _DROP:
                            dropped.append(key)
                        else:
                            out_list[key] = new
            if out_list is not None:
                for key in sorted(dropped, reverse=True):
                    del out_list[key]
                value = out_list
    if node.text:
        return _shown_text(value, locale, hides, memo)
    return value


def view_pair(
    data: JSON,
    texts: Sequence[Sequence[Any]],
    privates: Sequence[Sequence[Any]],
    *,
    hides: Callable[[str, str], bool],
    locale: str = "en",
    memo: dict[int, tuple[Any, str]] | None = None,
    places: Places | None = None,
) -> tuple[JSON, JSON]:
    """``(view_of(data, ..., hides=None), view_of(data, ..., hides=hides))`` in one
    walk: the GM's view and the players' (``hides``), equal to the two calls. Where
    players see what the GM sees — no private value they may not see, a text that
    met no private argument — they share the GM's values, not rendered again."""
    if not texts and not privates:
        return data, data
    if places is None:
        places = Places.of(texts, privates)
    # one walk's own (a table may run in any thread): whether the text being rendered
    # for the GM met a private mark players may not see
    marks = [False]

    def noting(of: str, aspect: str) -> bool:
        if not marks[0] and hides(of, aspect):  # (players' hides asked as they would be)
            marks[0] = True
        return False

    return _pair(data, places, privates, locale, hides, memo, noting, marks)


def _pair(
    value: Any,
    node: Places,
    entries: Sequence[Sequence[Any]],
    locale: str,
    hides: Callable[[str, str], bool],
    memo: dict | None,
    noting: Callable[[str, str], bool],
    marks: list[bool],
) -> tuple[Any, Any]:
    """``(_view(value, node, entries, locale, None, memo), _view(value, node, entries,
    locale, hides, memo))``. ``noting``: the GM's ``hides`` for a text, which hides
    nothing (as None does) and notes in ``marks[0]`` whether a private mark met is one
    players may not see (asking their ``hides`` of each until one is): a text whose
    marks players may all see reads the same to them, and is not rendered again for
    them."""
    for index in node.privates:
        entry = entries[index]
        if hides(entry[1], entry[2]):  # players get what stands instead, or nothing
            shown = _DROP if len(entry) <= 3 else _instead(entry, node, locale, hides, memo)
            return _view(value, node, entries, locale, None, memo), shown
    gm = players = value
    children = node.children
    if children:
        kind = value.__class__
        if kind is dict:
            gm_out = players_out = None
            for key, child in children.items():
                if key not in value:
                    continue
                item = value[key]
                if child.leaf:  # a text alone: as _pair renders it, without its walk
                    g, p = _lone_text(item, locale, hides, memo, noting, marks)
                elif child.textual:
                    g, p = _pair(item, child, entries, locale, hides, memo, noting, marks)
                else:  # only private values below: the GM's as it is
                    g, p = item, _view(item, child, entries, locale, hides, memo)
                if g is not item:
                    if gm_out is None:
                        gm_out = dict(value)
                    gm_out[key] = g
                if players_out is not None:
                    if p is not item:
                        if p is _DROP:
                            del players_out[key]
                        else:
                            players_out[key] = p
                elif p is not g:  # the first place players see otherwise: their own copy
                    players_out = dict(value if gm_out is None else gm_out)
                    if p is _DROP:
                        del players_out[key]
                    else:
                        players_out[key] = p
            if gm_out is not None:
                gm = gm_out
            # where players saw all the GM sees, the GM's copy (not a second, equal one)
            players = gm if players_out is None else players_out
        elif kind is list or kind is tuple:
            gm_list = players_list = None
            dropped = []
            size = len(value)
            for key, child in children.items():
                if key.__class__ is not int or not 0 <= key < size:
                    continue
                item = value[key]
                if child.leaf:  # a text alone: as _pair renders it, without its walk
                    g, p = _lone_text(item, locale, hides, memo, noting, marks)
                elif child.textual:
                    g, p = _pair(item, child, entries, locale, hides, memo, noting, marks)
                else:  # only private values below: the GM's as it is
                    g, p = item, _view(item, child, entries, locale, hides, memo)
                if g is not item:
                    if gm_list is None:
                        gm_list = list(value)
                    gm_list[key] = g
                if players_list is not None:
                    if p is not item:
                        if p is _DROP:
                            dropped.append(key)
                        else:
                            players_list[key] = p
                elif p is not g:  # the first place players see otherwise: their own copy
                    players_list = list(value if gm_list is None else gm_list)
                    if p is _DROP:
                        dropped.append(key)
                    else:
                        players_list[key] = p
            if gm_list is not None:
                gm = gm_list
            if players_list is None:
                players = gm  # players saw all the GM sees: the GM's copy
            else:
                for key in sorted(dropped, reverse=True):
                    del players_list[key]
                players = players_list
    if node.text:
        if players is not gm:
            return _shown_text(gm, locale, None, memo), _shown_text(players, locale, hides, memo)
        return _lone_text(gm, locale, hides, memo, noting, marks)
    return gm, players


def _lone_text(
    item: Any,
    locale: str,
    hides: Callable[[str, str], bool],
    memo: dict | None,
    noting: Callable[[str, str], bool],
    marks: list[bool],
) -> tuple[Any, Any]:
    """A text for the GM and for players, where both see the same value (a text alone at
    its place, :attr:`Places.leaf`, or one whose place players see as the GM does):
    rendered again for players only where they may not see a private argument of it."""
    marks[0] = False
    shown = _shown_text(item, locale, noting, memo)  # the GM's, noting the marks met
    if marks[0]:  # players miss one: their own rendering
        return shown, _shown_text(item, locale, hides, memo)
    return shown, shown  # no private argument players may not see: the same words


def _instead(
    entry: Sequence[Any], node: Places, locale: str, hides: Hides, memo: dict | None
) -> Any:
    """What stands instead of a hidden private value (``entry[3]``), rendered when
    its entry marks it a text (``entry[4]``); in an entry stored before the mark,
    when a text is noted at its place, as it was read then."""
    is_text = entry[4] if len(entry) > 4 else node.text
    return _shown_text(entry[3], locale, hides, memo) if is_text else entry[3]


def _shown_text(value: Any, locale: str, hides: Hides, memo: dict | None) -> Any:
    """A text (live or stored) rendered; anything else as it is."""
    kind = value.__class__
    if kind is Text:
        cache = value._rendered  # rendered already: the same for everyone
        if cache is None:
            return _fresh(value, locale, hides)
        known = cache.get(locale)
        if known is not None:
            return known
        return _live(value, locale, hides)
    if kind is dict and "id" in value:
        # the memo keeps the text it was made for, and is used only for that very
        # object: an id alone could be a freed object's, reused
        kept = memo.get(id(value)) if memo is not None else None
        if kept is not None and kept[0] is value:
            return kept[1]
        met = _privates_met[0]
        known = _render(value["id"], value.get("args") or _NO_ARGS, locale, hides, False)
        if memo is not None and _privates_met[0] == met:
            memo[id(value)] = (value, known)  # no private argument: the same for everyone
        return known
    return value
