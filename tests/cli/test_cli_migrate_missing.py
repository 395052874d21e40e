"""``rollbridge migrate --from FILE`` where FILE is no database file: one typed line
that names the path and says what is there instead — a folder that holds no such file,
no folder either, a folder given for the file — and, when ``serve``'s own database
(without ``--db``: ``$ROLLBRIDGE_DB``, else the data directory) is there, how to give
that one. It said "no database file FILE: nothing to migrate" whatever the case
(a previous session's closing note, 5 December). Nothing is made on disk (no
database, no lock file) and Redis is never asked (nothing listens at ``NOWHERE``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rollbridge.cli import main

#: A Redis address nothing listens on: a migrate that tried it would fail otherwise.
NOWHERE = "redis://127.0.0.1:9/0"


@pytest.fixture
def no_default(monkeypatch, tmp_path):
    """English, and a ``serve`` database without ``--db`` that is not there."""
    monkeypatch.setenv("LANGUAGE", "en")
    monkeypatch.delenv("ROLLBRIDGE_REDIS", raising=False)
    monkeypatch.setenv("ROLLBRIDGE_DB", str(tmp_path / "elsewhere" / "rollbridge.db"))
    return monkeypatch


def migrate(capsys, source: Path | str, *extra: str) -> tuple[int, str, str]:
    code = main(["migrate", "--from", str(source), "--to", NOWHERE, *extra])
    out, err = capsys.readouterr()
    return code, out, err


def files(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.mark.parametrize(
    ("there", "why"),
    [(True, "exists, but holds no file rollbrige.db"), (False, "does not exist either")],
    ids=["folder there", "folder missing"],
)
def test_a_missing_file_is_named_with_its_folder(capsys, tmp_path, no_default, there, why):
    folder = tmp_path / "srv"
    if there:
        folder.mkdir()
    source = folder / "rollbrige.db"
    code, out, err = migrate(capsys, source)
    assert (code, out) == (1, "")
    assert err == (
        f"rollbridge: error: no_database: no database file {source}: its folder {folder}"
        f" {why}; nothing to migrate\n"
    )
    assert files(tmp_path) == (["srv"] if there else [])  # no database, lock or key made


def test_a_relative_name_in_the_current_folder(capsys, tmp_path, no_default):
    no_default.chdir(tmp_path)
    code, _out, err = migrate(capsys, "r.db")
    assert code == 1
    assert "no database file r.db: its folder ./ exists, but holds no file r.db;" in err
    assert files(tmp_path) == []


def test_a_folder_given_for_the_file_is_said_so(capsys, tmp_path, no_default):
    code, out, err = migrate(capsys, tmp_path)
    assert (code, out) == (1, "")
    assert err == (
        f"rollbridge: error: no_database: cannot open {tmp_path}: it is a folder, not a"
        " database file: give --from the path of a file\n"
    )
    assert files(tmp_path) == []


def test_a_pipe_given_for_the_file_is_said_so(capsys, tmp_path, no_default):
    """A pipe (or a device, a socket) is there, and migrate said its folder "holds no
    file" of that name: it says what is there, as the other commands do."""
    import os

    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    code, out, err = migrate(capsys, pipe)
    assert (code, out) == (1, "")
    assert err == (
        f"rollbridge: error: no_database: cannot open {pipe}: it is not a regular file but"
        " a pipe, a device or a socket: give --from the path of a file\n"
    )
    assert files(tmp_path) == ["pipe"]


@pytest.mark.parametrize("depth", ["f/x.db", "f/g/x.db"])
def test_a_file_given_as_its_folder_is_named(capsys, tmp_path, no_default, depth):
    """``--from f/x.db`` where ``f`` is a file: it said the folder ``f`` "does not
    exist either" — it exists, as a file; the file in the way is named, as ``backup``
    and ``--db`` name it."""
    (tmp_path / "f").write_text("notes")
    source = tmp_path / depth
    code, out, err = migrate(capsys, source)
    assert (code, out) == (1, "")
    assert err == (
        f"rollbridge: error: no_database: cannot open {source}: {tmp_path / 'f'} is a file,"
        " not a folder: give --from the path of a file in a folder\n"
    )
    assert files(tmp_path) == ["f"]


