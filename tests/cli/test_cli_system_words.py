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
    assert system_reason(OSError(errno.EPIPE, "Broken pipe")) == "Broken pipe"
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


#: The C library's own words for the reasons declared, in its catalogues (glibc
#: 2.36's libc.mo, Debian's libc-l10n): what `ls` or `cp` says of the same failure in
#: that language, the first letter made a capital as every reason here starts.
GLIBC = {
    "cs": {
        errno.ENOENT: "Adresář nebo soubor neexistuje",
        errno.EACCES: "Operace zamítnuta",
        errno.EPERM: "Operace není povolena",
        errno.ENOSPC: "Na zařízení není volné místo",
        errno.EDQUOT: "Překročena disková kvóta",
        errno.EFBIG: "Soubor je příliš velký",
        errno.EROFS: "Systém souborů je pouze pro čtení",
        errno.EISDIR: "Je adresářem",
        errno.ENOTDIR: "Není adresářem",
        errno.EEXIST: "Soubor již existuje",
        errno.ENAMETOOLONG: "Příliš dlouhé jméno souboru",
        errno.ELOOP: "Příliš mnoho úrovní symbolických odkazů",
        errno.EMFILE: "Překročen limit počtu otevřených souborů",
        errno.EIO: "Chyba vstupu/výstupu",
        errno.EBUSY: "Zařízení nebo zdroj jsou používány",
        errno.ETXTBSY: "Soubor je používán",
        errno.ECONNREFUSED: "Spojení odmítnuto",
        errno.ECONNRESET: "Spojení zrušeno druhou stranou",
        errno.EHOSTUNREACH: "K počítači neexistuje cesta",
        errno.ENETUNREACH: "Síť není dostupná",
        errno.ETIMEDOUT: "Spojení bylo příliš dlouho neaktivní",
    },
    "de": {
        errno.ENOENT: "Datei oder Verzeichnis nicht gefunden",
        errno.EACCES: "Keine Berechtigung",
        errno.EPERM: "Die Operation ist nicht erlaubt",
        errno.ENOSPC: "Auf dem Gerät ist kein Speicherplatz mehr verfügbar",
        errno.EDQUOT: "Der zugewiesene Plattenplatz (Quota) ist überschritten",
        errno.EFBIG: "Die Datei ist zu groß",
        errno.EROFS: "Das Dateisystem ist nur lesbar",
        errno.EISDIR: "Ist ein Verzeichnis",
        errno.ENOTDIR: "Ist kein Verzeichnis",
        errno.EEXIST: "Die Datei existiert bereits",
        errno.ENAMETOOLONG: "Der Dateiname ist zu lang",
        errno.ELOOP: "Zu viele Ebenen aus symbolischen Links",
        errno.EMFILE: "Zu viele offene Dateien",
        errno.EIO: "Eingabe-/Ausgabefehler",
        errno.EBUSY: "Das Gerät oder die Ressource ist belegt",
        errno.ETXTBSY: "Das Programm kann nicht ausgeführt oder verändert werden (busy)",
        errno.ECONNREFUSED: "Verbindungsaufbau abgelehnt",
        errno.ECONNRESET: "Die Verbindung wurde vom Kommunikationspartner zurückgesetzt",
        errno.EHOSTUNREACH: "Keine Route zum Zielrechner",
        errno.ENETUNREACH: "Das Netzwerk ist nicht erreichbar",
        errno.ETIMEDOUT: "Die Wartezeit für die Verbindung ist abgelaufen",
    },
    "ru": {
        errno.ENOENT: "Нет такого файла или каталога",
        errno.EACCES: "Отказано в доступе",
        errno.EPERM: "Операция не позволена",
        errno.ENOSPC: "На устройстве не осталось свободного места",
        errno.EDQUOT: "Превышена дисковая квота",
        errno.EFBIG: "Файл слишком велик",
        errno.EROFS: "Файловая система доступна только для чтения",
        errno.EISDIR: "Это каталог",
        errno.ENOTDIR: "Это не каталог",
        errno.EEXIST: "Файл существует",
        errno.ENAMETOOLONG: "Слишком длинное имя файла",
        errno.ELOOP: "Слишком много уровней символьных ссылок",
        errno.EMFILE: "Слишком много открытых файлов",
        errno.EIO: "Ошибка ввода/вывода",
        errno.EBUSY: "Устройство или ресурс занято",
        errno.ETXTBSY: "Текстовый файл занят",
        errno.ECONNREFUSED: "В соединении отказано",
        errno.ECONNRESET: "Соединение разорвано другой стороной",
        errno.EHOSTUNREACH: "Нет маршрута до узла",
        errno.ENETUNREACH: "Сеть недоступна",
        errno.ETIMEDOUT: "Время ожидания соединения истекло",
    },
}


