"""Rendering and staging do no work they need not (issue 12 item 6: the execute-and-
stage step counted, docs/performance.md "Execute and stage, counted again"), and the
texts read exactly as before: each test counts the calls a cut removed, and the edge
cases beside it hold the rendered words to what they were before the cut."""

from __future__ import annotations

import pytest

from rollbridge import text
from rollbridge.text import Messages, Private, Text, render

say = Messages("countedtest")
LINE = say("line", "{who} rolls {dice} against {tn}: {chains}")
DICE = say("dice", "{n} dice")
SPEC = say("spec", "{x:+d} and {parts: }")


def _hides(actor: str, aspect: str) -> bool:
    return True


@pytest.fixture
def formats(monkeypatch):
    """How many times a Python ``__format__`` of a rendering wrapper ran."""
    counted = {"n": 0}
    for kind in (text._Verbatim, text._Joined):
        plain_format = kind.__format__

        def counting(self, spec, _format=plain_format):
            counted["n"] += 1
            return _format(self, spec)

        monkeypatch.setattr(kind, "__format__", counting)
    return counted


def test_an_english_template_without_specs_takes_its_arguments_as_plain_strings(formats):
    line = LINE(
        who="Tukan",
        dice=Private(DICE(n=6), of="guard", aspect="sheet", instead=DICE(n=1)),
        tn=Private(4, of="guard"),
        chains=["6+5=11", 3, DICE(n=2)],
    )
    assert render(line) == "Tukan rolls 6 dice against 4: 6+5=11, 3, 2 dice"
    assert render(line, hides=_hides) == "Tukan rolls 1 dice against (hidden): 6+5=11, 3, 2 dice"
    assert formats["n"] == 0  # no wrapper's __format__: none was made


def test_a_template_with_a_spec_still_formats_through_the_wrappers(formats):
    assert (
        render(SPEC(x=Private(3, of="g", instead=5), parts=["a", DICE(n=1)])) == "+3 and a 1 dice"
    )
    assert formats["n"] == 1  # the list joined by its spec (a space)


@pytest.mark.parametrize(
    ("value", "gm", "players"),
    [
        (
            LINE(
                who="X",
                dice=Private(DICE(n=3), of="g", aspect="sheet", instead=["p", DICE(n=1), ["q", 2]]),
                tn=Private(4, of="g"),
                chains=["6+5=11", 3, [1, DICE(n=2)], None, True, 0.5],
            ),
            "X rolls 3 dice against 4: 6+5=11, 3, 1, 2 dice, \u2014, True, 0.5",
            "X rolls p, 1 dice, q, 2 against (hidden): 6+5=11, 3, 1, 2 dice, \u2014, True, 0.5",
        ),
        (
            LINE(
                who="X",
                dice=Private(["a", ["b"]], of="g"),
                tn={"private": [1, [2]], "of": "g"},
                chains=[],
            ),
            "X rolls a, b against 1, 2: ",
            "X rolls (hidden) against (hidden): ",
        ),
        (
            LINE(
                who="X",
                dice={"id": DICE.id, "args": {"n": 2}},
                tn={"private": 5, "of": "g", "instead": ["z", ["y"]]},
                chains=("t", DICE(n=4)),
            ),
            "X rolls 2 dice against 5: t, 4 dice",
            "X rolls 2 dice against z, y: t, 4 dice",
        ),
        (SPEC(x=Private(3, of="g", instead=5), parts=["a", DICE(n=1)]), "+3 and a 1 dice",
         "5 and a 1 dice"),
    ],
)  # fmt: skip
def test_lists_and_hidden_values_read_as_before(value, gm, players):
    """Lists in lists, a list standing instead of a hidden value, stored texts and
    private marks: the words as the wrappers made them before plain strings were
    put in (these strings were rendered by the code before the cut), but for one
    change since: a list inside a list, or standing instead of a hidden value, reads
    as its items joined, not as Python writes a list ("[1, '2 dice']"), which put a
    float's wrapper's repr in Czech, German and Russian (tests/engine/test_text_specs.py);
    and None, which reads as a dash, not Python's "None"."""
    fresh = Text(value.id, value.args)  # no rendering kept from another test
    assert render(fresh) == gm
    assert render(Text(value.id, value.args), hides=_hides) == players


def _counted(monkeypatch, name: str) -> dict[str, int]:
    """Count the calls of ``rollbridge.text``'s function ``name`` (its own recursive
    calls too: they look it up by name)."""
    counted = {"n": 0}
    plain = getattr(text, name)

    def counting(*args):
        counted["n"] += 1
        return plain(*args)

    monkeypatch.setattr(text, name, counting)
    return counted


