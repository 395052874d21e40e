"""English counts that agree with their nouns: the scan of a message's English.

A plain message (``say(key, template)``) has no singular: ``"{hits} hits"`` reads
"1 hits" at a count of one. So does the singular of a plural message written with a
plural noun (``say.plural(key, "{count} hits", ...)``), and a plural message whose two
forms are one text reads wrong at one count or the other. This module tells a count
before a plural noun from a name before a verb, for the conformance suite
(:meth:`~rollbridge.testing.RulesetConformance.test_english_counts_agree_with_their_nouns`,
a third-party ruleset's messages) and rollbridge's own scan of its sources
(tests/test_english_plurals.py).

How it tells a count from a name: the word after the placeholder decides, not the
placeholder's name (a count is named anything: ``{running}``, ``{hits}``). A word that
looks plural — ending in s but not in ss ("success", "excess"), "dice", or "word(s)" —
is taken for a plural noun unless it is one of :data:`NEVER_PLURAL` ("this", "plus",
"bonus": never a plural noun) or of :data:`NOT_NOUNS`, the verbs and small words that
follow a name ("{actor} is", "{target} takes", "{dice} vs"). A word of
:data:`NOT_NOUNS` is still a noun after a placeholder named for it or named as a count
("{rolls} rolls", "{count} hits"); a count named otherwise before one of those words
("{verified} rolls verified") is beyond this scan. Where the texts a ruleset made are
at hand, a placeholder they gave words (a name, a text: ``{name}`` of "{name} flips")
is no count whatever word follows it (:func:`worded_placeholders`): a verb of a
ruleset's own after a name is not taken for a noun.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping
from typing import Any

from rollbridge.text import Message, Private, Text
from rollbridge.text import message as declared_message

__all__ = [
    "COUNT_NAMES",
    "NEVER_PLURAL",
    "NOT_NOUNS",
    "counted_plurals",
    "english_count_slips",
    "numbered_placeholders",
    "texts_in",
    "uncounted_plurals",
    "worded_placeholders",
]

#: The verbs and small words that follow a name in messages: not plural nouns.
NOT_NOUNS = frozenset({
    "is", "has", "was", "does", "needs", "takes", "shows", "gives", "as", "vs", "this",
    "uses", "asks", "holds", "exists", "comes", "reveals", "commits", "applies", "differs",
    "divides", "names", "dies", "keeps", "hits", "misses", "botches", "resists", "bleeds",
    "tries", "meets", "beats", "rolls", "spends", "casts", "improves", "dispels", "gets",
    "recovers", "wears", "carries", "puts", "harms", "heals", "regains", "leaves",
    "registers", "implements", "defines", "requires", "follows",
})  # fmt: skip
#: Words that look plural and never are — small words, and nouns whose singular ends in
#: s — taken for no noun after any placeholder, one named as a count too: "{limit}
#: this server stores", "{roll} plus {bonus}", "{count} bonus". Until rev29a a count's
#: name made them plural nouns ("1 this"), and "plus" was one after any number.
NEVER_PLURAL = frozenset({
    "is", "was", "has", "as", "vs", "this", "its", "his", "thus", "plus", "minus",
    "versus", "bonus", "malus", "status", "focus", "radius", "axis",
})  # fmt: skip
#: Placeholders named as counts: a word of NOT_NOUNS after one is a noun all the same.
COUNT_NAMES = frozenset({"count", "n", "limit"})  # ({total} is a roll's total too)
#: A placeholder (with any format spec) and the word after it, when that looks plural.
_COUNTED = re.compile(r"\{(\w+)(?::[^{}]*)?\} (\w*[^\Ws]s|dice|\w+\(s\))(?!\w)")


def counted_plurals(template: str) -> list[tuple[str, str]]:
    """The (placeholder, word) pairs of ``template`` where a count stands before a
    plural noun (see the module's docstring)."""
    return [
        (name, word)
        for name, word in _COUNTED.findall(template)
        if word not in NEVER_PLURAL
        and (word not in NOT_NOUNS or name in COUNT_NAMES or name == word)
    ]


def texts_in(value: Any) -> list[tuple[str, Mapping[str, Any]]]:
    """The ``(message id, arguments)`` of every text in ``value`` (a
    :class:`~rollbridge.text.Text`, or a text as an event stores it, ``{"id": …,
    "args": …}``; in maps and lists, and in texts' arguments)."""
    found: list[tuple[str, Mapping[str, Any]]] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, Text) or (isinstance(item, Mapping) and item.keys() == {"id", "args"}):
            ident, args = (item.id, item.args) if isinstance(item, Text) else item.values()
            if isinstance(args, Mapping):
                found.append((str(ident), args))
                stack.extend(args.values())
        elif isinstance(item, Mapping):
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return found


