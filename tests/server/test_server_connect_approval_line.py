"""A GM on ``rollbridge connect`` sees what a request waiting for approval asks and
the name to approve or reject it by (docs/protocol.md, "Approval"): the line showed
only "#5 approval requested by Ana" — the GM could not tell which ``p…`` to type
(the walk of a fifth ruleset, plugins19). Checked on the GM's event as the server
sends it."""

from __future__ import annotations

from rollbridge.cli.render import render_event


async def test_the_gm_reads_what_is_asked_and_the_name_to_approve_it_by(tables):
    gm, _ = await tables.join("tally", "gm")
    player, _ = await tables.join("tally", "player")
    await gm.request({"type": "settings", "settings": {"approval": True}})
    roll = await player.request({"type": "roll", "id": "ask-1", "formula": "1d100+1d6"})
    hit = await player.request({"type": "resolve", "id": "ask-2", "action": "hit",
                                "actor": "ana", "targets": ["guard"]})  # fmt: skip
    assert roll["status"] == hit["status"] == "pending"
    await gm.wait_for(lambda p: sum(e["kind"] == "approval.requested" for e in p.events) == 2)
    asked = [e for e in gm.events if e["kind"] == "approval.requested"]
    names = {"ana": "Ana", "guard": "Guard"}
    first = render_event(asked[0], names=names)
    assert f"roll 1d100+1d6: approve {roll['pending']}, or reject {roll['pending']}" in first
    second = render_event(asked[1], names=names)
    assert f"resolve hit (Ana) → Guard: approve {hit['pending']}" in second
    czech = render_event(asked[1], names=names, locale="cs")
    assert f"approve {hit['pending']}" in czech and "resolve hit (Ana) → Guard" in czech
    assert "asks for" not in czech  # in Czech words


async def test_a_request_without_fields_still_reads(tables):
    """A hostile or older event's request without fields (or with fields of the wrong
    kinds) reads what it has, never a traceback."""
    for request in ({}, {"type": "roll", "fields": "x"},
                    {"type": "resolve", "fields": {"actor": 3, "targets": [1, None]}}):  # fmt: skip
        line = render_event({"kind": "approval.requested", "seq": 4,
                             "data": {"pending": "p4", "request": request}})  # fmt: skip
        assert "approve p4" in line


def test_hostile_parameters_read_inert_never_a_traceback():
    """Parameters JSON cannot write (msgpack's bytes as a value or a key) or holding
    terminal controls print as text on one line: no traceback, nothing a terminal
    obeys (bidirectional controls the server refuses in every string a client sends:
    the terminal's own reading, as elsewhere in rollbridge.visible)."""
    for params in ({"a": b"\x00\x1b"}, {1: 2, b"k": 3}, {"e": "\x1b[2J\u202e\n"}):
        request = {"type": "resolve", "fields": {"params": params}}
        data = {"pending": "p4", "request": request}
        line = render_event({"kind": "approval.requested", "seq": 4, "data": data})
        asks = line.splitlines()[1]
        assert "approve p4" in asks and len(line.splitlines()) == 2, line
        assert not any(c in asks for c in "\x00\x1b"), asks
