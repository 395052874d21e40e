"""An honest export of a verifiable table verifies wherever it starts: after a
segment's ``dice.committed`` (``--since``, ``--retain``, a pruned log, a restored
backup) it opens with the ``welcome`` a client joining then would have been sent,
naming the open segment and its commitments (docs/dice.md, "Verifiable dice").
Before, such an export failed ``rollbridge verify`` with ``uncommitted`` or
``unknown_segment`` though the server was honest. What that first line claims is
only as good as the commitments it names: a tampered die, a forged commitment or a
made-up seed still fails."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from rollbridge.cli import main
from rollbridge.cli.offline import offline_host
from rollbridge.dice.sources import SeededDice
from rollbridge.engine.model import Principal
from rollbridge.offline import TableService
from rollbridge.protocol.effects import Persist
from rollbridge.stores.backup import backup
from rollbridge.stores.memory import MemoryStore
from rollbridge.stores.sqlite import SQLiteStore
from tests.server.httpclient import get

GM = Principal("gm", "gm", "gm-token")
PLAYER = Principal("player", "pat", "player-token")
HOST = offline_host()


def _roll(service: TableService, rid: str, who: Principal = PLAYER, **fields: Any) -> int:
    message = {"type": "roll", "id": rid, "formula": "3d6!! + 1d8", **fields}
    return service.handle("t", message, who)["seq"]


def play(path: Path, **store_options: Any) -> dict[str, int]:
    """A verifiable bandits table on SQLite (its dice key the file beside it):
    segment 1 rolled and revealed, segment 2 rolled and revealed, segment 3 open.
    Returns the seqs by name."""
    seqs: dict[str, int] = {}
    with SQLiteStore(path, **store_options) as store:
        service = TableService(store, HOST)
        service.create_table("t", "bandits", table_id="t", settings={"verifiable": True})
        for n in range(3):
            seqs[f"a{n}"] = _roll(service, f"a{n}")
        seqs["secret"] = _roll(service, "s", GM, secret=True)
        # a reveal answers with its last event: the next segment's commitment
        seqs["commit2"] = service.handle("t", {"type": "dice.reveal", "id": "v1"}, GM)["seq"]
        for n in range(3):
            seqs[f"b{n}"] = _roll(service, f"b{n}")
        seqs["commit3"] = service.handle("t", {"type": "dice.reveal", "id": "v2"}, GM)["seq"]
    return seqs


@pytest.fixture
def night(tmp_path) -> tuple[Path, dict[str, int]]:
    path = tmp_path / "v.db"
    return path, play(path)


def export(capsys, path: Path, *options: str, audience: str = "player") -> list[str]:
    code = main(["table", "export", "t", "--db", str(path), "--as", audience,
                 "--format", "jsonl", *options])  # fmt: skip
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    return out.splitlines()


def verify(capsys, tmp_path: Path, lines: list[str]) -> tuple[int, dict[str, Any]]:
    """``rollbridge verify --json`` on these lines: its exit status and report."""
    log = tmp_path / "export.jsonl"
    log.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    code = main(["verify", str(log), "--json"])
    return code, json.loads(capsys.readouterr().out)


def codes(report: dict[str, Any]) -> list[str]:
    return [problem["code"] for problem in report["problems"]]


@pytest.mark.parametrize("audience", ["player", "gm"])
def test_an_export_since_a_seq_mid_segment_verifies(night, tmp_path, capsys, audience):
    path, seqs = night
    lines = export(capsys, path, "--since", str(seqs["a0"]), audience=audience)
    welcome = json.loads(lines[0])
    assert welcome["type"] == "welcome" and welcome["seq"] == seqs["a0"]
    assert welcome["role"] == audience and welcome["table"]["seq"] == seqs["a0"]
    dice = welcome["table"]["dice"]
    assert dice["segment"] == 1 and dice["open"] is True and dice["since"] < seqs["a0"]
    assert json.loads(lines[1])["seq"] == seqs["a0"] + 1
    code, report = verify(capsys, tmp_path, lines)
    assert (code, report["ok"]) == (0, True), report["problems"]
    assert report["verified_events"] == (6 if audience == "gm" else 5)
    assert report["segments"] == {"1": "revealed", "2": "revealed", "3": "committed"}
    assert report["welcomed"] == {"1": dice["commitment"]}  # the first line's word
    # the same log without its first line: what every such export was before
    code, report = verify(capsys, tmp_path, lines[1:])
    assert code == 1 and codes(report)[0] == "uncommitted"


def test_an_export_that_starts_at_a_segments_border_names_no_open_segment(night, capsys):
    """Every export opens with the table as it stood before its first event (for
    ``rollbridge verify`` to resolve its resolutions again); where no segment was
    open then, that welcome names none, and the next segment's commitment follows."""
    path, seqs = night
    whole = [json.loads(line) for line in export(capsys, path)]
    assert whole[0]["type"] == "welcome" and whole[0]["table"]["dice"] is None  # seq 0
    assert whole[1]["seq"] == 1
    border = [json.loads(line) for line in
              export(capsys, path, "--since", str(seqs["commit2"] - 1))]  # fmt: skip
    assert border[0]["type"] == "welcome" and not border[0]["table"]["dice"]["open"]
    assert border[1]["kind"] == "dice.committed"
    assert [e["type"] for e in border[1:]] == ["event"] * (len(border) - 1)


