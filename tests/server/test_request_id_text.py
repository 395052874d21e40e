"""A request id is text one person sends to everyone at the table (a red-team
pass): each event names the request it answers (``request``) to every member, and
the id was any valid Unicode of 1-64 characters, so a player's id holding a
bidirectional override (U+202E), an ESC sequence or a line break reached the GM's
and every other client's event, and every export, as it was, while the same
characters in a label were refused. Such an id is refused now, before anything is
done (``invalid_request``, ``"id": null``, ``details.field`` ``id``), over JSON and
msgpack alike; ids of other letters, digits and emoji are ids as before."""

from __future__ import annotations

import pytest

#: Ids that hold a control: bidirectional override and isolate, ESC, a line break,
#: NEL (C1), DEL, the line separator.
BAD = ["roll\u202eevil", "a\u2066b", "a\x1b[2Jb", "a\nb", "x\x85y", "x\x7f", "x\u2028y"]
#: Ids that are ids: other scripts, an emoji with its joiner, a Persian ZWNJ.
GOOD = ["žádost-1", "запрос-2", "🎲‍🔥-3", "می‌خواهم-4"]


@pytest.mark.parametrize("binary", [False, True], ids=["json", "msgpack"])
async def test_an_id_with_a_control_is_refused_and_reaches_no_one(make_tables, binary):
    world = await make_tables()
    gm, _ = await world.join("tally", "gm")
    player, _ = await world.join("tally", "player", binary=binary)
    for bad in BAD:
        player.replies.pop(None, None)
        await player.send({"type": "roll", "id": bad, "formula": "1d6"})
        refused = await player.reply(None)
        assert refused["code"] == "invalid_request", (bad, refused)
        assert refused["details"] == {"field": "id"}, refused
        assert "without control characters" in refused["message"], refused
    for good in GOOD:
        answer = await player.request({"type": "roll", "id": good, "formula": "1d6"})
        assert answer["type"] == "result", (good, answer)
    await gm.wait_for(lambda peer: len(peer.events) >= len(GOOD))
    await player.wait_for(lambda peer: len(peer.events) >= len(GOOD))
    # the refused ids did nothing: the GM's events are the good rolls alone
    assert [e["request"] for e in gm.events] == GOOD, gm.events
