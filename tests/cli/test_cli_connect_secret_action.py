"""``rollbridge connect``'s ``actions`` says which action the ruleset keeps secret
whoever asks (``ActionSpec(secret=True)``, tests/plugins/test_secret_actions.py), in
the terminal's language, and a player asking for it reads a secret roll's reply. A
real ``rollbridge connect`` against a real server on a real port."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.test_cli_connect_actions import actions_printed
from tests.cli.test_cli_reconnect import Terminal
from tests.conftest import installed_plugin
from tests.plugins.test_secret_actions import served

#: The heading of ``listen`` in each language (its summary is the ruleset's, English).
HEADINGS = {
    "en": "[actor=ID required; always secret: players see only that something happened]",
    "de": "[actor=ID erforderlich; immer geheim: Spieler sehen nur, dass etwas geschehen ist]",
    "cs": "[actor=ID povinný; vždy tajné: hráči vidí jen, že se něco stalo]",
    "ru": "[actor=ID обязателен; всегда секретно: игроки видят лишь, что что-то произошло]",
}


@pytest.mark.parametrize("locale", sorted(HEADINGS))
async def test_actions_says_an_action_is_always_secret(tmp_path, locale):
    server, store, tokens = await served(tmp_path)
    try:
        player = await Terminal.start(
            f"{server.url}tables/night", tokens["player"], "--locale", locale
        )
        printed = [line.rstrip("\n") for line in await actions_printed(player)]
    finally:
        await server.stop()
        store.close()
    listen = next(line for line in printed if line.startswith("  listen: "))
    assert listen.endswith(HEADINGS[locale]), "\n".join(printed)
    test = next(line for line in printed if line.startswith("  test: "))
    assert HEADINGS[locale].split("; ")[1] not in test, test


async def test_a_player_asking_for_it_reads_that_it_went_to_the_gm(tmp_path):
    server, store, tokens = await served(tmp_path)
    try:
        player = await Terminal.start(f"{server.url}tables/night", tokens["player"])
        try:
            await player.until("help")
            first = len(player.lines)
            await player.type('json {"type": "resolve", "id": "l1", "action": "listen", '
                              '"actor": "hero"}')  # fmt: skip
            await player.until("sent to the GM only")
        finally:
            await player.stop()
    finally:
        await server.stop()
        store.close()
    said = "".join(player.lines[first:])
    assert "hears" not in said and "1d10" not in said, said


@pytest.mark.parametrize(
    ("locale", "said"),
    [("en", "  listen (always secret): "), ("cs", "  listen (vždy tajné): "),
     ("de", "  listen (immer geheim): "), ("ru", "  listen (всегда секретно): ")],
)  # fmt: skip
def test_rulesets_says_it_too(tmp_path, locale, said):
    """``rollbridge rulesets`` (offline, the ruleset installed as a plugin) marks the
    action as it marks a GM's own, in the reader's language."""
    site = installed_plugin(tmp_path / "site", "listener", LISTENER)
    environ = {key: value for key, value in os.environ.items()
               if key != "ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD"}  # fmt: skip
    environ["PYTHONPATH"] = os.pathsep.join([str(site), str(ROOT)])
    done = subprocess.run([sys.executable, "-m", "rollbridge", "rulesets", "listener",
                           "--locale", locale], capture_output=True, text=True, env=environ,
                          cwd=tmp_path, timeout=60, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert any(line.startswith(said) for line in lines), done.stdout
    assert any(line.startswith("  test: ") for line in lines), done.stdout


#: The plugin module of tests/plugins/listener.py's ruleset.
LISTENER = """
    import rollbridge
    from tests.plugins.listener import Listener

    @rollbridge.hookimpl
    def register_rulesets(register):
        register(Listener())
"""
ROOT = Path(__file__).resolve().parents[2]