def test_an_export_of_a_pruned_log_verifies(night, tmp_path, capsys):
    path, seqs = night
    keep = seqs["commit3"] - seqs["b0"]  # the log starts at b1, in segment 2
    lines = export(capsys, path, "--retain", str(keep), audience="gm")
    assert json.loads(lines[0])["table"]["dice"]["segment"] == 2
    assert json.loads(lines[1])["seq"] == seqs["b1"]
    code, report = verify(capsys, tmp_path, lines)
    assert (code, report["verified_events"]) == (0, 2), report["problems"]
    code, report = verify(capsys, tmp_path, lines[1:])  # as it was exported before
    assert code == 1 and codes(report)[0] == "uncommitted"


def short_lived(path: Path) -> int:
    """:func:`play` on a store keeping 3 events, then rolls past its pruning (a
    snapshot every 128 events prunes the log); returns the latest seq."""
    play(path, retain=3)
    with SQLiteStore(path, retain=3) as store:
        service = TableService(store, HOST)
        return max(_roll(service, f"c{n}") for n in range(140))


def test_an_export_of_a_log_a_shorter_retain_pruned_starts_where_it_is_held(tmp_path, capsys):
    """A file written by a store with a shorter ``retain`` (``serve --retain 3``)
    holds less than the export's own ``retain`` reads back: the export starts at the
    oldest event held, where it answered "kept changing while it was read" every
    time (found by rev22d)."""
    latest = short_lived(tmp_path / "short.db")
    lines = export(capsys, tmp_path / "short.db", audience="gm")
    events = [json.loads(line) for line in lines[1:]]
    assert events[-1]["seq"] == latest and len(events) < latest - 100  # pruned
    assert [e["seq"] for e in events] == list(range(events[0]["seq"], latest + 1))
    code, report = verify(capsys, tmp_path, lines)
    assert code == 0, report["problems"]


def test_stats_of_a_log_a_shorter_retain_pruned_counts_what_is_held(tmp_path, capsys):
    """``stats`` reads the retained log the same way (:class:`ReadRetained`), and
    found none of it in a file a shorter ``retain`` wrote."""
    from rollbridge.protocol.table import ReadRetained

    latest = short_lived(tmp_path / "short.db")
    with SQLiteStore(tmp_path / "short.db") as store:
        events = ReadRetained("t", latest=latest).run(store)
    assert events is not None
    assert events[-1].seq == latest and len(events) < latest - 100  # pruned
    assert [e.seq for e in events] == list(range(events[0].seq, latest + 1))


@contextmanager
def restored(path: Path, copy: Path) -> Iterator[TableService]:
    """A backup of ``path`` at ``copy`` (its dice key beside it), restored, served, its
    open segment 3 ended by the GM (a restored open segment rolls no dice)."""
    backup(path, copy)
    Path(f"{copy}.dice-key").write_bytes(Path(f"{path}.dice-key").read_bytes())
    with SQLiteStore(copy) as store:
        assert store.finish_restore() is not None
        service = TableService(store, HOST)
        service.handle("t", {"type": "dice.reveal", "id": "r1"}, GM)  # the restored 3
        yield service