@pytest.mark.parametrize("locale", sorted(GLIBC))
def test_each_reason_reads_as_the_c_library_says_it_in_that_language(locale):
    """A Czech, German or Russian reader meets the words their system's own tools
    print for the same failure (the translators' note asks for them): "Operace
    zamítnuta", not another wording of "Permission denied"; ETXTBSY, a program's file
    in use, not a "text file" in Czech."""
    assert set(GLIBC[locale]) == set(system_words._BY_ERRNO)
    for code, said in GLIBC[locale].items():
        assert render(system_reason(OSError(code, os.strerror(code))), locale=locale) == said


def _rollbridge(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rollbridge", *argv],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip


def test_a_name_too_long_is_refused_in_the_readers_language_not_with_a_traceback(tmp_path):
    """A ``--db`` or a backup's name longer than the file system takes (ENAMETOOLONG,
    one of the reasons declared): ``table list``, ``backup`` and ``serve`` ended with
    Python's traceback and "OSError: [Errno 36] File name too long"; each names the
    path with the system's reason in German, exit status 1, nothing made."""
    made = _rollbridge("table", "create", "--db", str(tmp_path / "t.db"),
                       "--ruleset", "bandits", "--name", "X")  # fmt: skip
    assert made.returncode == 0, made.stderr
    before = sorted(p.name for p in tmp_path.iterdir())
    long = str(tmp_path / ("a" * 300 + ".db"))
    for argv in (
        ("table", "list", "--db", long),
        ("backup", "--db", str(tmp_path / "t.db"), long),
        ("backup", "--db", long, str(tmp_path / "copy.db")),
        ("serve", "--db", long, "--port", "0"),
    ):
        _refused_in_german_naming(long, argv, "rollbridge: error: ")
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def _refused_in_german_naming(long: str, argv: tuple[str, ...], head: str) -> None:
    """``rollbridge ARGV --locale de`` exits 1 with one line starting ``head`` that
    names the path ``long`` with the system's reason in German, never a traceback."""
    done = _rollbridge(*argv, "--locale", "de")
    assert done.returncode == 1, (argv, done.stderr)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.stderr.startswith(head), done.stderr
    assert long in done.stderr and "Der Dateiname ist zu lang" in done.stderr, done.stderr


def test_a_folder_name_too_long_for_a_new_database_is_refused_not_a_traceback(tmp_path):
    """The commands that make a database (``table create``, ``admin-token``,
    ``serve``) given a ``--db`` whose folder's name is longer than the file system
    takes: ``Path.is_file()`` and the error's own look at the folder raised
    ENAMETOOLONG, a traceback; each names the path with the system's reason in
    German, exit status 1, nothing made."""
    long = str(tmp_path / ("a" * 300) / "new.db")
    for argv in (
        ("table", "create", "--db", long, "--ruleset", "bandits", "--name", "X"),
        ("admin-token", "--db", long, "--name", "bot"),
        ("serve", "--db", long, "--port", "0"),
    ):
        _refused_in_german_naming(long, argv, "rollbridge: error: store_error: ")
    assert list(tmp_path.iterdir()) == []
