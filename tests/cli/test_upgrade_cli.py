"""The operator's commands on a file an older rollbridge wrote
(``tests/upgrade_files.py``): ``table list``, ``table export`` (the GM's and the
players' view, JSON Lines and Markdown), ``table stats``, ``rollbridge verify`` of an
exported log with verifiable dice, and ``rollbridge backup`` and its restore."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout

import pytest

from rollbridge.cli import main
from rollbridge.dice.verifiable import DiceKey
from rollbridge.engine.model import Principal
from rollbridge.host import PluginHost
from rollbridge.offline import TableService
from rollbridge.stores.sqlite import SQLiteStore
from tests.upgrade_files import VERSIONS, old_file

GM = Principal("gm", "gm", "upgrade-gm")


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(list(argv))
    return status, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("commit", VERSIONS)
def test_an_old_file_lists_exports_and_verifies(commit, tmp_path):
    old = old_file(commit, tmp_path)
    db = str(old.path)
    status, listed, err = _run("table", "list", "--db", db)
    assert status == 0 and err == "", err
    for ruleset, meta in old.tables.items():
        assert meta["table"] in listed
        for who in ("gm", "player"):
            log = tmp_path / f"{ruleset}-{who}.jsonl"
            for form, target in (("jsonl", log), ("markdown", tmp_path / f"{ruleset}.md")):
                status, _, err = _run(
                    "table",
                    "export",
                    meta["table"],
                    "--db",
                    db,
                    "--as",
                    who,
                    "--format",
                    form,
                    "--out",
                    str(target),
                )
                assert status == 0, (ruleset, who, form, err)
            welcome, *events = [json.loads(line) for line in log.read_text().splitlines()]
            assert (welcome["type"], welcome["seq"]) == ("welcome", 0)  # the table before
            seqs = [event["seq"] for event in events]
            assert seqs == list(range(1, meta["seq"] + 1)), (ruleset, who)
            if old.verifiable:
                status, out, err = _run("verify", str(log))
                assert status == 0, (ruleset, who, out, err)
        status, _, err = _run("table", "stats", meta["table"], "--db", db)
        assert status == 0, (ruleset, err)


@pytest.mark.parametrize("commit", VERSIONS)
def test_a_backup_of_an_old_file_restores(commit, tmp_path):
    old = old_file(commit, tmp_path / "old")
    backup = tmp_path / "backup.db"
    status, _, err = _run("backup", "--db", str(old.path), str(backup))
    assert status == 0, err
    if old.verifiable:
        key = old.path.with_suffix(".db.dice-key").read_text()
        (tmp_path / "backup.db.dice-key").write_text(key)
    with SQLiteStore(backup) as store:
        restored = store.finish_restore()
        assert restored is not None and len(restored.moved) == len(old.tables)
        service = TableService(store, PluginHost(), dice_key=DiceKey.for_store(store))
        for ruleset, meta in old.tables.items():
            snapshot, _ = store.load(meta["table"])
            assert snapshot.info.seq == meta["seq"] and snapshot.info.epoch != 1
            assert [a for a in snapshot.actors] == [a["id"] for a in meta["actors"]["gm"]]
            if old.verifiable:  # the open segment's reveal still reveals its seed
                reply = service.handle(meta["table"], {"type": "dice.reveal", "id": "r"}, GM)
                kinds = [e.kind for e in service.store.events_after(meta["table"], meta["seq"])]
                assert "dice.revealed" in kinds and "dice.abandoned" not in kinds, (ruleset, reply)
