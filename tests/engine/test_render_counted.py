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
            "X rolls 3 dice against 4: 6+5=11, 3, [1, '2 dice'], None, True, 0.5",
            "X rolls ['p', '1 dice', ['q', 2]] against (hidden): 6+5=11, 3, [1, '2 dice'], None, "
            "True, 0.5",
        ),
        (
            LINE(
                who="X",
                dice=Private(["a", ["b"]], of="g"),
                tn={"private": [1, [2]], "of": "g"},
                chains=[],
            ),
            "X rolls a, ['b'] against 1, [2]: ",
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
            "X rolls 2 dice against ['z', ['y']]: t, 4 dice",
        ),
        (SPEC(x=Private(3, of="g", instead=5), parts=["a", DICE(n=1)]), "+3 and a 1 dice",
         "5 and a 1 dice"),
    ],
)  # fmt: skip
def test_lists_and_hidden_values_read_as_before(value, gm, players):
    """Lists in lists, a list standing instead of a hidden value, stored texts and
    private marks: the words as the wrappers made them before plain strings were
    put in (these strings were rendered by the code before the cut)."""
    fresh = Text(value.id, value.args)  # no rendering kept from another test
    assert render(fresh) == gm
    assert render(Text(value.id, value.args), hides=_hides) == players