def test_an_export_of_a_restored_backup_verifies(tmp_path, capsys):
    """The backup's open segment is revealed in the new epoch: the export holds only
    the new epoch's events, and its first line names that segment, committed in the
    epoch before."""
    path = tmp_path / "a.db"
    seqs = play(path)
    with SQLiteStore(path) as store:
        _roll(TableService(store, HOST), "c0")  # segment 3 rolls: the restore keeps it open
    with restored(path, tmp_path / "b.db") as service:
        _roll(service, "d0")
        service.handle("t", {"type": "dice.reveal", "id": "r2"}, GM)
        epoch = service.table("t").info.epoch
    lines = export(capsys, tmp_path / "b.db")
    welcome = json.loads(lines[0])
    assert welcome["epoch"] == epoch and welcome["table"]["dice"]["restored"] is True
    assert welcome["table"]["dice"]["epoch"] == 1 and welcome["seq"] == seqs["commit3"] + 1
    code, report = verify(capsys, tmp_path, lines)
    assert code == 0, report["problems"]
    assert report["segments"] == {"3": "revealed", "4": "revealed", "5": "committed"}
    assert report["verified_events"] == 1 and report["epochs"] == [epoch]
    code, report = verify(capsys, tmp_path, lines[1:])  # as it was exported before
    assert code == 1 and codes(report) == ["unknown_segment"]


def test_an_export_of_a_restored_backup_says_which_epochs_its_history_ran_through(tmp_path, capsys):
    """Its first line carries ``epochs`` as the live welcome does (docs/protocol.md):
    epoch 1 from its start, the restored epoch from the backup's seq; and ``verify``
    accepts the log with it and without it (an export of an older server)."""
    path = tmp_path / "a.db"
    seqs = play(path)
    with restored(path, tmp_path / "b.db") as service:
        _roll(service, "d0")
        epoch = service.table("t").info.epoch
        live = service.protocol("t").welcome_fields(GM)["epochs"]
    expected = [{"epoch": 1, "from": 0}, {"epoch": epoch, "from": seqs["commit3"]}]
    assert live == expected
    for audience in ("player", "gm"):
        lines = export(capsys, tmp_path / "b.db", audience=audience)
        welcome = json.loads(lines[0])
        assert welcome["epoch"] == epoch and welcome["epochs"] == expected
        code, report = verify(capsys, tmp_path, lines)
        assert code == 0, report["problems"]
        without = json.loads(lines[0])
        del without["epochs"]
        code, report = verify(capsys, tmp_path, [json.dumps(without), *lines[1:]])
        assert code == 0, report["problems"]
    never = [json.loads(line) for line in export(capsys, path)]  # never restored: none
    assert "epochs" not in never[0]


def test_an_edited_epochs_makes_no_forged_result_pass(tmp_path, capsys):
    """``epochs`` tells a client which epochs the history ran through; ``verify`` reads
    nothing from it. A player who forges a roll's total and edits ``epochs`` (to put
    the roll outside the history, or name epochs that never were) still gets
    ``wrong_roll``; an edited ``epochs`` alone changes no verdict."""
    play(tmp_path / "a.db")
    with restored(tmp_path / "a.db", tmp_path / "b.db") as service:
        _roll(service, "d0")
        service.handle("t", {"type": "dice.reveal", "id": "r2"}, GM)
    first, *rest = (json.loads(line) for line in export(capsys, tmp_path / "b.db"))
    forged = next(e for e in rest if e["kind"] == "roll" and "total" in e["data"])
    forged["data"]["total"] += 1
    edits = [[{"epoch": first["epoch"], "from": forged["seq"]}], [{"epoch": 12345, "from": 0}], "x"]

    def verdicts() -> list[tuple[int, list[str]]]:
        out = []
        for epochs in edits:
            lines = [json.dumps(e) for e in [{**first, "epochs": epochs}, *rest]]
            code, report = verify(capsys, tmp_path, lines)
            out.append((code, codes(report)))
        return out

    assert verdicts() == [(1, ["wrong_roll"])] * len(edits)
    forged["data"]["total"] -= 1  # as it was shown
    assert verdicts() == [(0, [])] * len(edits)


# -- what the first line can and cannot claim ------------------------------------------


def tamper(lines: list[str], change) -> list[str]:
    entries = [json.loads(line) for line in lines]
    change(entries)
    return [json.dumps(entry) for entry in entries]


def _first_roll(entries: list[dict[str, Any]]) -> dict[str, Any]:
    return next(e for e in entries if e.get("kind") == "roll")


