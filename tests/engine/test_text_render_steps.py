"""Rendering a text takes no step it need not (issue 12 item 6: docs/performance.md
"Rendering texts, counted (7 December)"), and reads exactly as before: each test
counts the calls a cut removed, and the cases beside it hold the words to what they
were before the cut (the benchmark's digests hold every byte on the wire and in the
store)."""

from __future__ import annotations

import sys

import pytest

from rollbridge import text
from rollbridge.text import Messages, Places, Private, Text, render, view_pair

say = Messages("stepstest")
OUTER = say("outer", "{who} rolls {dice} ({part})")
DICE = say("dice", "{n} dice")
PART = say("part", "{name} at {tn}")


def _hides(actor: str, aspect: str) -> bool:
    return actor == "guard"


def _counted(monkeypatch, name: str) -> dict[str, int]:
    """How many times ``rollbridge.text.<name>`` runs from now on."""
    counted = {"n": 0}
    original = getattr(text, name)

    def counting(*args, **kwargs):
        counted["n"] += 1
        return original(*args, **kwargs)

    monkeypatch.setattr(text, name, counting)
    return counted


@pytest.fixture
def looked_up(monkeypatch):
    """How many times :func:`rollbridge.text._render` (the id's and the renamings'
    look-up a stored text needs) ran."""
    return _counted(monkeypatch, "_render")


def _line() -> Text:
    return OUTER(
        who="Tukan",
        dice=Private(DICE(n=6), of="guard", aspect="sheet", instead=DICE(n=1)),
        part=PART(name="range", tn=Private(4, of="tukan", aspect="sheet")),
    )


def test_a_live_text_and_its_nested_texts_render_without_the_stored_text_look_up(looked_up):
    """A live :class:`Text` names a declared message: it and the texts nested in it
    (none rendered yet) are rendered from their message, never through the look-up
    of an id and its renamings a stored text takes (one call per text before)."""
    line = _line()
    assert render(line) == "Tukan rolls 6 dice (range at 4)"
    assert render(line, hides=_hides) == "Tukan rolls 1 dice (range at 4)"
    gm, players = view_pair({"narration": line}, [["narration"]], [], hides=_hides)
    assert gm == {"narration": "Tukan rolls 6 dice (range at 4)"}
    assert players == {"narration": "Tukan rolls 1 dice (range at 4)"}
    assert looked_up["n"] == 0


def test_stored_texts_still_take_the_look_up_and_read_as_before(looked_up):
    stored = text.stored_data({"narration": _line()})["narration"]
    assert render(stored) == "Tukan rolls 6 dice (range at 4)"
    assert render(stored, hides=_hides) == "Tukan rolls 1 dice (range at 4)"
    assert looked_up["n"] > 0
    assert render({"id": "stepstest.nothing", "args": {"x": 1}}) == "[stepstest.nothing] x=1"


def test_an_undeclared_live_text_is_still_refused():
    with pytest.raises(text.NotPlain, match="is not a declared message"):
        render(Text("stepstest.nothing", {"x": 1}))


def test_a_live_text_kept_in_another_language_is_read_from_its_generation(monkeypatch):
    """A nested text rendered in German before is read from what it keeps for the
    catalogues' generation; a :func:`rollbridge.text.forget` renders it anew."""
    part = PART(name="x", tn=3)
    first = render(OUTER(who="A", dice="d", part=part), locale="de")
    assert ("de", text.catalogue_generation()) in part._rendered
    assert render(OUTER(who="A", dice="d", part=part), locale="de") == first
    text.forget("stepstest")
    assert render(OUTER(who="A", dice="d", part=part), locale="de") == first
    assert ("de", text.catalogue_generation()) in part._rendered


@pytest.fixture
def walked(monkeypatch):
    """How many times :func:`rollbridge.text._extract` (one call per value walked) ran."""
    return _counted(monkeypatch, "_extract")


def test_a_private_scalar_is_taken_out_without_a_walk_of_its_value(walked):
    """A private value that is a number, a string, a yes/no or None (an NPC's armour,
    most private values) is taken out where its mark is met: no call to walk it."""
    out = {
        "outcome": {
            "armor": Private(4, of="guard", aspect="sheet"),
            "name": Private("Guard", of="guard"),
            "dead": Private(False, of="guard", instead=None),
            "odds": Private(0.5, of="guard"),
            "nothing": Private(None, of="guard"),
            "part": Private(DICE(n=2), of="guard", instead=DICE(n=1)),
            "track": Private({"stun": 1}, of="guard"),
        }
    }
    data, texts, privates = text.extract(out)
    # the two maps, each mark, the text and the track, the two ``instead``s: 13, where
    # each of the five scalars took a call of its own before (18)
    assert walked["n"] == 2 + 7 + 2 + 2
    assert data == {
        "outcome": {
            "armor": 4,
            "name": "Guard",
            "dead": False,
            "odds": 0.5,
            "nothing": None,
            "part": out["outcome"]["part"].value,
            "track": {"stun": 1},
        }
    }
    assert texts == [["outcome", "part"], ["outcome", "part"]]
    assert privates == [
        [["outcome", "armor"], "guard", "sheet"],
        [["outcome", "name"], "guard", "details"],
        [["outcome", "dead"], "guard", "details", None, False],
        [["outcome", "odds"], "guard", "details"],
        [["outcome", "nothing"], "guard", "details"],
        [["outcome", "part"], "guard", "details", DICE(n=1), True],
        [["outcome", "track"], "guard", "details"],
    ]


