"""``rollbridge table export``: the session log from the command line, to stdout or
a file, with the store options of the other table commands."""

from __future__ import annotations

import json

from rollbridge.cli import main
from rollbridge.export import export_chunks, read_log
from rollbridge.export.markdown import KINDS


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["table", "export", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_jsonl_to_stdout_is_the_players_log(night, capsys):
    code, out, err = run(capsys, "sr2", "--db", str(night.path), "--as", "player",
                         "--format", "jsonl")  # fmt: skip
    assert (code, err) == (0, "")
    with night.store() as store:
        expected = "".join(export_chunks(read_log(store, "sr2", night.host.rulesets),
                                         "jsonl", "player"))  # fmt: skip
    assert out == expected
    events = [json.loads(line) for line in out.splitlines()]
    assert events[0]["type"] == "welcome"  # the table before seq 1: events[seq] is seq's
    assert events[night.seqs["secret"]]["kind"] == "hidden"


def test_since_and_markdown_to_a_file(night, capsys, tmp_path):
    target = tmp_path / "night.md"
    since = night.seqs["attack"]
    code, out, err = run(capsys, "sr2", "--db", str(night.path), "--as", "gm", "--format",
                         "markdown", "--since", str(since), "--out", str(target))  # fmt: skip
    assert (code, out, err) == (0, "", "")
    text = target.read_text(encoding="utf-8")
    assert text.startswith("# Session log: Friday night\n")
    assert f"## #{since} " not in text and f"## #{since + 1} · adjusted · gm" in text
    assert list(tmp_path.glob("*.part")) == []


def test_the_locale_option(night, capsys):
    code, out, _ = run(capsys, "sr2", "--db", str(night.path), "--as", "gm",
                       "--format", "markdown", "--locale", "de")  # fmt: skip
    roll = KINDS["roll"]().render("de")  # a word the catalogue has in German
    assert code == 0 and roll != "roll"
    assert f"· {roll} ·" in out and "· roll ·" not in out


def test_errors_are_one_line_with_their_code(night, capsys, tmp_path):
    code, out, err = run(capsys, "nope", "--db", str(night.path), "--as", "gm",
                         "--format", "jsonl")  # fmt: skip
    assert (code, out) == (1, "") and err == "rollbridge: error: unknown_table: no table 'nope'\n"
    code, out, err = run(capsys, "sr2", "--db", str(night.path), "--as", "gm",
                         "--format", "jsonl", "--since", "-3")  # fmt: skip
    assert code == 1 and out == "" and err.startswith("rollbridge: error: invalid_request: since:")
    code, out, err = run(capsys, "sr2", "--db", str(night.path), "--as", "gm",
                         "--format", "jsonl", "--since", "999")  # fmt: skip
    assert code == 1 and "seq 999 is after the latest seq" in err
    missing = tmp_path / "no-such-dir" / "x.jsonl"
    code, out, err = run(capsys, "sr2", "--db", str(night.path), "--as", "gm",
                         "--format", "jsonl", "--out", str(missing))  # fmt: skip
    assert code == 1 and err.startswith("rollbridge: error: invalid_request: --out: cannot write")
    assert not missing.parent.exists()


def test_a_players_jsonl_export_verifies_with_rollbridge_verify(tmp_path, capsys):
    """The export holds the frames a client received: ``rollbridge verify`` reads it
    as it reads a client's own log (docs/dice.md, "Verifiable dice")."""
    from rollbridge.host import PluginHost
    from rollbridge.offline import TableService
    from rollbridge.stores.sqlite import SQLiteStore

    from .conftest import GM, PLAYER

    path = tmp_path / "v.db"
    with SQLiteStore(path) as store:
        service = TableService(store, PluginHost())
        service.create_table("Fair dice", "sr2", table_id="v", settings={"verifiable": True})
        for index in range(3):
            service.handle("v", {"type": "roll", "id": f"r{index}", "formula": "4d6x"}, PLAYER)
        service.handle("v", {"type": "dice.reveal", "id": "reveal"}, GM)
    log = tmp_path / "v.jsonl"
    code, _, err = run(capsys, "v", "--db", str(path), "--as", "player", "--format", "jsonl",
                       "--out", str(log))  # fmt: skip
    assert (code, err) == (0, "")
    assert main(["verify", str(log), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is True and report["problems"] == []
    assert report["verified_events"] == 3 and report["verified_dice"] >= 12


def test_an_undone_removal_exports_with_its_place_and_verifies(tmp_path, capsys):
    """The undo of a removal tells where the actor goes back (``index``): the JSONL
    export carries it, the Markdown export reads it, ``rollbridge verify`` takes it."""
    from rollbridge.host import PluginHost
    from rollbridge.offline import TableService
    from rollbridge.stores.sqlite import SQLiteStore

    from .conftest import GM, PLAYER

    path = tmp_path / "o.db"
    with SQLiteStore(path) as store:
        service = TableService(store, PluginHost())
        service.create_table("Order", "sr2", table_id="o", settings={"verifiable": True})
        sheets = service.host.rulesets["sr2"].example_sheets
        for index, name in enumerate(["Tukan", "Guard A"]):
            actor = {"id": f"n{index}", "name": name, "sheet": dict(sheets[name])}
            service.handle("o", {"type": "actor.create", "id": f"a{index}", "actor": actor}, GM)
        service.handle("o", {"type": "actor.remove", "id": "rm", "actor": "n0"}, GM)
        undo = service.handle("o", {"type": "undo", "id": "u"}, GM)["seq"]
        service.handle("o", {"type": "roll", "id": "r", "formula": "4d6x"}, PLAYER)
        service.handle("o", {"type": "dice.reveal", "id": "reveal"}, GM)
    log = tmp_path / "o.jsonl"
    code, _, err = run(capsys, "o", "--db", str(path), "--as", "player", "--format", "jsonl",
                       "--out", str(log))  # fmt: skip
    assert (code, err) == (0, "")
    events = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    undone = next(e for e in events if e.get("seq") == undo)
    assert [(a["id"], a.get("index")) for a in undone["actors"]] == [("n0", 0)]
    assert main(["verify", str(log), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is True and report["verified_events"] == 1
    code, out, err = run(capsys, "o", "--db", str(path), "--as", "gm", "--format", "markdown")
    assert (code, err) == (0, "") and f"## #{undo} · undo · gm" in out
