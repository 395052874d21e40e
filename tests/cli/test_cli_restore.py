"""A backup is a plain copy with a mark; serving it (or migrating it) is the restore
that moves every table to a new epoch (docs/operations.md, "Backup and restore").
Also the serve lock (symlinks, no fcntl) and the dice key file's creation."""

from __future__ import annotations

import errno
import json
import logging
import os
import sqlite3
import subprocess
import sys

import pytest

from rollbridge.cli import main
from rollbridge.cli.offline import offline_host
from rollbridge.dice.verifiable import DiceKey, commitment
from rollbridge.dice.verify import verify_events
from rollbridge.engine.model import Principal
from rollbridge.exceptions import Conflict, StoreError
from rollbridge.offline import TableService
from rollbridge.stores import backup as backup_module
from rollbridge.stores.backup import backup
from rollbridge.stores.sqlite import SQLiteStore

GM = Principal("gm", "gm", "gm-token")
HOST = offline_host()
KEY = DiceKey(bytes(range(32)))
RESTORE_MARK = "rollbridge_restore"


def _played(path, rolls: int = 3, verifiable: bool = False) -> TableService:
    svc = TableService(SQLiteStore(path), HOST, dice_key=KEY)
    svc.create_table("t", "bandits", table_id="t", settings={"verifiable": verifiable})
    svc.create_table("u", "bandits", table_id="u")
    for i in range(rolls):
        svc.handle("t", {"type": "roll", "id": f"r{i}", "formula": "2d6"}, GM)
    return svc


def _restored_twice(backup_file) -> tuple[int, int]:
    """Table t's epoch after each of two restores of the same backup file."""
    epochs = []
    for name in ("one.db", "two.db"):
        copy = backup_file.with_name(name)
        copy.write_bytes(backup_file.read_bytes())
        with SQLiteStore(copy) as store:
            store.finish_restore()
            epochs.append(store.load("t")[0].info.epoch)
    return epochs[0], epochs[1]


def _rows(path, sql: str) -> list[tuple]:
    with sqlite3.connect(path) as conn:
        return conn.execute(sql).fetchall()


def test_a_backup_is_the_database_as_it_was_with_a_mark(tmp_path):
    svc = _played(tmp_path / "a.db")
    svc.store.close()
    info = backup(tmp_path / "a.db", tmp_path / "b.db")
    assert info.tables == 2
    epochs = "SELECT id, epoch, seq FROM tables ORDER BY id"
    assert _rows(tmp_path / "b.db", epochs) == _rows(tmp_path / "a.db", epochs)
    assert len(_rows(tmp_path / "b.db", f"SELECT taken_at FROM {RESTORE_MARK}")) == 1
    assert not _rows(tmp_path / "a.db", f"SELECT 1 FROM sqlite_master WHERE name='{RESTORE_MARK}'")


def test_a_backup_of_another_schema_is_copied_as_it_is_another_programs_file_refused(
    tmp_path, capsys
):
    """A newer schema is copied as it is; another program's SQLite file (schema
    version 0 with its own tables) was copied too, and a restore of the copy then
    refused by every command — ``backup`` refuses it now, as every command does,
    writing no copy and leaving it as it was."""
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE x (a)")
    before = other.read_bytes()
    assert main(["backup", "--db", str(other), str(tmp_path / "o.db")]) == 1
    err = capsys.readouterr().err
    assert "no_database" in err and "another program's SQLite database" in err and "'x'" in err
    assert not (tmp_path / "o.db").exists() and other.read_bytes() == before
    newer = tmp_path / "newer.db"
    SQLiteStore(newer).close()
    with sqlite3.connect(newer) as conn:
        conn.execute("PRAGMA user_version = 99")
    info = backup(newer, tmp_path / "n.db")
    assert info.schema_version == 99


def test_a_backup_of_a_damaged_table_is_taken_and_its_restore_moves_the_rest(tmp_path, caplog):
    _played(tmp_path / "a.db").store.close()
    with sqlite3.connect(tmp_path / "a.db") as conn:
        conn.execute("UPDATE tables SET state = X'c1c1' WHERE id = 't'")
    assert main(["backup", "--db", str(tmp_path / "a.db"), str(tmp_path / "b.db")]) == 0
    before = dict(_rows(tmp_path / "b.db", "SELECT id, epoch FROM tables"))
    with caplog.at_level(logging.WARNING, "rollbridge.store"), SQLiteStore(tmp_path / "b.db") as s:
        done = s.finish_restore()
        assert s.restore_pending() is None and s.finish_restore() is None
    assert done is not None and (done.moved, done.skipped) == (["u"], ["t"])
    assert "table t cannot be read" in caplog.text
    after = dict(_rows(tmp_path / "b.db", "SELECT id, epoch FROM tables"))
    assert after["t"] == before["t"] and after["u"] > before["u"]


