"""``rollbridge backup`` (issue 16, operations): an online copy with SQLite's
backup API, taken while a server commits to the same file; the copy opens with
the store and holds a consistent state."""

from __future__ import annotations

import asyncio
import json
import sqlite3

from rollbridge.cli import main
from rollbridge.stores.backup import backup
from rollbridge.stores.sqlite import SCHEMA_VERSION, SQLiteStore
from tests.server.conftest import Tables, make_host, seed_tables, start


async def test_a_backup_while_a_server_writes(tally, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("LANGUAGE", "en")
    host, path = make_host(tally), tmp_path / "rollbridge.db"
    with SQLiteStore(path) as seed:
        tokens = seed_tables(seed, host)
    server, live_store = await start(path, host)
    world = Tables(server, live_store, path, tokens)
    try:
        await _back_up_while_rolling(world, tmp_path, capsys)
    finally:
        for peer in world.peers:
            peer._reader.cancel()
        await server.stop()


async def _back_up_while_rolling(world: Tables, tmp_path, capsys) -> None:
    gm, _ = await world.join("tally", "gm")
    stop = asyncio.Event()

    async def keep_rolling() -> int:
        done = 0
        while not stop.is_set():
            assert (await gm.request({"type": "roll", "formula": "1d6"}))["status"] == "done"
            done += 1
        return done

    roller = asyncio.create_task(keep_rolling())
    await asyncio.sleep(0.1)
    dest = tmp_path / "copy.db"
    code = await asyncio.to_thread(main, ["backup", "--db", str(world.path), str(dest)])
    await asyncio.sleep(0.05)
    stop.set()
    rolled = await roller
    out, _ = capsys.readouterr()
    assert code == 0 and rolled > 0
    assert out.splitlines()[0] == (f"backed up {world.path} to {dest}: 2 tables,"
                                   f" {dest.stat().st_size} bytes,"
                                   f" schema version {SCHEMA_VERSION}")  # fmt: skip
    assert (
        out.splitlines()[1:]
        == [  # the server made the dice key
            line for line in out.splitlines()[1:] if line.startswith("the dice key is not in")
        ]
    )
    copy = sqlite3.connect(dest)
    assert copy.execute("PRAGMA journal_mode").fetchone()[0] == "delete"  # one whole file
    assert copy.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    copy.close()
    live = world.store.tables()
    with SQLiteStore(dest) as store:
        copied = {t.id: t for t in store.tables()}
        assert set(copied) == {"sr2", "tally"}
        seq = copied["tally"].seq
        assert 2 <= seq <= next(t.seq for t in live if t.id == "tally")
        snapshot, _ = store.load("tally")
        assert snapshot.info.seq == seq and set(snapshot.actors) == {"ana", "guard"}
        events = store.events_after("tally", 0)
        assert events is not None and [e.seq for e in events] == list(range(1, seq + 1))
    assert not list(tmp_path.glob(".copy.db*"))  # no partial file left


def test_an_existing_destination_or_a_missing_source_is_refused(tmp_path, capsys):
    db = tmp_path / "rollbridge.db"
    SQLiteStore(db).close()
    taken = tmp_path / "taken.db"
    taken.write_bytes(b"keep me")
    assert main(["backup", "--db", str(db), str(taken)]) == 1
    assert "conflict" in capsys.readouterr().err and taken.read_bytes() == b"keep me"
    assert main(["backup", "--db", str(db), str(db)]) == 1
    assert "conflict" in capsys.readouterr().err
    assert main(["backup", "--db", str(tmp_path / "none.db"), str(tmp_path / "x.db")]) == 1
    # as every reading command says it (it was store_error: tests/cli/test_cli_read_only.py)
    assert "no_database" in capsys.readouterr().err and not (tmp_path / "x.db").exists()


def test_json_and_the_function(tmp_path, capsys):
    db = tmp_path / "rollbridge.db"
    SQLiteStore(db).close()
    assert main(["backup", "--db", str(db), str(tmp_path / "a.db"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["tables"] == 0
    info = backup(db, tmp_path / "b.db")
    assert (info.tables, info.schema_version) == (0, SCHEMA_VERSION) and info.size > 0


async def test_a_restored_backup_is_a_new_epoch_no_client_resumes_across(tally, tmp_path):
    """A backup taken at seq 5 restored after clients saw seq 10: the seqs after 5 get
    new events, so a client resuming from 10 starts over (``recovered: false``) rather
    than being told it missed nothing of another history."""
    import shutil

    host, path = make_host(tally), tmp_path / "rollbridge.db"
    with SQLiteStore(path) as seed:
        tokens = seed_tables(seed, host)
    server, store = await start(path, host)
    world = Tables(server, store, path, tokens)
    gm, welcome = await world.join("tally", "gm")
    for _ in range(3):
        await gm.request({"type": "roll", "formula": "1d6"})
    copy = tmp_path / "copy.db"
    assert await asyncio.to_thread(main, ["backup", "--db", str(path), str(copy)]) == 0
    for _ in range(3):
        last = await gm.request({"type": "roll", "formula": "1d6"})
    seen = (welcome["epoch"], last["seq"])
    for peer in world.peers:
        peer._reader.cancel()
    await server.stop()
    for end in ("", "-wal", "-shm"):  # the restore of docs/operations.md
        if (tmp_path / f"rollbridge.db{end}").exists():
            (tmp_path / f"rollbridge.db{end}").rename(tmp_path / f"aside.db{end}")
    shutil.copy(copy, path)
    with SQLiteStore(path) as restoring:  # as rollbridge serve does before serving
        assert restoring.finish_restore() is not None
    server, store = await start(path, host)
    world = Tables(server, store, path, tokens)
    try:
        gm, restored = await world.join("tally", "gm")
        assert restored["epoch"] != seen[0] and restored["seq"] == seen[1] - 3
        for _ in range(3):  # the seqs the client saw, with other events
            await gm.request({"type": "roll", "formula": "1d6"})
        _, back = await world.join("tally", "player", resume={"epoch": seen[0], "seq": seen[1]})
        assert back["type"] == "welcome" and back["resume"]["recovered"] is False
        assert back["epoch"] == restored["epoch"] and back["seq"] == seen[1]
    finally:
        for peer in world.peers:
            peer._reader.cancel()
        await server.stop()


def test_a_destination_that_cannot_be_written_is_named(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("LANGUAGE", "en")
    source = tmp_path / "rollbridge.db"
    SQLiteStore(source).close()
    dest = tmp_path / "missing" / "dir" / "x.db"
    assert main(["backup", "--db", str(source), str(dest)]) == 1
    _, err = capsys.readouterr()
    assert err.count("\n") == 1 and err.startswith("rollbridge: error: store_error: ")
    assert str(dest) in err and str(source) not in err
    assert not (tmp_path / "missing").exists()


def test_backup_with_redis_in_the_environment_says_how_to_back_redis_up(
    tmp_path, capsys, monkeypatch
):
    """An operator on Redis exports ROLLBRIDGE_REDIS for every command; ``backup``
    copies only SQLite files, and once said ``no database file`` of a default path
    never used. It says what it copies and where the Redis advice is, names no
    password, and writes nothing; ``--db`` still copies a file."""
    monkeypatch.setenv("LANGUAGE", "en")
    monkeypatch.setenv("ROLLBRIDGE_REDIS", "redis://:sekrit@127.0.0.1:6390/0")
    monkeypatch.setenv("ROLLBRIDGE_DB", str(tmp_path / "absent.db"))
    dest = tmp_path / "copy.db"
    assert main(["backup", str(dest)]) == 1
    _out, err = capsys.readouterr()
    assert err.startswith("rollbridge: error: redis_backup: rollbridge backup copies a SQLite")
    assert "redis-cli --rdb" in err and 'docs/redis.md, "Backups"' in err and "--db" in err
    assert "sekrit" not in err and "127.0.0.1:6390" in err
    assert not dest.exists()
    with SQLiteStore(tmp_path / "real.db"):
        pass
    assert main(["backup", "--db", str(tmp_path / "real.db"), str(dest)]) == 0
    assert dest.is_file()


def test_backup_names_no_password_given_in_the_redis_url_s_query(tmp_path, capsys, monkeypatch):
    """redis-py takes a password from the URL's query too (``?password=``), and
    ``unix://`` URLs have nowhere else to put one: the refusal hid only the one before
    the ``@`` and printed this one as it was."""
    monkeypatch.setenv("LANGUAGE", "en")
    dest = tmp_path / "copy.db"
    for url in ("redis://127.0.0.1:6390/0?password=sekrit",
                "unix:///run/redis.sock?db=2&password=sekrit",
                "redis://:sekrit@127.0.0.1:6390/0?password=sekrit"):  # fmt: skip
        monkeypatch.setenv("ROLLBRIDGE_REDIS", url)
        assert main(["backup", str(dest)]) == 1
        _out, err = capsys.readouterr()
        assert "redis_backup" in err and "sekrit" not in err, err
        assert "6390" in err or "/run/redis.sock" in err
    assert not dest.exists()


def test_a_backup_says_to_keep_the_dice_key_with_it(tmp_path, capsys, monkeypatch):
    """The copy holds no dice key (docs/operations.md, "Backups"), and the command said
    nothing of it: a backup restored alone leaves every open verifiable segment
    unrevealable (``dice_key_lost``). It now names the key and the command that keeps
    it beside the copy; ``--json`` names it as ``dice_key``."""
    import shlex
    import subprocess

    monkeypatch.setenv("LANGUAGE", "en")
    db, dest = tmp_path / "rollbridge.db", tmp_path / "backup.db"
    assert main(["table", "create", "--db", str(db), "--ruleset", "sr2", "--name", "F"]) == 0
    key = db.with_name("rollbridge.db.dice-key")
    assert key.is_file()
    capsys.readouterr()
    assert main(["backup", "--db", str(db), str(dest)]) == 0
    done, said = capsys.readouterr().out.splitlines()
    assert done.startswith(f"backed up {db} to {dest}: 1 table")
    command = f"cp -p {key} {dest}.dice-key"
    assert said.startswith(f"the dice key is not in the copy: keep {key} with it ({command})")
    subprocess.run(shlex.split(command), check=True)  # the command it gives does it
    copied = tmp_path / "backup.db.dice-key"
    assert copied.read_bytes() == key.read_bytes() and copied.stat().st_mode & 0o077 == 0
    assert main(["backup", "--db", str(db), str(tmp_path / "again.db"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["dice_key"] == str(key)


def test_a_database_without_a_dice_key_is_backed_up_without_the_line(tmp_path, capsys):
    db = tmp_path / "rollbridge.db"
    SQLiteStore(db).close()
    assert not db.with_name("rollbridge.db.dice-key").exists()
    assert main(["backup", "--db", str(db), str(tmp_path / "a.db")]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 1
    assert main(["backup", "--db", str(db), str(tmp_path / "b.db"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["dice_key"] is None


def test_the_dice_key_s_command_works_for_paths_with_spaces(tmp_path, capsys, monkeypatch):
    """``cp -p KEY DEST.dice-key`` was written with the paths as they are: a folder
    named ``game nights`` (or a name with a quote) made a command that, pasted, copies
    nothing or the wrong file. The paths are quoted for a shell where they need it."""
    import re
    import shlex
    import subprocess

    monkeypatch.setenv("LANGUAGE", "en")
    where = tmp_path / "game nights"
    where.mkdir()
    db, dest = where / "rollbridge.db", where / "Friday's backup.db"
    assert main(["table", "create", "--db", str(db), "--ruleset", "sr2", "--name", "F"]) == 0
    capsys.readouterr()
    assert main(["backup", "--db", str(db), str(dest)]) == 0
    said = capsys.readouterr().out.splitlines()[1]
    command = re.search(r"\((cp -p .*\.dice-key)\)", said)
    assert command is not None, said
    subprocess.run(shlex.split(command.group(1)), check=True)  # the command it gives does it
    copied = where / "Friday's backup.db.dice-key"
    assert copied.read_bytes() == (where / "rollbridge.db.dice-key").read_bytes()


def test_a_source_cut_short_is_named_not_the_backup(tmp_path, capsys, monkeypatch):
    """A database file cut short is copied page for page as it is, and its damage
    met only when the copy was first read: the error blamed the backup being written
    ("cannot write the backup COPY: database disk image is malformed"), sending the
    operator to the wrong disk (the SQLite fuzzer, 5 December). Now it names the
    source, and no copy is left."""
    monkeypatch.setenv("LANGUAGE", "en")
    whole, cut, dest = tmp_path / "whole.db", tmp_path / "cut.db", tmp_path / "copy.db"
    SQLiteStore(whole).close()
    cut.write_bytes(whole.read_bytes()[:300])  # its header whole (shorter: no_database)
    assert main(["backup", str(dest), "--db", str(cut)]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    said = (
        f"rollbridge: error: store_error: cannot open {cut}: the database is damaged: restore"
        " it from a backup (SQLITE_CORRUPT: database disk image is malformed)"
    )
    assert err == said + "\n"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["cut.db", "whole.db"]


def test_a_source_whose_schema_words_are_not_utf8_is_named(tmp_path, capsys, monkeypatch):
    """A damaged schema whose words SQLite quotes are not UTF-8: Python's sqlite3
    raised UnicodeDecodeError reading the copy, and ``backup`` let it out, a
    traceback (the SQLite fuzzer, seed 404, 5 December). Now it names the source,
    and no copy is left."""
    monkeypatch.setenv("LANGUAGE", "en")
    source, dest = tmp_path / "x.db", tmp_path / "copy.db"
    SQLiteStore(source).close()
    with sqlite3.connect(source) as conn:  # an unterminated quote: SQLite's error quotes it
        conn.execute("PRAGMA writable_schema = ON")
        conn.execute("UPDATE sqlite_master SET sql = CAST(? AS TEXT) WHERE name = 'log'",
                     (b"CREATE TABLE log('\xfc\xfd)",))  # fmt: skip
    assert main(["backup", str(dest), "--db", str(source)]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert err.startswith(f"rollbridge: error: store_error: cannot open {source}: "), err
    assert not dest.exists()


def test_a_source_with_a_damaged_page_is_named_not_the_backup(tmp_path, capsys, monkeypatch):
    """A page of the source damaged in its middle is copied as it is, and met when
    the copy is read (its tables counted, its check run): the error blamed the
    backup being written (the SQLite fuzzer, seed 505, 5 December). Now it names the
    source, and no copy is left."""
    monkeypatch.setenv("LANGUAGE", "en")
    source, dest = tmp_path / "x.db", tmp_path / "copy.db"
    SQLiteStore(source).close()
    with sqlite3.connect(source) as conn:
        root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'tables'")
        page = root.fetchone()[0]
        size = conn.execute("PRAGMA page_size").fetchone()[0]
    raw = bytearray(source.read_bytes())
    raw[(page - 1) * size : (page - 1) * size + 64] = b"\xff" * 64  # its b-tree header
    source.write_bytes(bytes(raw))
    assert main(["backup", str(dest), "--db", str(source)]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert err.startswith(f"rollbridge: error: store_error: cannot open {source}: "), err
    assert not [p.name for p in tmp_path.iterdir() if "copy" in p.name]  # nor a part of it


def test_backup_given_redis_as_every_other_command_is_refused_with_its_advice(
    tmp_path, capsys, monkeypatch
):
    """An operator on Redis gives ``--redis URL`` to every command (docs/redis.md);
    ``backup --redis URL`` was argparse's ``unrecognized arguments: --redis DEST``
    (exit 2), where docs/operations.md promises ``redis_backup``. It is that refusal,
    naming the option, no password, and nothing is written."""
    monkeypatch.setenv("LANGUAGE", "en")
    dest = tmp_path / "copy.db"
    assert main(["backup", "--redis", "redis://:sekrit@127.0.0.1:6390/0", str(dest)]) == 1
    _out, err = capsys.readouterr()
    assert err.startswith(
        "rollbridge: error: redis_backup: rollbridge backup copies a SQLite file, but --redis"
        " names a Redis server (redis://:***@127.0.0.1:6390/0)"
    ), err
    assert "redis-cli --rdb" in err and "sekrit" not in err
    assert not dest.exists() and list(tmp_path.iterdir()) == []
