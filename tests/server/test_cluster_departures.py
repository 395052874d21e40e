"""How a ``serve --redis`` process names another that went away without stopping
(:class:`~rollbridge.server.cluster_peers.Departures`): from the claims a renewal
found run out, once each, with the tables taken over from it. (The whole, over two
real processes and a SIGKILL: tests/stores/test_cluster.py.)"""

from __future__ import annotations

import logging

from rollbridge.server.cluster_peers import Departures, named


def test_a_process_id_is_named_with_its_pid_and_host():
    assert named("serve-web-1.example-4830-9216164f") == (
        "serve-web-1.example-4830-9216164f (pid 4830 on web-1.example)"
    )
    assert named("node-a") == "node-a"  # another shape: as it is


def test_a_process_gone_is_said_once_with_the_tables_taken_from_it(caplog):
    caplog.set_level(logging.WARNING, "rollbridge.cluster")
    departures = Departures()
    for table_id in ("t1", "t2", "t1"):  # t1 taken twice: named once
        departures.took(table_id, "serve-h-1-aa")
    departures.took("t3", "serve-h-2-bb")
    departures.gone([b"serve-h-1-aa", 2500, 7000, b"serve-h-3-cc", 10, 9000])
    # a renewal later: said already
    departures.gone([b"serve-h-1-aa", 3000, 7000, b"serve-h-3-cc", 510, 9000])
    departures.took("t4", "serve-h-3-cc")  # taken after it was said gone: not kept
    assert "serve-h-3-cc" not in departures._taken
    departures.gone([])  # their records ran out (or they are back)
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 2, lines
    assert lines[0].startswith("process serve-h-1-aa (pid 1 on h) went away without stopping")
    assert "ran out 2 s ago" in lines[0] and lines[0].endswith("its 2 tables: t1, t2"), lines
    assert "ran out," in lines[1] and lines[1].endswith("took over none of its tables "
                                                        "(each goes to the first process "
                                                        "that gets a change of it)")  # fmt: skip
    departures.gone([b"serve-h-1-aa", 1000, 8000])  # said again if it claimed again
    assert caplog.records[-1].getMessage().endswith("took over none of its tables "
                                                    "(each goes to the first process that "
                                                    "gets a change of it)")  # fmt: skip


def test_the_tables_taken_from_a_process_back_from_the_gone_are_named_when_it_goes_again(
    caplog,
):
    """A process said gone that comes back (paused longer than its claim: its renewal
    takes it out of the gone) and goes again: the tables this process took from it
    since are named. They were not kept (it was said gone already), and the second
    line said "took over none of its tables"."""
    caplog.set_level(logging.WARNING, "rollbridge.cluster")
    departures = Departures()
    departures.took("t1", "serve-h-1-aa")
    departures.gone([b"serve-h-1-aa", 2500, 7000])  # said, with t1
    departures.gone([])  # back: the renewals no longer answer it
    departures.took("t2", "serve-h-1-aa")  # it ran t2 since, and went again
    departures.gone([b"serve-h-1-aa", 1500, 9000])
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 2, lines
    assert lines[0].endswith("its 1 table: t1") and lines[1].endswith("its 1 table: t2"), lines


def test_what_is_remembered_is_bounded():
    departures = Departures()
    for n in range(Departures.MOST + 5):
        departures.took("t", f"node-{n}")
    for n in range(Departures.TABLES + 5):
        departures.took(f"t{n}", "node-last")
    assert len(departures._taken) == Departures.MOST
    assert "node-0" not in departures._taken  # the oldest forgotten
    departures.gone([part for n in range(Departures.MOST + 5) for part in (f"gone-{n}", 1, n)])
    assert len(departures._said) == Departures.MOST
    assert len(departures._taken["node-last"]) == Departures.TABLES