def _changed_die(entries: list[dict[str, Any]]) -> None:
    """A die a roll of the welcome's segment drew, changed."""
    drawn = _first_roll(entries)["data"]["draws"]["dice"]
    faces, value = drawn[-1]
    drawn[-1] = [faces, value % faces + 1]


def _changed_total(entries: list[dict[str, Any]]) -> None:
    """A roll of the welcome's segment shown with another total than its dice give."""
    _first_roll(entries)["data"]["total"] += 1


def _forged_commitment(entries: list[dict[str, Any]]) -> None:
    entries[0]["table"]["dice"]["commitment"] = hashlib.sha256(b"another seed").hexdigest()


def _forged_seed(entries: list[dict[str, Any]]) -> None:
    """A made-up seed, revealed against a commitment the first line says is to it."""
    seed = hashlib.sha256(b"a seed of the forger's choice").digest()
    entries[0]["table"]["dice"]["commitment"] = hashlib.sha256(seed).hexdigest()
    reveal = next(e for e in entries if e.get("kind") == "dice.revealed")
    reveal["data"]["seed"] = seed.hex()
    reveal["data"]["commitment"] = entries[0]["table"]["dice"]["commitment"]


def _later_commitment(entries: list[dict[str, Any]]) -> None:
    """The welcome claims the segment was committed after the rolls it shows."""
    entries[0]["table"]["dice"]["since"] = entries[-1]["seq"]


def _other_epoch(entries: list[dict[str, Any]]) -> None:
    entries[0]["table"]["dice"]["epoch"] = 7  # the seed derived for another epoch


def _committed_again(entries: list[dict[str, Any]]) -> None:
    """A welcome naming a segment the log then commits: the log's own word wins."""
    committed = next(e for e in entries if e.get("kind") == "dice.committed")
    entries[0]["table"]["dice"]["segment"] = committed["data"]["segment"]


@pytest.mark.parametrize(
    ("change", "found"),
    [
        (_changed_die, "wrong_die"),
        (_changed_total, "wrong_roll"),
        (_forged_commitment, "wrong_seed"),
        (_forged_seed, "wrong_die"),
        (_later_commitment, "uncommitted"),
        (_other_epoch, "wrong_die"),
        (_committed_again, "committed_twice"),
    ],
)
def test_a_tampered_export_still_fails(night, tmp_path, capsys, change, found):
    path, seqs = night
    lines = export(capsys, path, "--since", str(seqs["a0"]))
    assert verify(capsys, tmp_path, lines)[0] == 0
    code, report = verify(capsys, tmp_path, tamper(lines, change))
    assert code == 1 and found in codes(report), report["problems"]


# -- the same over HTTP ----------------------------------------------------------------


async def _verifiable_night(tables) -> dict[str, Any]:
    """On a live server's sr2 table: verifiable on, the player rolls in segment 1,
    the GM reveals, the player rolls in segment 2, the GM reveals."""
    gm, _ = await tables.join("sr2", "gm")
    player, _ = await tables.join("sr2", "player")
    await gm.request({"type": "settings", "settings": {"verifiable": True}})
    first = [(await player.request({"type": "roll", "formula": "4d6x"}))["seq"]
             for _ in range(3)]  # fmt: skip
    await gm.request({"type": "dice.reveal"})
    second = [(await player.request({"type": "roll", "formula": "2d10"}))["seq"]
              for _ in range(2)]  # fmt: skip
    await gm.request({"type": "dice.reveal"})
    return {"first": first, "second": second}


async def _export(tables, role: str, query: str) -> list[str]:
    status, headers, body = await get(tables.server, f"/tables/sr2/export?format=jsonl{query}",
                                      token=tables.tokens["sr2"][role])  # fmt: skip
    assert status == 200 and headers["Content-Type"] == "application/x-ndjson"
    return body.decode("utf-8").splitlines()


async def test_an_http_export_since_mid_segment_verifies_and_tampering_fails(
    make_tables, tmp_path, capsys
):
    tables = await make_tables(dice=lambda: SeededDice(5))
    played = await _verifiable_night(tables)
    for role in ("player", "gm"):
        lines = await _export(tables, role, f"&since={played['first'][0]}")
        assert json.loads(lines[0])["table"]["dice"]["segment"] == 1
        code, report = verify(capsys, tmp_path, lines)
        assert (code, report["verified_events"]) == (0, 4), (role, report["problems"])
        for change, found in ((_changed_die, "wrong_die"), (_forged_seed, "wrong_die")):
            code, report = verify(capsys, tmp_path, tamper(lines, change))
            assert code == 1 and found in codes(report), role


