"""A count before a plural noun in a third-party ruleset's plain English message —
``say("strike", "{hits} hits")``, "1 hits" at one — failed no test of the conformance
suite: rollbridge's own scan (tests/test_english_plurals.py) reads rollbridge's sources
alone (author29). ``test_english_counts_agree_with_their_nouns`` fails naming the
message; a plural message (``say.plural``) passes, as does a name before a verb of the
ruleset's own ("{name} flips": the examples gave it words), and ``never_one`` names a
count that cannot be one."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from rollbridge import ActionContext, Resolution
from rollbridge.dice import DiceSource
from rollbridge.text import Messages, Private
from tests.plugins.rollunder import RollUnder, conformance_of, failure_of

TEST = "test_english_counts_agree_with_their_nouns"
# a domain each: the suite reads every message declared in a domain the examples say
PLAIN = Messages("counts_plain")("strike.hits", "{actor} strikes: {hits} hits")
PLURAL = Messages("counts_plural").plural(
    "strike.counted", "{actor} strikes: {count} hit", "{actor} strikes: {count} hits"
)
# a turn hook's message no example reaches: its {actor} is a name as PLURAL's is
UNREACHED = Messages("counts_plural")("turn.breath", "{actor} catches breath")
SAME = Messages("counts_same").plural("strike.same", "{count} hit", "{count} hit")
FLIPS = Messages("counts_flips")("strike.flips", "{actor} flips")


class Counts(RollUnder):
    """RollUnder whose test adds a step in ``message`` (inline: ``said`` declares it
    where the text is made, as docs/plugins.md allows)."""

    def __init__(self, message: Any = None, said: tuple[str, str] | None = None) -> None:
        self.message = message
        self.said = said

    def resolve(self, context: ActionContext, dice: DiceSource) -> Resolution:
        made = super().resolve(context, dice)
        actor = context.actor.name if context.actor else "?"
        if self.said is not None:  # declared here, as the text is made
            step = Messages("counts_inline")(*self.said)(actor=actor, hits=1)
        elif self.message is SAME:
            step = SAME(count=1)
        elif self.message is FLIPS:
            step = FLIPS(actor=actor)
        else:
            names = self.message.names
            step = self.message(actor=actor, **{"count" if "count" in names else "hits": 1})
        return Resolution(made.narration, made.outcome, steps=[step], dice=made.dice,
                          states=made.states)  # fmt: skip


def test_a_plain_count_before_a_plural_noun_fails_naming_the_message() -> None:
    said = failure_of(Counts(PLAIN), TEST)
    assert "counts_plain.strike.hits: '{actor} strikes: {hits} hits' reads '1 hits'" in said
    assert "say.plural(" in said and "never_one" in said


def test_a_message_declared_where_its_text_is_made_is_read_once_an_example_runs() -> None:
    said = failure_of(Counts(said=("inline.hits", "{actor}: {hits} wounds")), TEST)
    assert "counts_inline.inline.hits: '{actor}: {hits} wounds' reads '1 wounds'" in said


def test_a_plural_whose_singular_is_its_plural_fails() -> None:
    said = failure_of(Counts(SAME), TEST)
    assert "counts_same.strike.same: its singular and its plural are one text" in said


def test_a_plural_message_and_a_name_before_a_verb_pass() -> None:
    conformance_of(Counts(PLURAL)).test_english_counts_agree_with_their_nouns()
    conformance_of(Counts(FLIPS)).test_english_counts_agree_with_their_nouns()


def test_never_one_names_a_count_that_cannot_be_one_and_must_still_be_needed() -> None:
    suite = type("Suite", (type(conformance_of(Counts(PLAIN))),), {})
    suite.never_one = {"counts_plain.strike.hits": "a strike always hits twice"}
    suite().test_english_counts_agree_with_their_nouns()
    suite.ruleset = Counts(PLURAL)
    suite.never_one = {"counts_plural.strike.counted": "no longer needed"}
    try:
        suite().test_english_counts_agree_with_their_nouns()
    except AssertionError as failed:
        assert "never_one names messages that read right at one, drop: " in str(failed)
        assert "counts_plural.strike.counted" in str(failed)
    else:
        raise AssertionError("a stale never_one entry passed")


def test_a_placeholder_the_examples_gave_words_is_a_name_in_every_message_of_its_domain() -> None:
    """A ruleset written from docs/plugins.md (author29's step-die system) failed on its
    turn hook's "{actor} catches breath: …", which no example reached: "catches" read
    as a plural noun after a count. ``{actor}`` was a name in every text the examples
    made of that domain, and is one there too."""
    assert UNREACHED.id == "counts_plural.turn.breath"
    conformance_of(Counts(PLURAL)).test_english_counts_agree_with_their_nouns()


class CountsAsText(RollUnder):
    """RollUnder whose test adds PLURAL's step with ``count`` as given: a count read
    from a parameter as text, a None where no count was found."""

    def __init__(self, count: Any) -> None:
        self.count = count

    def resolve(self, context: ActionContext, dice: DiceSource) -> Resolution:
        made = super().resolve(context, dice)
        step = PLURAL(actor="Hero", count=self.count)
        return replace(made, steps=[step])


@pytest.mark.parametrize(
    ("count", "given"),
    [("1", "str '1'"), (None, "NoneType None"), (True, "bool True"),
     (Private(1.0, of="a1", aspect="sheet"), "float 1.0")],
)  # fmt: skip
def test_a_plural_message_given_a_count_that_is_no_int_fails(count: Any, given: str) -> None:
    """``count="1"`` read "Hero strikes: 1 hits" in English, and every catalogue
    read it in the general plural ("1 zásahů"); the suite passed it (author29)."""
    said = failure_of(CountsAsText(count), TEST)
    assert f"counts_plural.strike.counted: {{count}} given {given}" in said, said
    assert "pass the count as an int" in said


HOOK_PLURAL = Messages("counts_hook").plural(
    "turn.breath", "{actor} sheds {count} point", "{actor} sheds {count} points"
)


class CountsInAHook(RollUnder):
    """RollUnder whose turn hook says :data:`HOOK_PLURAL` with a count read as text."""

    def on_turn_start(self, context: Any, dice: DiceSource) -> Resolution | None:
        actor = context.actor.name if context.actor else "?"
        return Resolution(HOOK_PLURAL(actor=actor, count="2"), {})


def test_a_turn_hooks_plural_given_a_count_that_is_no_int_fails() -> None:
    """The scan read the examples' events taken before the suite's encounter ran: a
    turn hook's texts were never read for their counts (author29, review of its own
    first take)."""
    said = failure_of(CountsInAHook(), TEST)
    assert "counts_hook.turn.breath: {count} given str '2'" in said, said


def test_never_one_naming_no_declared_message_fails_naming_it() -> None:
    """A key without its domain ("strike.hits") exempted nothing and passed silently."""
    suite = type("Suite", (type(conformance_of(Counts(PLAIN))),), {})
    suite.never_one = {"strike.hits": "a strike always hits twice"}
    with pytest.raises(AssertionError) as failed:
        suite().test_english_counts_agree_with_their_nouns()
    assert "never_one names no message of the ruleset's domains" in str(failed.value)
    assert "['strike.hits'] — name each by its id, domain.key" in str(failed.value)


# a placeholder given words in one message ("a sword lands") and a count in another
# ("Hero strikes: 1 hits"): a name across its domain, but a count where it was counted
LANDS = Messages("counts_mixed")("strike.lands", "{hits} lands")
MIXED = Messages("counts_mixed")("strike.hits", "{actor} strikes: {hits} hits")


class Mixed(RollUnder):
    """RollUnder whose test adds :data:`LANDS` (given words) and :data:`MIXED` (given
    a count) as steps."""

    def resolve(self, context: ActionContext, dice: DiceSource) -> Resolution:
        made = super().resolve(context, dice)
        actor = context.actor.name if context.actor else "?"
        steps = [LANDS(hits="a sword"), MIXED(actor=actor, hits=1)]
        return Resolution(made.narration, made.outcome, steps=steps, dice=made.dice,
                          states=made.states)  # fmt: skip


def test_a_count_the_examples_gave_a_number_is_no_name_for_words_elsewhere() -> None:
    """Before (rev29a) a placeholder given words in any message of the domain was a
    name in all of them, even in the message the examples gave it a number: "1 hits"
    passed."""
    said = failure_of(Mixed(), TEST)
    assert "counts_mixed.strike.hits: '{actor} strikes: {hits} hits' reads '1 hits'" in said
