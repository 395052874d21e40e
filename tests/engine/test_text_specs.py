"""A ruleset's message argument its format spec does not fit (None or a float under
``{armour:d}``, text under ``{n:,}``) reads as its plain value, without the spec, and
a WARNING names the message, the argument and the spec once; it never takes the
table's request down. Before, rendering raised (``ValueError``, ``TypeError``) while a
view was built and the whole request failed as "ruleset failed"; a float inside a list
argument read as ``<rollbridge.text._Number object at 0x…>`` in Czech, German and
Russian; a plain map argument recursed without end; a stored text without its
arguments raised ``KeyError``.

The property test renders every plain type of argument under templates with common
specs, in the four locales, for the GM and for players, live and in the stored form
the table keeps (:func:`rollbridge.text.view_pair`), and holds each rendering to what
``format`` writes with the spec, or without it where the spec does not fit.
"""

from __future__ import annotations

import logging

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rollbridge import i18n, text
from rollbridge.contract import Resolution
from rollbridge.testing import RulesetHarness
from rollbridge.text import (
    FALSE,
    HIDDEN,
    NOTHING,
    TRUE,
    Messages,
    Private,
    extract,
    misformatted,
    render,
    stored_data,
    view_pair,
)
from tests.catalogue_files import write_catalogue
from tests.conftest import Tally

say = Messages("spectest")
LOCALES = ("en", "cs", "de", "ru")
#: Format specs rulesets write, and some they write by mistake.
SPECS = ("", "d", "+d", ",", ",d", "05d", ".1f", ".2f", "+.1f", ",.1f", ".1%", ".0%",
         ">5", "<4", "^6", "x", "e", "g", "s", "c", " ", " / ")  # fmt: skip
#: One message per spec: ``"<{v:spec}>"``.
SHAPED = {spec: say(f"shaped.{index}", f"<{{v:{spec}}}>") for index, spec in enumerate(SPECS)}
ARMOUR = say("armour", "{target} has armour {armour:d}")
LISTED = say("listed", "rolls: {rolls}")
TWO = say("two", "{a:d} and {b:.1f}")
WARNED = say("warned", "{target} has a shield {shield:d}")

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=False, allow_infinity=False),  # plain data: finite (packing)
    st.text(alphabet=st.characters(codec="ascii"), max_size=8),
    st.text(max_size=8),
)
PLAIN = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.text(alphabet="abcxyz", min_size=1, max_size=3), inner, max_size=2),
    ),
    max_leaves=6,
)


def _all(actor: str, aspect: str) -> bool:
    return True


def _expected(value, spec: str, locale: str) -> str | None:
    """What a scalar argument reads as for the GM: ``format`` with the spec, or
    without it where the spec does not fit; the reader's decimal point for a number;
    a yes/no word outside English. None where the test does not foretell it (text with
    right-to-left letters is isolated; lists and maps are checked otherwise)."""
    if value is None:  # a dash, with any spec (one that does not fit it: noted)
        return NOTHING
    if value.__class__ is bool and locale != "en":
        return (TRUE if value else FALSE)().render(locale)
    if value.__class__ is str and not value.isascii():
        return None
    if value.__class__ in (int, float) and locale != "en":
        try:
            return i18n.number(value, spec, locale)
        except (ValueError, TypeError, OverflowError):
            return i18n.number(value, "", locale)
    if value is None or value.__class__ in (int, float, str, bool):
        try:
            return format(value, spec)
        except (ValueError, TypeError, OverflowError):
            return format(value, "")
    return None


def _fits(value, spec: str, locale: str) -> bool:
    """Whether the spec fits a scalar as the renderer formats it (a yes/no word
    outside English takes any spec)."""
    if value.__class__ is bool and locale != "en":
        return True
    try:
        format(value, spec)
    except (ValueError, TypeError, OverflowError):
        return False
    return True


def _renderings(made, locale: str) -> tuple[str, str, str, str]:
    """The text for the GM and for players, live and as the table's views give it from
    the stored form."""
    live_gm = render(made, locale=locale)
    live_players = render(made, locale=locale, hides=_all)
    data, texts, privates = extract({"narration": made})
    gm, players = view_pair(stored_data(data), texts, privates, hides=_all, locale=locale)
    return live_gm, live_players, gm["narration"], players["narration"]


