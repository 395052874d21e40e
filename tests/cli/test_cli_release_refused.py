"""``rollbridge foundry-release`` given a folder it cannot write, or an ``--unpacked``
folder holding other files: a typed error in the operator's language, exit status 1,
nothing written — not a traceback (before: ``FileNotFoundError``,
``NotADirectoryError`` or ``FileExistsError`` with Python's traceback, the last in
English whatever ``--locale`` said). The same from the release script run alone."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from rollbridge.adapters.foundry import release
from rollbridge.cli import main
from rollbridge.cli import release as release_command

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
    assert release_command.main(["--unpacked", str(folder)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(
        "python -m rollbridge.adapters.foundry.release: error: invalid_request: --unpacked: "
        f"в {folder} есть другие файлы"
    )
    assert (folder / "notes.txt").read_text() == "keep me\n"


@pytest.mark.parametrize(
    ("option", "said"),
    [("--unpacked", "--unpacked: cesta je prázdná; zadejte složku"),
     ("--out", "--out: cesta je prázdná; zadejte složku")],
)  # fmt: skip
def test_an_empty_folder_path_is_refused_and_nothing_written(option, said, tmp_path, capsys,
                                                             monkeypatch):  # fmt: skip
    """An empty path (an unset shell variable: ``--unpacked "$DIR"``) is refused. Before,
    ``--unpacked ""`` built the zip into dist/foundry instead, and ``--out ""`` wrote the
    zip and module.json into the current folder, both with exit status 0."""
    monkeypatch.chdir(tmp_path)
    code = main(["foundry-release", option, "", "--locale", "cs"])
    out, err = capsys.readouterr()
    assert (code, out, err) == (1, "", f"rollbridge: error: invalid_request: {said}\n")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("depth", [("dist",), ("a", "b", "dist")])
def test_a_folder_on_the_way_that_is_a_file_is_named_as_the_outs(depth, tmp_path, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("mine\n")
    out = blocker.joinpath(*depth)
    assert main(["foundry-release", "--out", str(out)]) == 1
    assert capsys.readouterr().err.startswith(
        f"rollbridge: error: invalid_request: --out: cannot write {out}: "
    )


def _incomplete_module(tmp_path, monkeypatch, missing: str):
    """A copy of the Foundry module without ``missing`` (a broken checkout or install),
    released from."""
    module = tmp_path / "module"
    shutil.copytree(release.MODULE_DIR, module)
    (module / missing).unlink()
    monkeypatch.setattr(release, "MODULE_DIR", module)


@pytest.mark.parametrize(
    ("missing", "error"),
    [("lang/cs.json", r"module\.json names files the module does not have: \['lang/cs\.json'\]"),
     ("module.json", r"No such file or directory: '.*module/module\.json'")],
)  # fmt: skip
def test_a_module_missing_its_own_files_is_not_said_to_be_the_out_folders_fault(
    missing, error, tmp_path, monkeypatch
):
    """Before, a file of the module missing read "invalid_request: --out: cannot write
    <out>: FileNotFoundError" (or "No such file or directory"): the operator was sent
    to a folder that was fine. The module's own error, naming the file, is raised."""
    _incomplete_module(tmp_path, monkeypatch, missing)
    with pytest.raises(FileNotFoundError, match=error):
        main(["foundry-release", "--out", str(tmp_path / "out")])


def test_the_script_run_alone_escapes_what_it_quotes(tmp_path):
    """``python -m rollbridge.adapters.foundry.release``, a real process, in German:
    its refusal names the folder, and its usage error the option given, with their
    control characters shown, not obeyed — as ``rollbridge foundry-release`` does.
    The script printed them as they were: ESC cleared the operator's screen, a line
    break split the error."""
    folder = tmp_path / "f\x1b[2J\nx"
    folder.mkdir()
    (folder / "notes.txt").write_text("keep me\n")
    env = {"PATH": "/usr/bin:/bin", "LANGUAGE": "de", "HOME": "/nonexistent"}
    script = [sys.executable, "-m", "rollbridge.adapters.foundry.release"]
    refused = subprocess.run([*script, "--unpacked", str(folder)], capture_output=True,
                             text=True, env=env, timeout=120)  # fmt: skip
    assert refused.returncode == 1 and refused.stdout == "", refused.stderr
    escaped = str(tmp_path / "f\\x1b[2J\\nx")
    assert refused.stderr == (
        f"python -m rollbridge.adapters.foundry.release: error: invalid_request: --unpacked: "
        f"{escaped} enthält andere Dateien; geben Sie einen leeren oder neuen Ordner an "
        "(oder einen, den --unpacked zuvor geschrieben hat)\n"
    )
    assert [p.name for p in folder.iterdir()] == ["notes.txt"]
    usage = subprocess.run([*script, "--bo\x1bgus"], capture_output=True, text=True, env=env,
                           timeout=120)  # fmt: skip
    assert usage.returncode == 2 and usage.stderr.startswith("Aufruf: "), usage.stderr
    assert usage.stderr.splitlines()[-1].endswith("--bo\\x1bgus"), usage.stderr
    assert "\x1b" not in usage.stderr
