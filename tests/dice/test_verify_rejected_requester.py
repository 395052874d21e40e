"""``rollbridge verify`` holds a rejection to the request's type and requester as an
approval is held to them, on logs a real ``rollbridge serve`` wrote
(tests/dice/test_verify_settled_once.py: the player's roll ``r1`` rejected).

An ``approval.rejected`` event says whose request it turned down and of what type
(``requested_by``, ``type``: every server has written both). Before, a GM's log whose
rejection of the player's roll said it was Bo's, or a resolution, verified (exit 0):
an approval so changed was ``other_request``, a rejection nothing. Where the log shows
the request (the GM's log: its ``approval.requested``) they must be the request's;
where it does not (a player's log: a ``hidden`` stand-in) a player's, as an
approval's ``by`` must be (docs/dice.md, ``other_request``)."""

from __future__ import annotations

import json

import pytest

from tests.dice.test_verify_settled_once import _events, _lines, _verified, served

pytestmark = pytest.mark.usefixtures("english_without_stores")

__all__ = ["served"]  # the served logs, a fixture of this module too


def _forged(served, who: str, tmp_path, capsys, field: str, value: str) -> tuple[dict, str]:
    """``who``'s log with its rejection's ``field`` made ``value``: the rejection, and
    the one problem verify reports (its message), which is ``other_request`` there."""
    lines = json.loads(json.dumps(_lines(served[who])))
    rejected = _events(lines, "approval.rejected")[0]
    rejected["data"][field] = value
    status, report = _verified(tmp_path, lines, capsys)
    problems = [(p["code"], p["seq"]) for p in report["problems"]]
    assert status == 1 and problems == [("other_request", rejected["seq"])], problems
    return rejected, report["problems"][0]["message"]


@pytest.mark.parametrize(
    ("field", "value", "said"),
    [
        ("requested_by", "player:bo", "a 'roll' request by 'player:bo'"),
        ("type", "resolve", "a 'resolve' request by 'player'"),
    ],
)
def test_a_rejection_of_another_request_than_the_gms_log_shows(
    served, tmp_path, capsys, field, value, said
):
    """Before, exit 0."""
    rejected, message = _forged(served, "gm", tmp_path, capsys, field, value)
    request = rejected["data"]["pending"]
    assert message == (
        f"seq {rejected['seq']}: the log says the GM rejected request {request!r}, {said} "
        f"(its type and requested_by), but that request (seq {request[1:]}) is another one: a "
        "'roll' request by 'player'"
    )


def test_a_rejection_of_a_stand_in_said_to_be_the_gms_request(served, tmp_path, capsys):
    """A player's log shows the request as a stand-in: only a player's is held.
    Before, exit 0, and the report told the stand-in as a request."""
    rejected, message = _forged(served, "player", tmp_path, capsys, "requested_by", "gm")
    request = rejected["data"]["pending"]
    assert message == (
        f"seq {rejected['seq']}: the log says the GM rejected request {request!r} (seq "
        f"{request[1:]}) of 'gm' (its requested_by), and only a player's requests are held "
        "for the GM's approval"
    )