@settings(max_examples=1000, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
@given(
    value=PLAIN,
    spec=st.sampled_from(SPECS),
    locale=st.sampled_from(LOCALES),
    private=st.booleans(),
)
def test_every_plain_argument_renders_under_every_spec(value, spec, locale, private):
    argument = Private(value, of="npc", aspect="sheet") if private else value
    before = misformatted()
    live_gm, live_players, gm, players = _renderings(SHAPED[spec](v=argument), locale)
    for said in (live_gm, live_players, gm, players):
        assert said.__class__ is str and said.startswith("<") and said.endswith(">")
        assert " object at 0x" not in said and "rollbridge." not in said
    assert gm == live_gm and players == live_players
    if private:
        assert players == f"<{HIDDEN().render(locale)}>"
    else:
        assert players == gm
    expected = _expected(value, spec, locale)
    if expected is not None:
        assert gm == f"<{expected}>"
    if value is None or value.__class__ in (int, float, str, bool):
        slipped = misformatted() != before
        assert slipped == (not _fits(value, spec, locale))


@pytest.mark.parametrize("locale", LOCALES)
def test_a_float_inside_a_list_reads_with_the_readers_decimal_point(locale):
    said = render(LISTED(rolls=[0.5, 2, [1.25, None], Private(3.5, of="npc")]), locale=locale)
    point = i18n.DECIMAL_SEPARATORS[locale]
    assert said == f"rolls: 0{point}5, 2, 1{point}25, \u2014, 3{point}5"
    spaced = say("spaced", "rolls: {rolls: }")(rolls=[0.5, 1.5])
    assert render(spaced, locale=locale) == f"rolls: 0{point}5 1{point}5"


def test_a_plain_map_argument_reads_as_its_entries():
    said = render(LISTED(rolls={"fire": 2, "cold": 0.5}), locale="de")
    assert said == "rolls: fire: 2, cold: 0,5"


def test_a_spec_that_does_not_fit_reads_plain_and_warns_once(caplog):
    caplog.set_level(logging.WARNING, logger="rollbridge.text")
    first = render(WARNED(target="Guard", shield=1.5), locale="cs")
    again = render(WARNED(target="Guard", shield=None), locale="en")
    assert (first, again) == ("Guard has a shield 1,5", "Guard has a shield \u2014")
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1, warnings
    assert "'spectest.warned'" in warnings[0] and "'shield'" in warnings[0]
    assert "'d'" in warnings[0]
    assert ("spectest.warned", "shield", "d", "float") in misformatted()
    assert ("spectest.warned", "shield", "d", "NoneType") in misformatted()


def test_only_the_argument_that_does_not_fit_loses_its_spec():
    assert render(TWO(a=2.5, b=0.25), locale="de") == "2,5 and 0,2"  # .1f kept for b
    assert render(TWO(a=3, b="x"), locale="en") == "3 and x"


@pytest.mark.parametrize("locale", LOCALES)
def test_an_integer_out_of_a_characters_range_under_c_reads_plain(locale):
    """``{v:c}`` given -1 or 2**40 raised ``OverflowError``, which neither the first
    filling nor the lenient one caught: the table's request failed with a traceback."""
    before = misformatted()
    for value in (-1, 2**40):
        said = render(SHAPED["c"](v=value), locale=locale)
        assert said == f"<{i18n.number(value, '', locale)}>"
    key = (SHAPED["c"].id, "v", "c", "int")
    assert misformatted()[key] == before.get(key, 0) + 2
    assert render(SHAPED["c"](v=65), locale=locale) == "<A>"  # one it fits keeps it


def test_a_stored_text_without_its_arguments_reads_hidden_there():
    assert render({"id": ARMOUR.id}, locale="ru") == "(скрыто) has armour (скрыто)"
    assert render({"id": ARMOUR.id, "args": {"target": "A"}}) == "A has armour (hidden)"
    assert render({"id": ARMOUR.id, "args": [1]}) == "(hidden) has armour (hidden)"


def test_a_stored_text_without_an_argument_is_warned_of_once(caplog):
    """A table's old event, stored by a version of its ruleset whose message had fewer
    placeholders, is read at every view for every reader: it logged a WARNING each
    time, flooding the server's log with one line per reader and request."""
    caplog.set_level(logging.WARNING, logger="rollbridge.text")
    old = {"id": LISTED.id, "args": {}}
    said = [render(old, locale=locale) for locale in ("en", "de", "en", "ru")]
    assert said[0] == said[2] == "rolls: (hidden)" and said[1] == "rolls: (verborgen)"
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warnings == [
        "message 'spectest.listed' has no argument 'rolls' (stored by another version of "
        "it?); it reads as hidden"
    ]


def test_a_map_whose_id_names_no_message_reads_as_such():
    assert render({"id": ["x"], "args": {}}) == "[['x']]"


class _ArmouredTally(Tally):
    """Tally whose narration gives a float where its message's spec takes integers."""

    def resolve(self, context, dice):
        result = super().resolve(context, dice)
        target = context.targets[0]
        narration = ARMOUR(target=target.name, armour=Private(1.5, of=target.id))
        return Resolution(narration, result.outcome, dice=result.dice, states=result.states,
                          steps=result.steps)  # fmt: skip


def test_the_tables_request_goes_through_with_the_plain_value(caplog):
    """Before, the request failed as a whole: ``internal``, "ruleset 'tally' failed"."""
    harness = RulesetHarness(_ArmouredTally(), settings={"ruleset": {"show_damage": True}})
    guard = harness.add_actor("Guard", {"hp": 6})
    event = harness.resolve("hit", targets=[guard], params={"bonus": 1})
    assert event["data"]["narration"] == "Guard has armour 1.5"
    gm, players = harness.views(locale="de")
    assert gm["data"]["narration"] == "Guard has armour 1,5"
    assert players["data"]["narration"] == "Guard has armour (verborgen)"
    assert harness.table.actors[guard].state["damage"] > 0
    assert text.misformatted()[("spectest.armour", "armour", "d", "float")] >= 1


@pytest.mark.parametrize(("locale", "said"), [("en", "1,000"), ("de", "1.000"), ("cs", "1\xa0000")])
def test_a_private_integer_is_grouped_as_the_reader_groups_digits(locale, said):
    """A private integer under ``{limit:,}`` read "1,000" in German (one, there) and in
    Czech: only an argument given as it is was a number of the reader's language."""
    limit = say("limit", "at most {limit:,}")(limit=Private(1000, of="npc"))
    assert render(limit, locale=locale) == f"at most {said}"
    data, texts, privates = extract({"narration": limit})
    gm, _ = view_pair(stored_data(data), texts, privates, hides=_all, locale=locale)
    assert gm["narration"] == f"at most {said}"


@pytest.mark.parametrize(
    ("locale", "translated", "said"),
    [("de", "höchstens {limit:,} Würfel", "höchstens 1.000.000 Würfel"),
     ("cs", "nejvýše {limit:,} kostek", "nejvýše 1\xa0000\xa0000 kostek")],
)  # fmt: skip
def test_a_grouping_spec_only_the_translation_gives_groups_as_its_reader_does(
    locale, translated, said, tmp_path
):
    """A translation that groups a count the English writes plainly (``{limit}``)
    read "1,000,000" in German and Czech: a comma their readers take for a decimal
    point (one, in German). Only the English template's specs made a count a number
    of the reader's language."""
    english = "at most {limit} dice"
    folder = write_catalogue(tmp_path, locale, "transgrouped", {"limit": (english, translated)})
    limit = Messages("transgrouped", catalogs=folder)("limit", english)
    assert render(limit(limit=1_000_000), locale=locale) == said
    assert render(limit(limit=Private(1_000_000, of="npc")), locale=locale) == said
    assert render(limit(limit=1_000_000), locale="en") == "at most 1000000 dice"
    data, texts, privates = extract({"narration": limit(limit=1_000_000)})
    gm, _ = view_pair(stored_data(data), texts, privates, hides=_all, locale=locale)
    assert gm["narration"] == said


@pytest.mark.parametrize("locale", LOCALES)
def test_none_reads_as_a_dash_in_every_language_for_every_audience(locale):
    """A ruleset's None (an actor without armour, a roll not made) is no word of a
    reader's: it reads as a dash, not Python's "None", live and stored, seen or hidden
    behind a private mark's stand-in."""
    made = LISTED(rolls=None)
    live_gm, live_players, gm, players = _renderings(made, locale)
    assert {live_gm, live_players, gm, players} == {"rolls: \u2014"}
    private = LISTED(rolls=Private(None, of="npc", instead=None))
    live_gm, live_players, gm, players = _renderings(private, locale)
    assert {live_gm, live_players, gm, players} == {"rolls: \u2014"}
    assert "None" not in render(LISTED(rolls=[None, 1, [None]]), locale=locale)
