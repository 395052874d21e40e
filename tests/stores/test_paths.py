"""Where the database lives by default (rollbridge.paths)."""

from __future__ import annotations

import stat
import sys
from pathlib import Path

import pytest

from rollbridge.paths import default_data_dir, default_db_path


def test_rollbridge_db_wins_and_its_folder_is_created(tmp_path):
    wanted = tmp_path / "deep" / "er" / "my.db"
    env = {"ROLLBRIDGE_DB": str(wanted), "XDG_DATA_HOME": str(tmp_path / "xdg")}
    assert default_db_path(environ=env, platform="linux", home=tmp_path) == wanted
    assert wanted.parent.is_dir() and not wanted.exists()


def test_xdg_data_home(tmp_path):
    env = {"XDG_DATA_HOME": str(tmp_path / "xdg")}
    path = default_db_path(environ=env, platform="linux", home=tmp_path / "home")
    assert path == tmp_path / "xdg" / "rollbridge" / "rollbridge.db"
    assert path.parent.is_dir()
    if sys.platform != "win32":
        assert stat.S_IMODE(path.parent.stat().st_mode) & 0o077 == 0  # private


@pytest.mark.parametrize("xdg", [None, "", "relative/dir"])
def test_linux_default_ignores_a_missing_or_relative_xdg(tmp_path, xdg):
    env = {} if xdg is None else {"XDG_DATA_HOME": xdg}
    path = default_db_path(environ=env, platform="linux", home=tmp_path)
    assert path == tmp_path / ".local" / "share" / "rollbridge" / "rollbridge.db"


@pytest.mark.parametrize(
    ("platform", "env", "expected"),
    [
        ("darwin", {}, Path("Library", "Application Support", "rollbridge")),
        ("win32", {}, Path("AppData", "Roaming", "rollbridge")),
        ("win32", {"APPDATA": "APPDATA"}, Path("APPDATA", "rollbridge")),
    ],
)
def test_other_platforms(tmp_path, platform, env, expected):
    env = {k: str(tmp_path / v) for k, v in env.items()}
    assert default_data_dir(environ=env, platform=platform, home=tmp_path) == tmp_path / expected
    path = default_db_path(environ=env, platform=platform, home=tmp_path, create=False)
    assert path == tmp_path / expected / "rollbridge.db"
    assert not path.parent.exists()
