"""``rollbridge verify`` as a newcomer meets it: an empty file, two tables' logs put
together, the events of one table under another's welcome.

- An empty file said only "no verifiable dice in this log (is the table's setting
  verifiable on?)": an export of a table without events is empty (and honest, exit
  0), but so is an export that failed before it wrote. The report now says the log
  holds no events.
- Two tables' exports put together in one file read as the first table's: its
  second ``welcome`` and events gave "seq 1 comes after seq 10: events are out of
  order or repeated", and the seeds of the second table's segment 1 as "the
  revealed seed does not match". The first line of another table is now named.
- One table's events under another table's ``welcome`` verified (exit 0): every
  event names its table (``table``), which verify did not read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rollbridge.cli import main
from rollbridge.cli.offline import offline_host
from rollbridge.engine.model import Principal
from rollbridge.offline import TableService
from rollbridge.stores.sqlite import SQLiteStore
from tests.dice.test_verify_missing import export, play

pytestmark = pytest.mark.usefixtures("english_without_stores")

GM = Principal("gm", "gm", "gm-token")
PLAYER = Principal("player", "pat", "player-token")


def _other(path: Path) -> None:
    """Table ``u``: three rolls and a reveal."""
    with SQLiteStore(path) as store:
        service = TableService(store, offline_host())
        service.create_table("u", "bandits", table_id="u", settings={"verifiable": True})
        for n in range(3):
            service.handle("u", {"type": "roll", "id": f"r{n}", "formula": "2d6"}, PLAYER)
        service.handle("u", {"type": "dice.reveal", "id": "v"}, GM)


@pytest.fixture
def logs(tmp_path, capsys) -> tuple[list[dict], list[dict]]:
    """The player's exports of table ``t`` and of table ``u``."""
    play(tmp_path / "t.db")
    first = export(capsys, tmp_path / "t.db")
    _other(tmp_path / "u.db")
    code = main(["table", "export", "u", "--db", str(tmp_path / "u.db"), "--as", "player",
                 "--format", "jsonl"])  # fmt: skip
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    return first, [json.loads(line) for line in out.splitlines()]


def _verify(capsys, tmp_path: Path, lines: list[dict], *options: str) -> tuple[int, str]:
    log = tmp_path / "log.jsonl"
    log.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    code = main(["verify", str(log), *options])
    out, err = capsys.readouterr()
    return code, out + err


@pytest.mark.parametrize("text", ["", "\n\n", "   \n"])
def test_an_empty_file_says_it_holds_no_events(tmp_path, capsys, text):
    """An export of a table without events is empty, and honest (exit 0); so is one
    that failed before it wrote. The report says the log holds no events."""
    log = tmp_path / "log.jsonl"
    log.write_text(text)
    assert main(["verify", str(log)]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert out.splitlines()[1:] == [
        "this log holds no events: an export of a table that has none is empty, and so is "
        "an export that failed before it wrote (check that the table and the token are right)",
        "no verifiable dice in this log (is the table's setting verifiable on?)",
    ]


def test_each_log_alone_verifies(tmp_path, capsys, logs):
    for lines in logs:
        assert _verify(capsys, tmp_path, lines)[0] == 0


def test_two_tables_logs_put_together_name_the_other_table(tmp_path, capsys, logs):
    first, second = logs
    code, said = _verify(capsys, tmp_path, [*first, *second], "--json")
    assert code == 1
    problems = json.loads(said)["problems"]
    assert problems[0] == {
        "position": len(first) + 1, "seq": None, "code": "other_table",
        "message": "a line of table 'u' in the log of table 't': a log holds one table's "
                   "events (logs put together?); verify each table's log on its own",
    }  # fmt: skip
    assert "out_of_order" not in [p["code"] for p in problems]
    assert "wrong_seed" not in [p["code"] for p in problems]


def test_one_tables_events_under_anothers_welcome_are_a_mismatch(tmp_path, capsys, logs):
    first, second = logs
    code, said = _verify(capsys, tmp_path, [first[0], *second[1:]])
    assert code == 1
    assert "MISMATCH at line 2: a line of table 'u' in the log of table 't'" in said