@pytest.mark.parametrize("given", ["loop/x.db", "loop/g/x.db", "a/x.db"])
def test_a_folder_that_is_a_symlink_loop_is_no_file(capsys, tmp_path, no_default, given):
    """``--from loop/x.db`` where ``loop`` is a symbolic link to itself (or ``a`` and
    ``b`` to each other): it said ``loop is a file, not a folder`` — it is no file; now
    the system's reason, in the reader's language, and nothing is made."""
    (tmp_path / "loop").symlink_to("loop")
    (tmp_path / "a").symlink_to("b")
    (tmp_path / "b").symlink_to("a")
    source = tmp_path / given
    code, out, err = migrate(capsys, source)
    assert (code, out) == (1, "")
    assert err == (
        f"rollbridge: error: no_database: cannot open {source}: Too many levels of symbolic links\n"
    )
    no_default.setenv("LANGUAGE", "de")
    code, _out, err = migrate(capsys, source)
    assert code == 1 and err.endswith(": Zu viele Ebenen aus symbolischen Links\n"), err
    assert files(tmp_path) == ["a", "b", "loop"]


def test_a_name_too_long_is_said_with_the_systems_reason(capsys, tmp_path, no_default):
    """A name past the file system's 255 bytes: it said the folder "holds no file" of
    that name, which no folder can hold; now the system's reason, in the reader's
    language."""
    source = tmp_path / ("a" * 300 + ".db")
    code, out, err = migrate(capsys, source)
    assert (code, out) == (1, "")
    assert err == f"rollbridge: error: no_database: cannot open {source}: File name too long\n"
    no_default.setenv("LANGUAGE", "de")
    code, _out, err = migrate(capsys, source)
    assert code == 1 and err.endswith(": Der Dateiname ist zu lang\n"), err
    assert files(tmp_path) == []


def test_serves_own_database_is_named_when_it_is_there(capsys, tmp_path, no_default):
    """The operator ran ``serve`` without ``--db`` (or with ``$ROLLBRIDGE_DB``) and gave
    migrate another name: the line ends with the one serve uses, and how to give it."""
    served = tmp_path / "data" / "rollbridge.db"
    no_default.setenv("ROLLBRIDGE_DB", str(served))
    assert main(["table", "create", "--ruleset", "sr2", "--name", "T", "--json"]) == 0
    capsys.readouterr()
    before = files(tmp_path)
    source = tmp_path / "rollbridge.db"
    code, out, err = migrate(capsys, source)
    assert (code, out) == (1, "")
    assert err == (
        f"rollbridge: error: no_database: no database file {source}: its folder {tmp_path}"
        " exists, but holds no file rollbridge.db; nothing to migrate (rollbridge serve's"
        f" database without --db is {served}: rollbridge migrate --from {served} --to URL)\n"
    )
    assert files(tmp_path) == before  # no lock file beside either
    code, out, _err = migrate(capsys, source, "--json")  # the same words, as JSON
    error = json.loads(out)
    assert code == 1 and error["code"] == "no_database"
    assert error["details"] == {"path": str(source)}
    assert error["message"].endswith(f"--from {served} --to URL)")


@pytest.mark.parametrize(
    ("locale", "words"),
    [("cs", "neexistuje ani jeho složka"), ("de", "existiert nicht"), ("ru", "не существует")],
)
def test_the_refusal_is_in_the_environments_language(capsys, tmp_path, no_default,
                                                     locale, words):  # fmt: skip
    no_default.setenv("LANGUAGE", locale)
    code, _out, err = migrate(capsys, tmp_path / "nope" / "r.db")
    assert code == 1 and err.startswith("rollbridge: error: no_database: ")
    assert words in err and str(tmp_path / "nope") in err


def test_db_and_redis_name_the_file_and_the_server_as_everywhere_else(capsys, tmp_path, no_default):
    """Every other command names the file ``--db`` and the Redis ``--redis``; migrate
    took only ``--from`` and ``--to``, so ``migrate --db FILE --redis URL`` was a usage
    error ("the following arguments are required: --from, --to", status 2)."""
    source = tmp_path / "rollbrige.db"
    code = main(["migrate", "--db", str(source), "--redis", NOWHERE])
    out, err = capsys.readouterr()
    assert (code, out) == (1, "")
    assert err.startswith(f"rollbridge: error: no_database: no database file {source}:"), err
    assert files(tmp_path) == []
