"""The locale a log's ``welcome`` names, as ``rollbridge verify`` re-renders its
events in it (:class:`rollbridge.engine.logtable.LoggedTable`): negotiated as a
``hello``'s is, so a region or an encoding is its language and a name no language
has (``../x``, 400 digits: a log is input) never reaches the catalogues."""

from __future__ import annotations

import pytest

from rollbridge.engine.logtable import LoggedTable


def _welcome(locale: object) -> dict[str, object]:
    table = {"id": "t1", "ruleset": "sr2", "ruleset_version": "1.0", "seq": 0}
    return {"type": "welcome", "role": "gm", "seq": 0, "locale": locale, "table": table}


@pytest.mark.parametrize(
    ("given", "taken"),
    [
        ("cs", "cs"),
        ("cs_CZ.UTF-8", "cs"),
        ("de-AT", "de"),
        ("RU", "ru"),
        ("../../x", "en"),
        ("1" * 400, "en"),
        (None, "en"),
        (7, "en"),
    ],
)
def test_the_welcomes_locale_is_negotiated(given, taken):
    table = LoggedTable.from_welcome(_welcome(given))
    assert table is not None and table.locale == taken
