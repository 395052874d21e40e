"""The system's reason after a path, in the reader's language
(:mod:`rollbridge.system_words`): a Czech, German or Russian user of the commands met
"No such file or directory" after a sentence in their own language."""

from __future__ import annotations

import errno
import os
import subprocess
import sys

import pytest

from rollbridge import system_words
from rollbridge.system_words import system_reason
from rollbridge.text import render

SAID = {
    "cs": ("Adresář nebo soubor neexistuje", "Je adresářem"),
    "de": ("Datei oder Verzeichnis nicht gefunden", "Ist ein Verzeichnis"),
    "ru": ("Нет такого файла или каталога", "Это каталог"),
}


def test_the_english_is_the_systems_own():
    """English reads as before: the C library's words for each reason declared."""
    for code in system_words._BY_ERRNO:
        exc = OSError(code, os.strerror(code))
        assert render(system_reason(exc), locale="en") == os.strerror(code)


def test_another_reason_keeps_the_systems_words_or_the_class_name():
    assert system_reason(OSError(errno.ECONNRESET, "Connection reset by peer")) == (
        "Connection reset by peer"
    )
    assert system_reason(FileNotFoundError()) == "FileNotFoundError"


@pytest.mark.parametrize("locale", sorted(SAID))
def test_verify_names_a_missing_log_and_a_folder_in_the_users_language(locale, tmp_path):
    """``rollbridge verify`` of a file that is not there and of a folder, a real process
    with ``--locale``: the system's reason in that language, the path as given."""
    missing, folder = SAID[locale]
    for path, reason in ((tmp_path / "none.jsonl", missing), (tmp_path, folder)):
        done = subprocess.run(
            [sys.executable, "-m", "rollbridge", "verify", str(path), "--locale", locale],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert done.returncode == 2, done.stderr
        assert done.stderr.rstrip().endswith(f": {reason}"), done.stderr
        assert str(path) in done.stderr
        assert "directory" not in done.stderr.lower()