def test_the_backup_file_exports_every_event_and_each_restore_is_its_own_epoch(tmp_path, capsys):
    _played(tmp_path / "a.db").store.close()
    backup(tmp_path / "a.db", tmp_path / "b.db")
    capsys.readouterr()
    argv = ["table", "export", "t", "--as", "gm", "--format", "jsonl", "--db"]
    assert main([*argv, str(tmp_path / "b.db")]) == 0
    rolls = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [e.get("kind") for e in rolls].count("roll") == 3
    first, second = _restored_twice(tmp_path / "b.db")
    assert first != second


def test_two_restores_differ_even_with_the_backup_ahead_of_the_clock(tmp_path, monkeypatch):
    """An epoch is the time in ms, or one more than the stored one when that is later:
    a backup whose epoch is ahead of this clock (a restore on a clock that ran fast)
    gave both restores of it the same epoch; a random part keeps them apart."""
    import types

    _played(tmp_path / "a.db").store.close()
    backup(tmp_path / "a.db", tmp_path / "b.db")
    behind = types.SimpleNamespace(time=lambda: 0.0)  # this clock: before every epoch
    monkeypatch.setattr("rollbridge.stores.redis_fence.time", behind)
    first, second = _restored_twice(tmp_path / "b.db")
    assert first != second


def test_a_restore_that_cannot_write_keeps_its_mark_for_the_next_start(tmp_path, monkeypatch):
    """A table that reads fine but cannot be written (a full disk) is not skipped as
    damaged: the restore fails, the mark stays, and the next start restores it all."""
    _played(tmp_path / "a.db").store.close()
    backup(tmp_path / "a.db", tmp_path / "b.db")
    real_commit = SQLiteStore.commit

    def full(self, table_id, commit):
        raise StoreError("database or disk is full")

    monkeypatch.setattr(SQLiteStore, "commit", full)
    with SQLiteStore(tmp_path / "b.db") as store, pytest.raises(StoreError):
        store.finish_restore()
    monkeypatch.setattr(SQLiteStore, "commit", real_commit)
    with SQLiteStore(tmp_path / "b.db") as store:
        assert store.restore_pending() is not None
        done = store.finish_restore()
    assert done is not None and sorted(done.moved) == ["t", "u"] and not done.skipped


def test_a_restored_open_segment_refuses_dice_and_still_reveals_its_seed(tmp_path):
    svc = _played(tmp_path / "a.db", verifiable=True)
    svc.store.close()
    backup(tmp_path / "a.db", tmp_path / "b.db")
    store = SQLiteStore(tmp_path / "b.db")
    assert store.finish_restore() is not None
    again = TableService(store, HOST, dice_key=KEY)
    try:
        with pytest.raises(Conflict) as refused:
            again.handle("t", {"type": "roll", "id": "after", "formula": "2d6"}, GM)
        assert refused.value.code == "dice_segment_restored"
        restored_at = again.table("t").info.seq
        # a client's log: the events before, the welcome of its resume, the events after
        welcome = {"type": "welcome", "table": again.table("t").view(gm=True)}
        again.handle("t", {"type": "dice.reveal", "id": "v"}, GM)
        table = again.table("t")
        events = [table.view_event(e, gm=True) for e in store.events_after("t", 0)]
        events.insert(next(i for i, e in enumerate(events) if e["seq"] > restored_at), welcome)
        events = json.loads(json.dumps(events))
        committed = next(e for e in events if e.get("kind") == "dice.committed")
        revealed = next(e for e in events if e.get("kind") == "dice.revealed")
        assert (
            commitment(bytes.fromhex(revealed["data"]["seed"])) == committed["data"]["commitment"]
        )
        report = verify_events(events)
        assert report.ok and report.verified_events == 3, report.problems
        assert again.handle("t", {"type": "roll", "id": "new", "formula": "2d6"}, GM)
    finally:
        store.close()


