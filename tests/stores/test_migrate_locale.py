"""``rollbridge migrate --locale``: its progress and report in the operator's language.

Every other operator command printing for a person took ``--locale``; ``migrate``
spoke only the environment's language (``--locale cs`` was a usage error). It takes
the option now, with the same default (the environment's) and the same refusal of a
language rollbridge does not speak, before anything is read, locked or written.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rollbridge.host import PluginHost
from rollbridge.offline import TableService
from rollbridge.stores.redis import RedisStore
from rollbridge.stores.sqlite import SQLiteStore
from tests.cli.test_cli_startup_locale import environment  # noqa: F401  (a fixture)
from tests.stores.test_migrate import everything, folder_state, run

#: Per locale: the first progress line (stderr, after "rollbridge: "), the start of a
#: moved table's line, the admin tokens' line and the dice key's line.
SAID = {
    "en": ("1/12 tables moved ({table})", "moved {table}: actors 0",
           "admin tokens: 0 moved, 0 there already", "dice key: none beside the database"),
    "cs": ("přesunuto stolů: 1/12 ({table})", "přesunuto {table}: aktéři 0",
           "administrátorské tokeny: přesunuto 0, již přítomno 0",
           "klíč kostek: vedle databáze žádný není"),
    "de": ("1/12 Tische verschoben ({table})", "verschoben {table}: Figuren 0",
           "Admin-Token: 0 verschoben, 0 schon vorhanden",
           "Würfelschlüssel: keiner neben der Datenbank"),
    "ru": ("перенесено столов: 1/12 ({table})", "перенесено {table}: акторов 0",
           "токены администратора: перенесено 0, уже были 0",
           "ключ костей: рядом с базой данных его нет"),
}  # fmt: skip

#: No locale variable set, nor a store in the environment; a test sets what it needs.
pytestmark = pytest.mark.usefixtures("environment")


def many_tables(db: Path) -> list[str]:
    """A SQLite file of 12 tables (enough for progress lines); their ids."""
    store = SQLiteStore(db)
    service = TableService(store, PluginHost())
    made = [service.create_table(f"T{n}", "bandits")[0].id for n in range(12)]
    store.close()
    Path(f"{db}.dice-key").unlink()  # made by the service; never used
    return made


def assert_said(out: str, err: str, made: list[str], locale: str) -> None:
    progress, moved, admin, dice = SAID[locale]
    assert err.splitlines()[0] == f"rollbridge: {progress.format(table=made[0])}"
    assert len(err.splitlines()) == 12
    lines = out.splitlines()
    assert len(lines) == 14
    for line, table in zip(lines, made, strict=False):
        assert line.startswith(moved.format(table=table)), line
    assert lines[12:] == [admin, dice]


@pytest.mark.parametrize("locale", ["en", "cs", "de", "ru"])
def test_migrate_speaks_the_locale_it_is_given(tmp_path, redis_factory, monkeypatch, locale):
    made = many_tables(tmp_path / "many.db")
    monkeypatch.setenv("LANGUAGE", "de" if locale != "de" else "ru")  # the option wins
    redis = redis_factory()
    status, out, err = run("migrate", "--from", str(tmp_path / "many.db"), "--to", redis.url,
                           "--locale", locale)  # fmt: skip
    assert status == 0
    assert_said(out, err, made, locale)


def test_without_locale_migrate_speaks_the_environment_s_language(
    tmp_path, redis_factory, monkeypatch
):
    made = many_tables(tmp_path / "many.db")
    monkeypatch.setenv("LANGUAGE", "cs")
    redis = redis_factory()
    status, out, err = run("migrate", "--from", str(tmp_path / "many.db"), "--to", redis.url)
    assert status == 0
    assert_said(out, err, made, "cs")


def test_the_json_report_is_the_same_in_every_language(tmp_path, redis_factory):
    made = many_tables(tmp_path / "many.db")
    redis = redis_factory()
    reports = []
    for number, locale in enumerate(("en", "ru")):  # each into a database of its own
        url = redis.url.rsplit("/", 1)[0] + f"/{number + 1}"
        status, out, _err = run("migrate", "--from", str(tmp_path / "many.db"), "--to", url,
                                "--json", "--locale", locale)  # fmt: skip
        assert status == 0
        reports.append(json.loads(out))
    assert reports[0] == reports[1]
    assert [t["table"] for t in reports[0]["tables"]] == made


def test_an_unknown_locale_is_refused_before_anything_is_read_or_written(tmp_path, redis_factory):
    (tmp_path / "data").mkdir()
    db = tmp_path / "data" / "many.db"
    many_tables(db)
    redis = redis_factory()
    before = folder_state(db)
    status, out, err = run("migrate", "--from", str(db), "--to", redis.url, "--locale", "xx")
    assert (status, out) == (1, "")
    assert err.startswith("rollbridge: error: invalid_request: --locale: 'xx' is not a known")
    assert folder_state(db) == before  # no lock file made
    target = RedisStore(redis.url)
    try:
        assert everything(target) == {}
    finally:
        target.close()
    status, out, _err = run("migrate", "--from", str(db), "--to", redis.url, "--locale", "xx",
                            "--json")  # fmt: skip
    assert status == 1 and json.loads(out)["code"] == "invalid_request"