async def test_an_http_export_of_a_pruned_log_verifies(make_tables, tmp_path, capsys):
    tables = await make_tables(retain=4)
    played = await _verifiable_night(tables)
    lines = await _export(tables, "player", "")
    first = json.loads(lines[1])["seq"]
    assert json.loads(lines[0])["table"]["dice"]["segment"] == 2
    assert played["second"][0] <= first <= played["second"][-1]  # pruned mid-segment
    code, report = verify(capsys, tmp_path, lines)
    assert code == 0 and report["verified_events"] >= 1, report["problems"]


# -- the first line is the protocol's welcome, of that seq ------------------------------


def test_a_gm_exports_welcome_tells_nothing_of_a_later_seq(tmp_path, capsys):
    """The GM's welcome line is the table as it stood before the first event: a
    request made pending later, and a redo that an undo after it allowed, are not in
    it. Before, it listed the table's ``pending``, ``can_undo`` and ``can_redo`` as
    they stand now. A view of an earlier seq leaves them out (the events after it do
    not tell them), as does the GM's ``state`` at an earlier seq; the table now has
    them. The line is the protocol's own ``welcome`` (its fields, the ruleset's words)."""
    path = tmp_path / "w.db"
    with SQLiteStore(path) as store:
        service = TableService(store, HOST)
        service.create_table("t", "wilddie", table_id="t",
                             settings={"verifiable": True, "approval": True})  # fmt: skip
        sheet = HOST.ruleset("wilddie").example_sheets["Guard"]
        guard = {"id": "guard", "name": "Guard", "sheet": sheet}
        service.handle("t", {"type": "actor.create", "id": "a", "actor": guard}, GM)
        service.handle("t", {"type": "resolve", "id": "g", "action": "trait", "actor": "guard",
                             "params": {"trait": "notice"}}, GM)  # fmt: skip
        at = service.table("t").info.seq
        asked = service.handle("t", {"type": "roll", "id": "p", "formula": "1d6"}, PLAYER)
        assert asked["status"] == "pending"
        service.handle("t", {"type": "undo", "id": "u"}, GM)
        now = service.handle("t", {"type": "state", "id": "s"}, GM)["table"]
        then = service.handle("t", {"type": "state", "id": "s2", "at": at}, GM)["table"]
        fields = service.protocol("t").welcome_fields(Principal("gm", "export", "export"))
    assert [entry["id"] for entry in now["pending"]] == ["p"]
    assert now["can_redo"] is True and now["can_undo"] is True
    assert not {"pending", "can_undo", "can_redo"} & set(then)
    lines = export(capsys, path, "--since", str(at), audience="gm")
    welcome = json.loads(lines[0])
    assert welcome["type"] == "welcome" and welcome["seq"] == at
    assert not {"pending", "can_undo", "can_redo"} & set(welcome["table"])
    assert welcome["table"] == then
    assert set(welcome) == {"type", "id", "protocol", *fields}
    assert welcome["id"] is None and welcome["ruleset"] == fields["ruleset"]
    code, report = verify(capsys, tmp_path, lines)
    assert code == 0, report["problems"]


def test_a_gms_welcome_while_a_change_is_written_has_the_table_now():
    """A live welcome is of the last durable seq, the changes still being written
    following it as events: the GM's still lists the table's pending requests (the
    web table follows them from there), not an earlier seq's nothing."""
    service = TableService(MemoryStore(), HOST)
    service.create_table("t", "bandits", table_id="t", settings={"approval": True})
    service.handle("t", {"type": "roll", "id": "p", "formula": "1d6"}, PLAYER)
    protocol = service.protocol("t")
    effects = protocol.receive({"type": "roll", "id": "r", "formula": "1d6"}, GM)
    assert any(isinstance(effect, Persist) for effect in effects)  # not written yet
    assert protocol.durable_seq < protocol.table.info.seq
    fields = protocol.welcome_fields(GM)
    assert fields["seq"] == protocol.durable_seq
    assert [entry["id"] for entry in fields["table"]["pending"]] == ["p"]
    assert {"can_undo", "can_redo"} <= set(fields["table"])
    at = protocol.table.view(gm=True, at=protocol.durable_seq, later=protocol.writing)
    assert "pending" not in at  # the engine's view of an earlier seq has none