def test_serve_takes_the_lock_of_the_real_file_before_opening_it(tmp_path, capsys):
    from rollbridge.cli.serve_lock import lock_database

    real, link = tmp_path / "real.db", tmp_path / "link.db"
    link.symlink_to(real)
    held = lock_database(real)
    try:
        with pytest.raises(Conflict) as caught:
            lock_database(link)
        assert caught.value.code == "database_in_use"
        assert main(["serve", "--db", str(link), "--no-demo", "--port", "0"]) == 1
        assert "database_in_use" in capsys.readouterr().err
        assert not real.exists()  # refused before the store was opened (or made)
    finally:
        os.close(held)
    SQLiteStore(real).close()
    assert DiceKey.for_store(SQLiteStore(link)) is not None
    assert (tmp_path / "real.db.dice-key").exists() and not (tmp_path / "link.db.dice-key").exists()


def test_every_command_runs_without_fcntl(tmp_path):
    code = (
        "import sys; sys.modules['fcntl'] = None\n"
        "from rollbridge.cli.serve_lock import hold_unserved, lock_database\n"
        f"assert lock_database({str(tmp_path / 'x.db')!r}) is None\n"
        f"assert hold_unserved({str(tmp_path / 'x.db')!r}) is None\n"
        "from rollbridge.cli import main\n"
        f"sys.exit(main(['table', 'create', '--ruleset', 'sr2', '--name', 'T', '--db', "
        f"{str(tmp_path / 'x.db')!r}]))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "no fcntl" in done.stderr and "Traceback" not in done.stderr


def test_a_dice_key_without_hard_links_and_a_key_that_cannot_be_written(tmp_path, monkeypatch):
    def no_link(*_args):
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_link)
    key = DiceKey.load(tmp_path / "k.dice-key")
    assert key.created and DiceKey.load(tmp_path / "k.dice-key").seed("t", 1, 1) == key.seed(
        "t", 1, 1
    )
    assert [p.name for p in tmp_path.iterdir()] == ["k.dice-key"]
    real_open = os.open

    def full(path, *args, **kwargs):
        if str(path).endswith(".tmp"):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", full)
    with pytest.raises(StoreError) as caught:
        DiceKey.load(tmp_path / "new.dice-key")
    assert "cannot be written" in str(caught.value) and "cannot be read" not in str(caught.value)


def test_a_key_claimed_without_hard_links_is_waited_for_or_completed(tmp_path, monkeypatch):
    """Without hard links a key's name is claimed (an empty file) before the key is put
    over it: a reader meeting the claim waits for the key; a claim left by a crash,
    with its whole key in the temporary file beside, is completed with that key; an
    empty file with no such key is still refused (``bad_dice_key``)."""
    import threading

    monkeypatch.setattr("rollbridge.dice.verifiable._CLAIM_WAIT", 5.0)
    path = tmp_path / "k.dice-key"
    made = DiceKey.ephemeral()
    secret = made._secret.hex() + "\n"
    path.write_text("")  # another process's claim ...
    later = threading.Timer(0.3, lambda: path.write_text(secret))  # ... then its key
    later.start()
    try:
        assert DiceKey.load(path).seed("t", 1, 1) == made.seed("t", 1, 1)
    finally:
        later.cancel()
    crashed = tmp_path / "c.dice-key"
    crashed.write_text("")
    (tmp_path / ".c.dice-key.4242.tmp").write_text(secret)  # killed before its rename
    monkeypatch.setattr("rollbridge.dice.verifiable._CLAIM_WAIT", 0.1)
    assert DiceKey.load(crashed).seed("t", 1, 1) == made.seed("t", 1, 1)
    assert not list(tmp_path.glob(".c.dice-key.*")) and crashed.read_text() == secret
    empty = tmp_path / "e.dice-key"
    empty.write_text("")
    with pytest.raises(StoreError) as caught:
        DiceKey.load(empty)
    assert caught.value.code == "bad_dice_key"


def test_a_full_destination_is_blamed_not_the_source(tmp_path, monkeypatch):
    SQLiteStore(tmp_path / "a.db").close()
    connect = sqlite3.connect

    def tiny(path, *args, **kwargs):
        conn = connect(path, *args, **kwargs)
        if str(path).endswith(".partial"):
            conn.execute("PRAGMA max_page_count = 1")  # as a full disk
        return conn

    monkeypatch.setattr(backup_module.sqlite3, "connect", tiny)
    with pytest.raises(StoreError) as caught:
        backup(tmp_path / "a.db", tmp_path / "b.db")
    assert str(caught.value).startswith(f"cannot write the backup {tmp_path / 'b.db'}")
    assert not list(tmp_path.glob(".b.db*"))


