"""``rollbridge foundry-release`` given a folder it cannot write, or an ``--unpacked``
folder holding other files: a typed error in the operator's language, exit status 1,
nothing written — not a traceback (before: ``FileNotFoundError``,
``NotADirectoryError`` or ``FileExistsError`` with Python's traceback, the last in
English whatever ``--locale`` said). The same from the release script run alone."""

from __future__ import annotations

import pytest

from rollbridge.adapters.foundry import release
from rollbridge.cli import main

LOCALE_VARIABLES = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")


@pytest.fixture(autouse=True)
def _english_environment(monkeypatch):
    for variable in LOCALE_VARIABLES:
        monkeypatch.delenv(variable, raising=False)


def test_an_out_folder_under_a_file_is_refused_in_the_language(tmp_path, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("mine\n")
    code = main(["foundry-release", "--out", str(blocker / "dist"), "--locale", "cs"])
    out, err = capsys.readouterr()
    assert code == 1 and out == ""
    assert err.startswith(f"rollbridge: error: invalid_request: --out: nelze zapsat {blocker}")
    assert "Traceback" not in err and err.count("\n") == 1
    assert blocker.read_text() == "mine\n"


def test_an_unpacked_folder_holding_other_files_is_refused_and_kept(tmp_path, capsys):
    folder = tmp_path / "other"
    folder.mkdir()
    (folder / "notes.txt").write_text("keep me\n")
    code = main(["foundry-release", "--unpacked", str(folder), "--locale", "de"])
    out, err = capsys.readouterr()
    assert code == 1 and out == ""
    assert err == (
        f"rollbridge: error: invalid_request: --unpacked: {folder} enthält andere Dateien; "
        "geben Sie einen leeren oder neuen Ordner an (oder einen, den --unpacked zuvor "
        "geschrieben hat)\n"
    )
    assert [p.name for p in folder.iterdir()] == ["notes.txt"]


def test_the_script_alone_says_it_in_the_environments_language(tmp_path, capsys, monkeypatch):
    folder = tmp_path / "other"
    folder.mkdir()
    (folder / "notes.txt").write_text("keep me\n")
    monkeypatch.setenv("LANGUAGE", "ru")
    assert release.main(["--unpacked", str(folder)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(
        "python -m rollbridge.adapters.foundry.release: error: invalid_request: --unpacked: "
        f"в {folder} есть другие файлы"
    )
    assert (folder / "notes.txt").read_text() == "keep me\n"