CHAINS = say("chains", "{who}: {chains}")


class _CountingVar:
    """A stand-in for the renderer's context variable of the containers it reads,
    counting what it is given to note."""

    def __init__(self, real):
        self.real, self.sets = real, 0

    def get(self):
        return self.real.get()

    def set(self, value):
        self.sets += 1
        return self.real.set(value)

    def reset(self, token):
        self.real.reset(token)


@pytest.fixture
def noted(monkeypatch):
    counting = _CountingVar(text._containers_read)
    monkeypatch.setattr(text, "_containers_read", counting)
    return counting


def test_a_list_of_text_alone_is_joined_without_noting_it(noted):
    """A list of strings (a roll's dice chains) holds no list that could hold it: it
    is joined where it is met, without noting it among the containers being read."""
    assert render(CHAINS(who="Tukan", chains=["6+5=11", "3", "2"])) == "Tukan: 6+5=11, 3, 2"
    assert render(CHAINS(who="Tukan", chains=[])) == "Tukan: "
    assert noted.sets == 0
    mixed = CHAINS(who="T", chains=["a", 1, None, ["b", DICE(n=2)], Private("c", of="g")])
    assert render(mixed) == "T: a, 1, \u2014, b, 2 dice, c"
    assert render(mixed, hides=_hides) == "T: a, 1, \u2014, b, 2 dice, c"
    assert render(mixed, hides=lambda a, s: True) == "T: a, 1, \u2014, b, 2 dice, (hidden)"
    assert noted.sets == 6  # each list holding more than text, for each of the three


def test_a_list_nested_past_the_bound_still_reads_as_an_ellipsis():
    nested: list = ["deep"]
    for _ in range(40):
        nested = [nested]
    looped: list = ["x"]
    looped.append(looped)
    assert render(CHAINS(who="A", chains=nested)) == "A: \u2026"
    assert render(CHAINS(who="A", chains=[["a", "b"], "c"])) == "A: a, b, c"
    assert render(CHAINS(who="A", chains=looped)) == "A: x, \u2026"


def _calls_in(work, *besides: object) -> list[str]:
    """The names of the functions, Python's and C's, ``work()`` called (a profile),
    but for the methods of the objects ``besides`` (the test's own lists)."""
    names: list[str] = []

    def profile(frame, event, arg):
        if event == "call":
            names.append(frame.f_code.co_name)
        elif event == "c_call" and not any(getattr(arg, "__self__", None) is b for b in besides):
            names.append(arg.__name__)

    sys.setprofile(profile)
    try:
        work()
    finally:
        sys.setprofile(None)
    return names


def test_the_pair_walk_notes_no_list_of_marks_and_reads_as_before():
    """The pair walk asks players' ``hides`` of each private mark the GM's rendering
    meets, until one is hidden, as it did; it keeps a flag, not a list of the marks
    (one ``append`` a mark and a ``clear`` a text before)."""
    asked: list[tuple[str, str]] = []

    def players(actor: str, aspect: str) -> bool:
        asked.append((actor, aspect))
        return actor == "guard"

    seen = PART(name="range", tn=Private(4, of="tukan", aspect="sheet"))
    data = {"steps": [_line(), seen, DICE(n=2)], "narration": _line()}
    texts = [["steps", 0], ["steps", 1], ["steps", 2], ["narration"]]
    made: list = []
    names = _calls_in(lambda: made.append(view_pair(data, texts, [], hides=players)), made, asked)
    gm, shown = made[0]
    assert gm == {
        "steps": ["Tukan rolls 6 dice (range at 4)", "range at 4", "2 dice"],
        "narration": "Tukan rolls 6 dice (range at 4)",
    }
    assert shown == {
        "steps": ["Tukan rolls 1 dice (range at 4)", "range at 4", "2 dice"],
        "narration": "Tukan rolls 1 dice (range at 4)",
    }
    assert shown["steps"][1] is gm["steps"][1]  # seen alike: rendered once
    # the GM's renderings ask of each mark until one is hidden (the guard's dice come
    # first), and the players' renderings ask again of what they meet
    assert asked == [("guard", "sheet"), ("guard", "sheet"), ("tukan", "sheet"), ("tukan", "sheet"),
                     ("guard", "sheet"), ("guard", "sheet"), ("tukan", "sheet")]  # fmt: skip
    assert "clear" not in names
    assert "append" not in names


def test_a_tree_of_places_is_looked_up_without_a_comprehension():
    texts = [["narration"], ["steps", 0]]
    privates = [[["outcome", "armor"], "guard", "sheet"], [["params", "pool"], "tukan", "sheet"]]
    first = Places.of(texts, privates)
    names = _calls_in(lambda: Places.of(texts, privates))
    assert Places.of(texts, privates) is first
    assert "<listcomp>" not in names
    assert set(first.children) == {"narration", "steps", "outcome", "params"}
    assert first.children["outcome"].children["armor"].privates == (0,)
    assert first.children["params"].children["pool"].privates == (1,)
