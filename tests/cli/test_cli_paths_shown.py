"""What a command prints on success names the operator's paths with their control
characters shown, not obeyed: ``backup`` printed its source and copy, and
``foundry-release`` its zip and manifest, as they were, so a folder named with ESC
repainted the terminal and one with a line break split a line. The command
``backup`` proposes for the dice key writes such a name as bash's ``$'…'``, visible
and read back by the shell as the same name."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from rollbridge.visible import CONTROLS, shell_word
from tests.cli.test_cli_error_controls import run

#: A folder's name no operator means, but a file handed over may carry.
ODD = "b\x1b[31mk\nx\u2028y"
#: :data:`ODD` as the terminal shows it.
SHOWN = "b\\x1b[31mk\\nx\\u2028y"
BASH = shutil.which("bash")


def no_controls(out: str) -> list[str]:
    lines = out.splitlines()
    assert not any(CONTROLS.search(line) for line in lines), out
    return lines


def test_backup_says_its_paths_escaped(tmp_path):
    made = run("table", "create", "--db", str(tmp_path / "t.db"), "--ruleset", "sr2",
               "--name", "T", "--settings", '{"verifiable": true}')  # fmt: skip
    assert made.returncode == 0, made.stderr
    folder = tmp_path / ODD
    folder.mkdir()
    result = run("backup", "--db", str(tmp_path / "t.db"), str(folder / "c.db"))
    assert result.returncode == 0, result.stderr
    lines = no_controls(result.stdout)
    assert len(lines) == 2, result.stdout
    assert lines[0].startswith(f"backed up {tmp_path / 't.db'} to {tmp_path / SHOWN / 'c.db'}:")
    command = re.search(r"\(cp -p (.*)\), as secret", lines[1])
    assert command is not None, lines[1]
    if BASH is None:  # pragma: no cover - the command is bash's; checked where it is
        pytest.skip("no bash to run the command backup proposes")
    copied = subprocess.run([BASH, "-c", f"cp -p {command.group(1)}"], capture_output=True,
                            text=True, timeout=60)  # fmt: skip
    assert copied.returncode == 0, copied.stderr
    assert (folder / "c.db.dice-key").read_bytes() == (tmp_path / "t.db.dice-key").read_bytes()


@pytest.mark.skipif(BASH is None, reason="no bash")
def test_a_shell_word_is_the_same_name_to_bash():
    for name in (ODD, "plain/name.db", "it's here", "back\\slash\x07", "nel\x85\x7f", "ž\x1b"):
        word = shell_word(name)
        assert not CONTROLS.search(word), word
        said = subprocess.run([BASH, "-c", f"printf %s {word}"], capture_output=True,
                              timeout=60)  # fmt: skip
        assert said.stdout == name.encode(), (name, word)


def test_foundry_release_says_its_paths_escaped(tmp_path):
    out = tmp_path / ODD
    result = run("foundry-release", "--out", str(out))
    assert result.returncode == 0, result.stderr
    lines = no_controls(result.stdout)
    shown = tmp_path / SHOWN
    assert lines[0].startswith(f"{shown}/rollbridge-foundry-") and lines[0].endswith(".zip")
    assert lines[1] == f"{shown}/module.json"
    assert (out / "module.json").is_file()
