"""A private value with a text instead (``Private(value, of, instead=Text)``,
``rollbridge.text``): whoever may see the value gets it as it is — a map too, even
one with an ``id`` — and whoever may not gets the text rendered; in the event as it
is made and as it is stored and read back (docs/plugins.md, "Texts")."""

from __future__ import annotations

from rollbridge.plain import pack, unpack
from rollbridge.text import Messages, Private, extract, stored, view_of, view_pair

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


def test_a_text_instead_is_not_noted_among_the_texts():
    (_, texts, privates), _ = made_and_stored()
    assert texts == []
    assert [entry[0] for entry in privates] == [["target"], ["roll"]]


def test_an_event_stored_when_a_text_instead_was_noted_among_the_texts_reads_as_before():
    (_, _, _), (data, _, privates) = made_and_stored()
    old_texts = [["target"], ["roll"]]  # how events stored before noted them
    players = view_of(data, old_texts, privates, hides=npc_hidden)
    assert players == {"target": "someone hidden", "roll": "someone rolled"}


def test_the_memo_answers_only_for_the_text_it_was_made_for():
    """Rendered texts are kept by the id of the stored text: an entry left by
    another object under the same id (a freed one's, reused) is not taken."""
    text = stored(SOMEONE(what="here"))
    memo = {id(text): ({"id": "another"}, "someone else")}
    assert view_of({"t": text}, [["t"]], [], memo=memo) == {"t": "someone here"}
    assert memo[id(text)] == (text, "someone here")
    assert view_of({"t": text}, [["t"]], [], memo=memo) == {"t": "someone here"}