def test_a_damaged_reply_names_its_table_and_request(tmp_path):
    _played(tmp_path / "a.db").store.close()
    with sqlite3.connect(tmp_path / "a.db") as conn:
        conn.execute("UPDATE replies SET reply = X'c1c1' WHERE key = 'gm-token/r1'")
    with SQLiteStore(tmp_path / "a.db") as store, pytest.raises(StoreError) as caught:
        store.reply("t", "gm-token/r1")
    assert caught.value.details == {"table": "t", "key": "gm-token/r1"}
    assert "table t: the stored reply to request gm-token/r1 cannot be read" in str(caught.value)


def test_the_new_key_warning_reads_as_a_cli_line(tmp_path, capsys):
    db = tmp_path / "a.db"
    verifiable = ["--settings", '{"verifiable": true}']  # a segment the key committed to
    assert main(["table", "create", "--db", str(db), "--ruleset", "bandits", "--name", "A",
                 *verifiable]) == 0  # fmt: skip
    (tmp_path / "a.db.dice-key").unlink()
    capsys.readouterr()
    assert main(["table", "create", "--db", str(db), "--ruleset", "bandits", "--name", "B"]) == 0
    err = capsys.readouterr().err
    assert err.startswith("rollbridge: warning: ") and "a new dice key was made" in err


def test_serve_restores_a_backup_before_serving_and_says_so(tmp_path, caplog):
    from rollbridge.cli.serve import _finish_restore

    _played(tmp_path / "a.db").store.close()
    backup(tmp_path / "a.db", tmp_path / "b.db")
    with caplog.at_level(logging.INFO, "rollbridge.serve"), SQLiteStore(tmp_path / "b.db") as s:
        _finish_restore(s)
        assert s.restore_pending() is None
    assert "is a restored backup" in caplog.text
    assert "2 tables were moved to a new epoch" in caplog.text


def test_a_players_log_across_a_restore_verifies_epoch_by_epoch(tmp_path):
    """A client that played on through a restore has two epochs in its log: the same
    seqs and segment numbers again in the second. `verify` read that as replayed
    seqs and segments committed twice (11 false mismatches); each epoch is now
    checked on its own, and the report names them."""
    svc = _played(tmp_path / "a.db", rolls=1, verifiable=True)

    def play(service: TableService, name: str) -> None:
        service.handle("t", {"type": "roll", "id": f"{name}-r", "formula": "3d6"}, GM)
        service.handle("t", {"type": "dice.reveal", "id": f"{name}-v"}, GM)

    play(svc, "a1")  # segment 1 revealed, 2 open
    svc.store.close()
    backup(tmp_path / "a.db", tmp_path / "b.db")
    svc = TableService(SQLiteStore(tmp_path / "a.db"), HOST, dice_key=KEY)
    play(svc, "a2")  # 2 revealed, 3 open: history the restore loses
    before = [svc.table("t").view_event(e, gm=False) for e in svc.store.events_after("t", 0)]
    svc.store.close()
    store = SQLiteStore(tmp_path / "b.db")
    try:
        store.finish_restore()
        again = TableService(store, HOST, dice_key=KEY)
        restored_at = again.table("t").info.seq
        # the client's resume: a fresh snapshot (recovered: false), the restored segment
        welcome = {"type": "welcome", "table": again.table("t").view(gm=False)}
        again.handle("t", {"type": "dice.reveal", "id": "b0"}, GM)  # the restored 2; 3 anew
        play(again, "b1")  # 3 of the new epoch revealed, 4 open
        table = again.table("t")
        after = [table.view_event(e, gm=False) for e in store.events_after("t", restored_at)]
        epoch = table.info.epoch
    finally:
        store.close()
    whole = [*json.loads(json.dumps(before)), json.loads(json.dumps(welcome))]
    whole += json.loads(json.dumps(after))
    report = verify_events(whole)
    assert report.ok, report.problems
    assert report.epochs == [1, epoch] and report.verified_events == 4, report
    assert report.segments == {1: "revealed", 2: "revealed", 3: "committed",
                               f"3@{epoch}": "revealed", f"4@{epoch}": "committed"}  # fmt: skip
