"""A private value with a text instead (``Private(value, of, instead=Text)``,
``rollbridge.text``): whoever may see the value gets it as it is — a map too, even
one with an ``id`` — and whoever may not gets the text rendered; in the event as it
is made and as it is stored and read back (docs/plugins.md, "Texts")."""

from __future__ import annotations

from rollbridge.plain import pack, unpack
from rollbridge.text import Messages, Places, Private, extract, stored, view_of, view_pair

say = Messages("instead_tests")
SOMEONE = say("someone", "someone {what}")
TARGET = {"id": "goblin-1", "name": "Grik", "hp": 7}


def npc_hidden(of: str, aspect: str) -> bool:
    return of == "goblin-1"


def made_and_stored():
    """The data, texts and privates as extract makes them, and as read back."""
    data, texts, privates = extract(
        {"target": Private(TARGET, of="goblin-1", instead=SOMEONE(what="hidden")),
         "roll": Private(17, of="goblin-1", instead=SOMEONE(what="rolled"))}
    )  # fmt: skip
    back = unpack(pack({"data": data, "texts": texts, "private": privates}, stored))
    return (data, texts, privates), (back["data"], back["texts"], back["private"])


def test_the_gm_gets_the_private_map_and_players_the_text_instead():
    for data, texts, privates in made_and_stored():
        gm = view_of(data, texts, privates)
        players = view_of(data, texts, privates, hides=npc_hidden)
        assert gm == {"target": TARGET, "roll": 17}
        assert players == {"target": "someone hidden", "roll": "someone rolled"}
        assert view_pair(data, texts, privates, hides=npc_hidden) == (gm, players)


def test_a_text_instead_is_marked_in_its_entry():
    """The entry marks its instead a text; where the value is not a map, its place
    is noted among the texts too, as code that reads events without the mark did."""
    (_, texts, privates), (_, back_texts, back_privates) = made_and_stored()
    assert texts == back_texts == [["roll"]]
    for entries in (privates, back_privates):
        assert [(entry[0], entry[4]) for entry in entries] == [(["target"], True), (["roll"], True)]


def test_an_instead_that_is_not_a_text_is_shown_as_it_is():
    """A map instead, even one shaped like a stored text, and one beside a value
    that is a text: players get the map as it is."""
    looks_like_a_text = {"id": "n1", "args": {"what": "x"}}
    made = extract(
        {"a": Private(5, of="goblin-1", instead=looks_like_a_text),
         "b": Private(SOMEONE(what="real"), of="goblin-1", instead={"id": "n1", "name": "x"})}
    )  # fmt: skip
    back = unpack(pack(dict(zip(("data", "texts", "private"), made, strict=True)), stored))
    for data, texts, privates in (made, tuple(back.values())):
        players = view_of(data, texts, privates, hides=npc_hidden)
        assert players == {"a": looks_like_a_text, "b": {"id": "n1", "name": "x"}}
        gm = view_of(data, texts, privates)
        assert gm == {"a": 5, "b": "someone real"}
        assert view_pair(data, texts, privates, hides=npc_hidden) == (gm, players)


def test_an_event_stored_before_the_mark_reads_as_it_did():
    """Entries of four items, a text instead noted at its place among the texts."""
    (_, _, _), (data, _, privates) = made_and_stored()
    old_privates = [entry[:4] for entry in privates]
    old_texts = [["target"], ["roll"]]
    players = view_of(data, old_texts, old_privates, hides=npc_hidden)
    assert players == {"target": "someone hidden", "roll": "someone rolled"}


def test_the_memo_answers_only_for_the_text_it_was_made_for():
    """Rendered texts are kept by the id of the stored text: an entry left by
    another object under the same id (a freed one's, reused) is not taken."""
    text = stored(SOMEONE(what="here"))
    memo = {id(text): ({"id": "another"}, "someone else")}
    assert view_of({"t": text}, [["t"]], [], memo=memo) == {"t": "someone here"}
    assert memo[id(text)] == (text, "someone here")
    assert view_of({"t": text}, [["t"]], [], memo=memo) == {"t": "someone here"}


def test_events_of_one_shape_share_a_tree_and_show_their_own_values():
    """``Places.of`` keeps one tree per shape of paths; the tree holds no entry,
    only its index, so each event shows its own values and its own instead."""
    one = extract({"roll": Private(17, of="goblin-1", instead=SOMEONE(what="low")),
                   "who": Private("Grik", of="goblin-1")})  # fmt: skip
    other = extract({"roll": Private(3, of="goblin-1", instead=SOMEONE(what="high")),
                     "who": Private("Grak", of="goblin-1")})  # fmt: skip
    assert Places.of(one[1], one[2]) is Places.of(other[1], other[2])
    assert view_pair(*one, hides=npc_hidden) == (
        {"roll": 17, "who": "Grik"},
        {"roll": "someone low"},
    )
    assert view_pair(*other, hides=npc_hidden) == (
        {"roll": 3, "who": "Grak"},
        {"roll": "someone high"},
    )
    assert view_of(*other, hides=npc_hidden) == {"roll": "someone high"}
