"""``Messages.renamed``: the texts older tables keep under a message id their ruleset
renamed since read as the new message, in every language (docs/plugins.md, "Text as
data"). wilddie split ``roll.kept`` ("kept the {die} die", ``die`` an English word
inside every translation) into one message per die on 2 December; the events of
tables played before read ``[wilddie.roll.kept] die=trait, total=13`` in every export
and history (found verifying the upgrade fixtures, tests/cli/test_upgrade_verify.py)."""

from __future__ import annotations

import pytest

from rollbridge.exceptions import PluginError
from rollbridge.plugins.bandits import BanditsRuleset
from rollbridge.testing import RulesetConformance
from rollbridge.text import Messages, privates_met, render, unreadable_renamings

say = Messages("renamedtest")
KEPT_TRAIT = say("kept.trait", "kept the trait die: {total}")
KEPT_WILD = say("kept.wild", "kept the wild die: {total}")
WHOLE = say("whole.new", "the whole roll of {actor}")
say.renamed("kept", by="die", keys={"trait": "kept.trait", "wild": "kept.wild"})
say.renamed("whole", to="whole.new")


@pytest.mark.parametrize(
    ("stored", "shown"),
    [
        ({"id": "renamedtest.kept", "args": {"die": "trait", "total": 1}}, "kept the trait die: 1"),
        ({"id": "renamedtest.kept", "args": {"die": "wild", "total": 7}}, "kept the wild die: 7"),
        ({"id": "renamedtest.whole", "args": {"actor": "Ana"}}, "the whole roll of Ana"),
        # a value the renaming does not name: the old id, read as no declared message
        ({"id": "renamedtest.kept", "args": {"die": "third", "total": 2}},
         "[renamedtest.kept] die=third, total=2"),
    ],
)  # fmt: skip
def test_an_older_tables_text_reads_as_the_new_message(stored, shown):
    assert render(stored) == shown


def test_the_old_key_of_a_declared_message_cannot_be_renamed():
    with pytest.raises(PluginError, match="is a declared message"):
        say.renamed("kept.trait", to="kept.wild")


@pytest.mark.parametrize("given", [{}, {"to": "kept.wild", "by": "die", "keys": {}}])
def test_a_renaming_names_either_its_key_or_its_argument(given):
    with pytest.raises(PluginError, match="either to=KEY or by=ARGUMENT"):
        say.renamed("gone", **given)


def test_wilddies_older_kept_die_reads_in_each_language():
    """wilddie's own renames: the stored text of 279420a's tables, in English and in
    Czech (the die's word is the translation's, not the English argument's)."""
    import rollbridge.plugins.wilddie.messages  # noqa: F401  (declares the renames)

    stored = {"id": "wilddie.roll.kept", "args": {"die": "wild", "total": 9}}
    assert render(stored) == "kept the wild die: 9"
    czech = render(stored, locale="cs")
    assert not czech.startswith("[") and "9" in czech and "wild" not in czech, czech


CHAINED = say("chained.newest", "the newest wording for {actor}")
say.renamed("chained.middle", to="chained.newest")
say.renamed("chained.oldest", to="chained.middle")
say.renamed("loop.one", to="loop.two")
say.renamed("loop.two", to="loop.one")


def test_an_id_renamed_twice_reads_as_the_newest_message():
    """A message renamed old → middle → newest: the oldest tables' texts read as the
    newest message, not as the middle id nobody declares any more."""
    stored = {"id": "renamedtest.chained.oldest", "args": {"actor": "Ana"}}
    assert render(stored) == "the newest wording for Ana"


def test_renamings_that_lead_round_stop_at_an_undeclared_id():
    """Two renamings that point at each other (a plugin's mistake) end in an
    undeclared id's reading instead of a loop."""
    assert render({"id": "renamedtest.loop.one", "args": {"n": 1}}).endswith("n=1")


class _Misrenamed(BanditsRuleset):
    """bandits under the id of a domain whose renaming names a misspelt key."""

    id = "renamedsuite"


_suite_say = Messages("renamedsuite")
_suite_say("kept.trait", "kept the trait die: {total}")
_suite_say.renamed("kept", by="die", keys={"trait": "kept.trait", "wild": "kept.wlid"})
_suite_say.renamed("first", to="second")
_suite_say.renamed("second", to="kept.trait")


def test_the_conformance_suite_names_a_renaming_to_no_declared_message():
    """A misspelt new key would leave the older tables' texts reading ``[domain.key]
    arg=value``; the suite names it (and follows a chain to a declared message)."""
    suite = type("Suite", (RulesetConformance,), {"ruleset": _Misrenamed(), "seeds": (1,)})()
    with pytest.raises(AssertionError) as failed:
        suite.test_renamed_messages_read_as_declared_ones()
    assert str(failed.value).splitlines()[0] == (
        "renamed to no declared message: renamedsuite.kept -> renamedsuite.kept.wlid"
    )


def test_the_rulesets_renamings_read_as_declared_messages():
    """wilddie's own renamings lead to declared messages; the loop above does not."""
    import rollbridge.plugins.wilddie.messages  # noqa: F401  (declares the renames)

    assert unreadable_renamings("wilddie") == []
    assert unreadable_renamings("renamedtest") == [
        ("renamedtest.loop.one", "renamedtest.loop.two"),
        ("renamedtest.loop.two", "renamedtest.loop.one"),
    ]


def _private(value):
    return {"private": value, "of": "npc1", "aspect": "sheet"}


def _hidden(of, aspect):
    return True


def test_a_private_value_chooses_the_new_message_for_whoever_sees_it():
    """An older text whose choosing argument is private (an NPC's die): the GM reads
    the new message; a player, from whom it is hidden, the old id with the value
    hidden (the new message would tell which die it was)."""
    stored = {"id": "renamedtest.kept", "args": {"die": _private("wild"), "total": 4}}
    assert render(stored) == "kept the wild die: 4"
    assert render(stored, hides=_hidden) == "[renamedtest.kept] die=(hidden), total=4"


def test_a_private_choosing_value_counts_as_a_private_argument_met():
    """A view whose texts read differently by audience must not be shared: reading an
    older text by a private choosing value moves privates_met, as any private does."""
    stored = {"id": "renamedtest.kept", "args": {"die": _private("trait"), "total": 4}}
    before = privates_met()
    render(stored)
    assert privates_met() > before


@pytest.mark.parametrize("locale", ["en", "cs", "de", "ru"])
def test_bandits_older_hidden_number_reads_as_it_did(locale):
    """bandits' texts of tables played before its hidden number became a plain "?"
    hold the id ``bandits.hidden.number`` (``− ? (Guard's Armour)`` as a player reads
    an NPC's armour); it read ``[bandits.hidden.number]``."""
    import rollbridge.plugins.bandits.messages  # noqa: F401  (declares it)

    assert render({"id": "bandits.hidden.number", "args": {}}, locale=locale) == "?"
