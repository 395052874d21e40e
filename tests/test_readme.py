"""Every offline ``rollbridge`` command the README shows runs and succeeds."""

from __future__ import annotations

import pathlib
import re
import shlex

import pytest

from rollbridge.cli import main

README = pathlib.Path(__file__).resolve().parents[1] / "README.md"
OFFLINE = {"roll", "resolve", "plugins", "rulesets", "odds"}


def readme_commands() -> list[list[str]]:
    commands = []
    for block in re.findall(r"```sh\n(.*?)```", README.read_text(), re.S):
        for line in block.splitlines():
            for part in line.split("&&"):
                words = shlex.split(part, comments=True)
                if words[:1] == ["rollbridge"] and words[1] in OFFLINE:
                    commands.append(words[1:])
    return commands


def test_the_readme_shows_commands():
    assert len(readme_commands()) >= 5


@pytest.mark.parametrize("argv", readme_commands(), ids=lambda argv: " ".join(argv)[:60])
def test_readme_command_runs(argv, capsys):
    assert main(argv) == 0, capsys.readouterr().err


def test_ci_runs_the_readmes_test_command():
    """.ci/run's last line is the README's "every test" command, character for character."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    readme = (root / "README.md").read_text(encoding="utf-8")
    section = readme.split("Install and run every test", 1)[1]
    command = section.split("```sh\n", 1)[1].split("\n```", 1)[0].strip()
    ci = (root / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()
    assert ci[-1] == command
    assert "pytest" in command and "npm ci --prefix tests/foundry" in command
