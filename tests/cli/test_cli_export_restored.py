"""``rollbridge table export`` of a table restored from a backup: the report says
that the events before the restore are of the earlier epoch (left out of the
export, a backup holds them), not that they "have left the retained log" — they
are in it. An operator walking backup, restore, ``migrate`` to Redis and back met
"Events before #4 have left the retained log." after three rolls and a restore
(docs/operations.md, "Backups"). Real SQLite files."""

from __future__ import annotations

import pytest

from rollbridge.cli import main
from rollbridge.engine.model import Principal
from rollbridge.offline import TableService
from rollbridge.stores.backup import backup
from rollbridge.stores.sqlite import SQLiteStore
from tests.cli.test_cli_restore import HOST, KEY

GM = Principal("gm", "gm", "gm-token")
EARLIER = (
    "Events up to #3 belong to the table's history before it was restored from a backup "
    "(or went on in a new epoch after a Redis failover); an export leaves them out, and a "
    "backup taken before then holds them."
)
#: The same line in each language, as the GM reads it: the restore said, the fence in
#: words (rev27o: "(or fenced)", "abgeschottet", "ограждения" named rollbridge's inner
#: word, and the Russian "которую экспорт не включает" could be read of the backup).
EARLIER_IN = {
    "de": "Ereignisse bis #3 gehören zum Verlauf des Tisches, bevor er aus einer Sicherung "
    "wiederhergestellt wurde (oder nach einem Wechsel auf einen anderen Redis-Server in einer "
    "neuen Epoche weiterlief); ein Export lässt sie aus, eine vorher angelegte Sicherung "
    "enthält sie.",
    "ru": "События до #3 относятся к истории стола до его восстановления из резервной копии "
    "(или до его перехода в новую эпоху после переключения Redis на другой сервер); экспорт "
    "их не включает, они есть в резервной копии, сделанной раньше.",
    "cs": "Události do #3 patří k historii stolu před jeho obnovením ze zálohy (nebo před "
    "jeho přechodem do nové epochy po přepnutí Redisu na jiný server); export je vynechává, "
    "má je záloha pořízená předtím.",
}


def _rolled(service: TableService, first: int, count: int) -> None:
    for n in range(first, first + count):
        service.handle("t", {"type": "roll", "id": f"r{n}", "formula": "2d6"}, GM)


def _report(path, capsys, *more: str) -> str:
    argv = ["table", "export", "t", "--db", str(path), "--as", "gm", "--format", "markdown"]
    assert main([*argv, *more]) == 0
    return capsys.readouterr().out


def test_a_restored_tables_report_names_the_restore_not_the_retained_log(tmp_path, capsys):
    service = TableService(SQLiteStore(tmp_path / "a.db"), HOST, dice_key=KEY)
    service.create_table("t", "bandits", table_id="t")
    _rolled(service, 1, 3)  # 1-3: before the backup
    service.store.close()
    backup(tmp_path / "a.db", tmp_path / "b.db")
    with SQLiteStore(tmp_path / "b.db") as store:  # served: the restore
        store.finish_restore()
    capsys.readouterr()
    report = _report(tmp_path / "b.db", capsys)  # nothing played since the restore
    assert "- Events: none after #0" in report and EARLIER in report
    assert "retained log" not in report
    service = TableService(SQLiteStore(tmp_path / "b.db"), HOST, dice_key=KEY)
    _rolled(service, 4, 2)  # 4-5: after it
    service.store.close()
    report = _report(tmp_path / "b.db", capsys)
    assert "- Events #4 to #5 (2 events)" in report and EARLIER in report
    assert "retained log" not in report  # before: "Events before #4 have left the retained log."
    assert "## #3 " not in report and "## #4 " in report
    report = _report(tmp_path / "b.db", capsys, "--since", "4")  # none of them asked for
    assert "- Events #5 to #5 (1 event)" in report
    assert "Events up to" not in report and "retained log" not in report


def test_a_log_that_lost_its_oldest_events_still_says_so(tmp_path, capsys):
    """Events that did leave the retained log (``--retain``) are said as before."""
    service = TableService(SQLiteStore(tmp_path / "a.db", retain=2), HOST, dice_key=KEY)
    service.create_table("t", "bandits", table_id="t")
    _rolled(service, 1, 5)
    service.store.close()
    report = _report(tmp_path / "a.db", capsys, "--retain", "2")
    assert "Events before #4 have left the retained log." in report
    assert "Events up to" not in report


@pytest.mark.parametrize("locale", sorted(EARLIER_IN))
def test_a_restored_tables_report_says_so_in_each_language(tmp_path, capsys, locale):
    """The line in German, Russian and Czech: the words a GM reads, no inner word."""
    service = TableService(SQLiteStore(tmp_path / "a.db"), HOST, dice_key=KEY)
    service.create_table("t", "bandits", table_id="t")
    _rolled(service, 1, 3)
    service.store.close()
    backup(tmp_path / "a.db", tmp_path / "b.db")
    with SQLiteStore(tmp_path / "b.db") as store:
        store.finish_restore()
    capsys.readouterr()
    report = _report(tmp_path / "b.db", capsys, "--locale", locale)
    assert EARLIER_IN[locale] in report, report