def worded_placeholders(value: Any) -> set[tuple[str, str]]:
    """The ``(message id, placeholder)`` pairs of the texts in ``value``
    (:func:`texts_in`) whose argument is words — a string or a text, private or not —
    and so no count."""
    return {
        (ident, name)
        for ident, args in texts_in(value)
        for name, arg in args.items()
        if _words(arg)
    }


def numbered_placeholders(value: Any) -> set[tuple[str, str]]:
    """The ``(message id, placeholder)`` pairs of the texts in ``value``
    (:func:`texts_in`) whose argument is a number (an ``int`` or a ``float``, private
    or not, ``bool`` apart): a count there, whatever words another message gave a
    placeholder of the same name."""
    return {
        (ident, name)
        for ident, args in texts_in(value)
        for name, arg in args.items()
        if isinstance(_private_value(arg), int | float)
        and not isinstance(_private_value(arg), bool)
    }


def uncounted_plurals(value: Any) -> dict[str, str]:
    """The plural messages of the texts in ``value`` (:func:`texts_in`) given a count
    that is no ``int`` — a string ``"1"`` reads "1 successes", a None "— successes", a
    ``True`` "True success", and a catalogue reads any of them (a float, an ``IntEnum``
    too) in the general plural — by message id: what the count was. A private count is
    judged by its value."""
    wrong = {}
    for ident, args in texts_in(value):
        declared = declared_message(ident)
        if declared is None or declared.count is None or declared.count not in args:
            continue
        count = _private_value(args[declared.count])
        if count.__class__ is not int:  # as the catalogues choose a form: an int alone
            wrong[ident] = f"{{{declared.count}}} given {type(count).__name__} {count!r}"
    return wrong


def _private_value(arg: Any) -> Any:
    """A text's argument, a private one's value (stored, or a :class:`Private`)."""
    if isinstance(arg, Private):
        return arg.value
    if isinstance(arg, Mapping) and "private" in arg and "of" in arg:  # stored so
        return arg["private"]
    return arg


def _words(arg: Any) -> bool:
    """Whether a text's argument is words (a string or a text), not a number."""
    arg = _private_value(arg)
    return isinstance(arg, str | Text) or (isinstance(arg, Mapping) and "id" in arg)


def english_count_slips(
    messages: Iterable[Message],
    worded: Collection[tuple[str, str]] = (),
    numbered: Collection[tuple[str, str]] = (),
) -> dict[str, str]:
    """What reads wrong at a count of one in the English of ``messages``, by message
    id: a count before a plural noun in a plain message or a plural one's singular,
    or a plural message whose singular is its plural's text. A placeholder of
    ``worded`` (:func:`worded_placeholders`) is no count, nor one of the same name in
    another message of its domain (``{actor}`` of a message no example reached, where
    the examples gave ``{actor}`` of another words) — but where ``numbered``
    (:func:`numbered_placeholders`) has it of this message: the examples gave it a
    number here ("{hits} hits" given 1, ``{hits}`` of "{hits} lands" given "a sword").
    Until rev29a a name given words anywhere in the domain hid that count."""
    slips = {}
    for message in messages:
        names = {name for ident, name in worded if ident.startswith(f"{message.domain}.")}
        names -= {name for ident, name in numbered if ident == message.id}
        names |= {name for ident, name in worded if ident == message.id}
        found = [(name, word) for name, word in counted_plurals(message.template)
                 if name not in names]  # fmt: skip
        if found:
            name, word = found[0]
            slips[message.id] = (
                f"{message.template!r} reads '1 {word}' where {{{name}}} is 1"
                if message.plural is None
                else f"its singular {message.template!r} reads '1 {word}'"
            )
        elif message.plural is not None and message.plural == message.template:
            slips[message.id] = f"its singular and its plural are one text {message.template!r}"
    return slips
