"""How a GM's snapshot welcome lists the requests the retained log settles
(:func:`rollbridge.engine.approvals.settled_requests`)."""

from __future__ import annotations

from rollbridge.engine.approvals import SETTLED_LISTED, settled_requests
from rollbridge.engine.model import Event


def _event(seq: int, kind: str, data: dict, epoch: int = 1) -> Event:
    return Event(table="t", epoch=epoch, seq=seq, kind=kind, data=data)


def test_each_request_as_its_latest_event_settles_it_in_seq_order():
    events = [
        _event(3, "roll", {"formula": "1d6"}),
        _event(4, "roll", {"formula": "1d6", "approved": "p2", "approved_by": "gm"}),
        _event(5, "approval.rejected", {"pending": "p1", "reason": "too late"}),
        _event(6, "approval.rejected", {"pending": "p7", "reason": ""}),
        _event(7, "resolution", {"approved": "p9"}, epoch=2),  # another epoch's p9
    ]
    assert settled_requests(events, 1) == [
        {"pending": "p2", "outcome": "approved", "seq": 4},
        {"pending": "p1", "outcome": "rejected", "seq": 5, "reason": "too late"},
        {"pending": "p7", "outcome": "rejected", "seq": 6},
    ]
    assert settled_requests(events, 2) == [{"pending": "p9", "outcome": "approved", "seq": 7}]


def test_a_reason_logged_before_blank_ones_were_blanked_is_left_out():
    # zero-width spaces and a joiner: shown as nothing, so no empty quotes on a card
    events = [_event(5, "approval.rejected", {"pending": "p1", "reason": "\u200b\u200d \u2060"})]
    assert settled_requests(events, 1) == [{"pending": "p1", "outcome": "rejected", "seq": 5}]


def test_only_the_newest_are_listed():
    events = [
        _event(seq, "approval.rejected", {"pending": f"p{seq}", "reason": ""})
        for seq in range(1, SETTLED_LISTED + 11)
    ]
    listed = settled_requests(events, 1)
    assert len(listed) == SETTLED_LISTED
    assert listed[0]["pending"] == "p11" and listed[-1]["pending"] == f"p{SETTLED_LISTED + 10}"
