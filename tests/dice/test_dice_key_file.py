"""The dice key file beside a database (docs/operations.md, "The dice key"): a bad
one is refused with one error line naming it, a new one is written whole or not at
all, and a new one made for a database that holds verifiable tables already is
logged (not for one of a rollbridge from before verifiable dice)."""

from __future__ import annotations

import logging
import os

import pytest

from rollbridge.cli import main
from rollbridge.dice.verifiable import DiceKey
from rollbridge.exceptions import StoreError
from rollbridge.offline import TableService
from rollbridge.stores.sqlite import SQLiteStore
from tests.dice.test_verifiable_dice import HOST


def spoil(path, how: str) -> None:
    if how == "directory":
        path.mkdir()
    else:
        path.write_text({"garbage": "not hex at all\n", "empty": "", "short": "abcd\n"}[how])


@pytest.mark.parametrize("how", ["garbage", "empty", "short", "directory"])
def test_a_bad_key_file_is_one_error_line_naming_it(tmp_path, capsys, monkeypatch, how):
    monkeypatch.setenv("LANGUAGE", "en")
    db = tmp_path / "x.db"
    key = tmp_path / "x.db.dice-key"
    spoil(key, how)
    status = main(["table", "create", "--db", str(db), "--ruleset", "sr2", "--name", "x"])
    _, err = capsys.readouterr()
    assert status == 1
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("rollbridge: error: bad_dice_key: ") and str(key) in err
    with SQLiteStore(db) as store, pytest.raises(StoreError) as caught:
        DiceKey.for_store(store)
    assert caught.value.code == "bad_dice_key" and caught.value.details == {"path": str(key)}
    assert key.exists()  # never replaced: segments were committed under it


def test_a_key_is_written_whole_or_not_at_all(tmp_path, monkeypatch):
    path = tmp_path / "db.dice-key"

    def crash(descriptor: int) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "fsync", crash)
    with pytest.raises(StoreError) as caught:
        DiceKey.load(path)
    assert caught.value.code == "bad_dice_key"
    assert list(tmp_path.iterdir()) == []  # no empty key left, no temporary file
    monkeypatch.undo()
    key = DiceKey.load(path)
    assert key.created and list(tmp_path.iterdir()) == [path]
    assert not DiceKey.load(path).created


def test_a_new_key_for_a_database_with_verifiable_tables_is_a_warning(tmp_path, caplog):
    db = tmp_path / "x.db"
    with SQLiteStore(db) as store:
        with caplog.at_level(logging.WARNING, logger="rollbridge.dice"):
            assert DiceKey.for_store(store).created
        assert not caplog.records  # no table yet: nothing lost
        TableService(store, HOST).create_table("u", "bandits", table_id="u")
        os.unlink(f"{db}.dice-key")  # a file of a rollbridge from before verifiable dice
        with caplog.at_level(logging.WARNING, logger="rollbridge.dice"):
            assert DiceKey.for_store(store).created
        assert not caplog.records  # no verifiable table: no segment was committed
        TableService(store, HOST).create_table(
            "t", "bandits", table_id="t", settings={"verifiable": True}
        )
        os.unlink(f"{db}.dice-key")  # a restore without the key file
        with caplog.at_level(logging.WARNING, logger="rollbridge.dice"):
            assert DiceKey.for_store(store).created
    [record] = caplog.records
    assert record.levelno == logging.WARNING
    assert f"{db}.dice-key" in record.getMessage()
    assert "dice_key_lost" in record.getMessage()
