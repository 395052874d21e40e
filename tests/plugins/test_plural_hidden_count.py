"""A plural message whose count is an NPC's hidden detail (a step-die pool's successes
against a difficulty the GM keeps: author29, writing a ruleset from docs/plugins.md):
the GM reads the form of the count, a player the general plural with the count
hidden — "(hidden) successes", in Russian the form of 5 — never the singular or the
form of "few", which would tell that the count is 1 or 2-4. docs/plugins.md,
"Languages"."""

from __future__ import annotations

from pathlib import Path

import pytest

from rollbridge.text import Messages, Private, render
from tests.catalogue_files import write_catalogue

SINGULAR, PLURAL = "{count} success", "{count} successes"
RUSSIAN = ("{count} успех", "{count} успеха", "{count} успехов")


@pytest.fixture(scope="module")
def successes(tmp_path_factory: pytest.TempPathFactory) -> object:
    folder: Path = tmp_path_factory.mktemp("locale")
    write_catalogue(folder, "ru", "hidden_counts", {"successes": ((SINGULAR, PLURAL), RUSSIAN)})  # type: ignore[dict-item]
    return Messages("hidden_counts", catalogs=folder).plural("successes", SINGULAR, PLURAL)


@pytest.mark.parametrize(
    ("locale", "count", "gm", "players"),
    [
        ("en", 1, "1 success", "(hidden) successes"),
        ("en", 2, "2 successes", "(hidden) successes"),
        ("ru", 1, "1 успех", "(скрыто) успехов"),
        ("ru", 3, "3 успеха", "(скрыто) успехов"),
        ("ru", 5, "5 успехов", "(скрыто) успехов"),
    ],
)
def test_a_hidden_count_reads_the_general_plural(successes, locale, count, gm, players) -> None:
    text = successes(count=Private(count, of="lock", aspect="sheet"))
    assert render(text, locale=locale) == gm
    assert render(text, locale=locale, hides=lambda _actor, _aspect: True) == players
