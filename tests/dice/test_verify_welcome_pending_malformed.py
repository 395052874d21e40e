"""A GM's ``welcome`` whose ``pending`` is no list of requests is a mismatch
(``welcome_pending``, exit 1), on the GM's log a real ``rollbridge serve`` wrote
(tests/dice/test_verify_settled_once.py).

No server writes such a listing: a GM's welcome lists the requests waiting at its seq
(its table's ``pending``, a list of objects each naming its id in ``pending``), a
player's and an export's first line list none (no ``pending`` at all). Before,
``rollbridge verify`` skipped a listing that was not a list, and every entry of it
that was not such an object, in silence: the log verified (exit 0) though the line was
altered or the client that wrote it broken. Per docs/dice.md's policy a line no
version writes is a mismatch (exit 1), not incomplete (exit 3): no verifier of any
version would check it."""

from __future__ import annotations

import pytest

from tests.dice.test_verify_settled_once import _verified
from tests.dice.test_verify_welcome_pending import _at, _gm_log, _listed, _welcome, served

pytestmark = pytest.mark.usefixtures("english_without_stores")

__all__ = ["served"]


@pytest.mark.parametrize(
    ("pending", "shown"),
    [
        ("p5", '"p5"'),
        ({"p5": {"type": "roll"}}, '{"p5": {"type": "roll"}}'),
        (None, "null"),
        (["p5"], '"p5"'),
        ([{"id": "r2", "type": "roll"}], '{"id": "r2", "type": "roll"}'),
        ([{"pending": 5}], '{"pending": 5}'),
    ],
)
def test_a_welcome_whose_pending_is_no_list_of_requests_is_a_mismatch(
    served, tmp_path, capsys, pending, shown
):
    lines = _gm_log(served)
    welcome = _welcome(lines, 5, [])
    welcome["table"]["pending"] = pending
    lines.insert(_at(lines, 5) + 1, welcome)
    status, report = _verified(tmp_path, lines, capsys)
    assert status == 1, report
    assert [(p["code"], p["seq"]) for p in report["problems"]] == [("welcome_pending", 5)]
    assert report["problems"][0]["message"] == (
        "the GM's welcome line at seq 5 has a pending (the requests waiting then) that is "
        f"not a list of requests, each an object with its id in pending: {shown}; no server "
        "writes it, so the line was altered or the client that wrote the log is broken"
    )


def test_a_well_formed_listing_and_none_at_all_still_verify(served, tmp_path, capsys):
    """The same welcome listing the waiting request as the server does, or (a
    player's, an export's first line) without ``pending``: exit 0."""
    for pending in ("listed", "absent"):
        lines = _gm_log(served)
        welcome = _welcome(lines, 5, [_listed(lines, 5)])
        if pending == "absent":
            del welcome["table"]["pending"]
        lines.insert(_at(lines, 5) + 1, welcome)
        status, report = _verified(tmp_path, lines, capsys)
        assert (status, report["problems"]) == (0, []), (pending, report["problems"])
