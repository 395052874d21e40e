"""A player's secret result reads its note in the player's language (audit finding
5: ``"note": "sent to the GM only"`` was plain English for every locale), also when
the reply is repeated for a retried request."""

from __future__ import annotations

import pytest

from rollbridge.engine import Principal

ALICE = Principal("player", "alice", "tok-alice")
NOTES = {
    "en": "sent to the GM only",
    "cs": "posláno jen PJ",
    "de": "nur an den Spielleiter gesendet",
    "ru": "отправлено только мастеру",
}


@pytest.mark.parametrize("locale", sorted(NOTES))
def test_the_secret_note_is_in_the_askers_language(seated, locale):
    roll = {"type": "roll", "id": "blind", "formula": "1d6", "secret": True}
    reply = seated.handle("t", roll, ALICE, locale=locale)
    assert reply["status"] == "secret" and reply["note"] == NOTES[locale]
    again = seated.handle("t", roll, ALICE, locale="de" if locale != "de" else "cs")
    assert again["seq"] == reply["seq"]
    assert again["note"] == NOTES["de" if locale != "de" else "cs"]
