"""A GM at a large table (more NPCs than a settings event can carry the records of
under ``--max-event-size``) shows and hides the NPCs' details: the change goes
through, marked ``reread`` for players and observers, and ``rollbridge connect``
reads the table's ``state`` again, so that a player at the terminal sees the NPCs'
tracks right after "on" — a real ``rollbridge serve`` on a free port over a real
SQLite file. Before, the change was refused ``event_too_large``: a GM who could
toggle the setting on a small table could not on a large one."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading

from rollbridge.host import PluginHost
from rollbridge.offline import TableService
from rollbridge.stores.sqlite import SQLiteStore

from .conftest import GM
from .test_server_lifecycle import Serve

#: NPCs whose records (some 160 bytes packed each) pass the least event size the
#: server takes (4 KiB): the settings event cannot carry them.
NPCS = 40
SHEET = {"body": 4, "combat_pool": 3, "armor": {"ballistic": 4, "impact": 2}}


def _settings(shown: bool) -> str:
    change = {"type": "settings", "settings": {"ruleset": {"show_npc_details": shown}}}
    return "json " + json.dumps(change)


class Terminal:
    """``rollbridge connect`` in a subprocess, its lines read as they come (unbuffered)."""

    def __init__(self, url: str, token: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "rollbridge", "connect", url],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "ROLLBRIDGE_TOKEN": token, "PYTHONUNBUFFERED": "1"},
        )  # fmt: skip
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put("")

    def until(self, text: str) -> list[str]:
        """The lines up to the first that holds ``text`` (a hang guard, not a timing)."""
        got = []
        while True:
            try:
                line = self.lines.get(timeout=60)
            except queue.Empty:
                line = ""
            if not line:
                if self.process.poll() is not None:  # it stopped: what it said
                    raise AssertionError(f"{text!r} never came: {self.process.stderr.read()}")
                raise AssertionError(f"{text!r} never came: {''.join(self.seen)}")
            self.seen.append(line)
            got.append(line)
            if text in line:
                return got

    def quit(self) -> str:
        self.process.stdin.write("quit\n")
        self.process.stdin.close()
        self.process.wait(timeout=60)
        return "".join(self.seen) + "".join(iter(lambda: self.lines.get(timeout=60), ""))


def _seed(db) -> dict[str, str]:
    """The table ``t`` (sr2) with Ana, the player's, and :data:`NPCS` guards; its tokens."""
    host = PluginHost(environ={"ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"})
    with SQLiteStore(db) as store:
        service = TableService(store, host)
        _, tokens = service.create_table("Large", "sr2", table_id="t")
        cast = [("ana", "Ana", ["player"])] + [(f"g{n}", f"Guard {n}", []) for n in range(NPCS)]
        for actor_id, name, controllers in cast:
            actor = {"id": actor_id, "name": name, "sheet": SHEET, "controllers": controllers}
            service.handle("t", {"type": "actor.create", "id": f"c-{actor_id}", "actor": actor}, GM)
    return tokens


def _gm(url: str, token: str, line: str) -> str:
    """What the GM's ``rollbridge connect`` prints for ``line``."""
    done = subprocess.run([sys.executable, "-m", "rollbridge", "connect", url],
                          env={**os.environ, "ROLLBRIDGE_TOKEN": token}, input=f"{line}\nquit\n",
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_a_large_tables_settings_change_goes_through_and_connect_reads_it_again(tmp_path):
    db = tmp_path / "large.db"
    tokens = _seed(db)
    server = Serve(db, "--no-demo", "--max-event-size", "4096")
    url = f"ws://127.0.0.1:{server.port}/tables/t"
    last = f"Guard {NPCS - 1} [g{NPCS - 1}]"
    try:
        player = Terminal(url, tokens["player"])
        joined = "".join(player.until(last))
        assert "Physical" not in joined.split("Guard 0 [g0]")[1], joined  # NPCs: no tracks
        for shown in (True, False):
            said = _gm(url, tokens["gm"], _settings(shown))
            assert "settings by gm" in said and "event_too_large" not in said, said
            # the player's terminal: the change, then the table read again, to its last NPC
            after = "".join(player.until(last))
            npcs = after.split("Guard 0 [g0]")[1]
            # every guard's tracks but the last's, whose lines follow the one waited for
            assert npcs.count("Physical: 0/10") == (NPCS - 1 if shown else 0), after
        player.quit()
    finally:
        server.stop()