@pytest.fixture
def renders(monkeypatch):
    """How many times a text was rendered from its template (``_declared``: a stored
    text reaches it through ``_render``, a live one directly)."""
    return _counted(monkeypatch, "_declared")


def _event_data() -> dict:
    """An event's data holding one text whose private argument is the player's own
    (``pc``) and, nested one level down, one of an NPC's (``npc``)."""
    own = LINE(who="Tukan", dice=Private(6, of="pc", aspect="sheet"), tn=4, chains=["6"])
    npc = LINE(
        who="Guard",
        dice=DICE(n=Private(4, of="npc", aspect="sheet", instead="?")),
        tn=3,
        chains=["2"],
    )
    return {"steps": [own, npc]}


def _hides_npc(actor: str, aspect: str) -> bool:
    return actor == "npc"


def test_players_who_may_see_every_private_argument_share_the_gms_rendering(renders):
    data, texts, privates = text.extract(_event_data())
    gm, players = text.view_pair(data, texts, privates, hides=_hides_npc)
    assert gm["steps"] == [
        "Tukan rolls 6 against 4: 6",
        "Guard rolls 4 dice against 3: 2",
    ]
    assert players["steps"] == [
        "Tukan rolls 6 against 4: 6",  # the player's own value: the GM's words
        "Guard rolls ? dice against 3: 2",  # the NPC's, hidden in the nested text
    ]
    # the player's line once (it was twice, once per audience); the NPC's line and
    # its nested text once for the GM and once for players
    assert renders["n"] == 5
    assert players["steps"][0] is gm["steps"][0]


def test_a_hidden_private_argument_anywhere_in_a_text_renders_it_for_players():
    data, texts, privates = text.extract(_event_data())
    gm, players = text.view_pair(data, texts, privates, hides=lambda actor, aspect: True)
    assert players["steps"] == [
        "Tukan rolls (hidden) against 4: 6",
        "Guard rolls ? dice against 3: 2",
    ]
    assert gm == text.view_of(data, texts, privates)
    assert players == text.view_of(data, texts, privates, hides=lambda actor, aspect: True)


def test_the_pair_walk_renders_lone_texts_in_place_and_shares_what_players_see_alike(
    monkeypatch,
):
    calls = _counted(monkeypatch, "_pair")
    seen = LINE(who="Tukan", dice=Private(6, of="pc", aspect="sheet"), tn=4, chains=["6"])
    data, texts, privates = text.extract(
        {"steps": [DICE(n=1), seen, DICE(n=2)], "outcome": {"note": DICE(n=3), "hit": True}}
    )
    gm, players = text.view_pair(data, texts, privates, hides=_hides_npc)
    assert gm == {
        "steps": ["1 dice", "Tukan rolls 6 against 4: 6", "2 dice"],
        "outcome": {"note": "3 dice", "hit": True},
    }
    assert calls["n"] == 3  # the root, steps and outcome: no call per lone text (it was 7)
    # players see all the GM sees: the GM's copies, not second equal ones
    assert players is gm
    gm, hidden = text.view_pair(data, texts, privates, hides=lambda actor, aspect: True)
    assert hidden["steps"][1] == "Tukan rolls (hidden) against 4: 6"
    assert hidden["outcome"] is gm["outcome"]  # nothing hidden there: shared


def test_a_private_argument_seen_is_put_in_without_a_call_per_level(monkeypatch):
    calls = _counted(monkeypatch, "_argument")
    line = LINE(
        who="Tukan",
        dice=Private(DICE(n=6), of="pc", aspect="sheet", instead=DICE(n=1)),
        tn=Private(4, of="npc", aspect="sheet"),
        chains=[],
    )
    assert render(Text(line.id, line.args), hides=_hides_npc) == (
        "Tukan rolls 6 dice against (hidden): "
    )
    # what stands for the hidden value, and the list: two calls; none for a mark, none
    # for the seen text in it (five before: the two marks, the text, "(hidden)", the list)
    assert calls["n"] == 2
    assert render(Text(line.id, line.args)) == "Tukan rolls 6 dice against 4: "


def test_a_list_of_text_is_joined_as_it_is(monkeypatch):
    calls = _counted(monkeypatch, "_argument")
    line = LINE(who="Tukan", dice=6, tn=4, chains=["6+5=11", "3", "2"])
    assert render(Text(line.id, line.args)) == "Tukan rolls 6 against 4: 6+5=11, 3, 2"
    assert calls["n"] == 1  # the list: no call per item (it was four)
    mixed = LINE(who="Tukan", dice=6, tn=4, chains=["6", 3, DICE(n=2)])
    assert render(Text(mixed.id, mixed.args)) == "Tukan rolls 6 against 4: 6, 3, 2 dice"
