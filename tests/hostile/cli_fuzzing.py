"""What the command-line fuzzers share (tests/hostile/resolve_fuzzing.py,
tests/hostile/sqlite_fuzzing.py): running ``rollbridge`` in this process and reading
its error as docs/operations.md ("Errors of the command line") promises it.

:func:`run_cli` calls :func:`rollbridge.cli.main`, the function ``rollbridge`` and
``python -m rollbridge`` call, with standard output and error captured: an exception
out of it is the traceback the command would print, and fails the example.
:func:`error_of` asserts an exit status 1 is one error, one line: ``rollbridge:
error: CODE: MESSAGE`` on standard error (``--json``: ``{"code", "message"}`` on
standard output, standard error holding no error line), beside which standard error
holds only the CLI's warnings (``rollbridge: warning: …``).
"""

from __future__ import annotations

import contextlib
import io
import json
import re

#: The CLI's error line without ``--json`` (docs/operations.md).
ERROR_LINE = re.compile(r"rollbridge: error: ([a-z_]+): (.+)")
#: The codes of the commands' own errors: no database file where one was named, a
#: file of another schema version, ``backup`` on Redis.
COMMAND_CODES = ("no_database", "schema_version", "redis_backup")
#: A warning the CLI prints beside an answer or an error (a new dice key, a table
#: a restore could not move).
WARNING = "rollbridge: warning: "


def cli_codes() -> set[str]:
    """The codes a command's error may have: the protocol's and the rulesets'
    (:func:`~tests.hostile.fuzzing.documented_codes`), the HTTP side's (the admin
    API's, which the table commands share), and the commands' own
    (:data:`COMMAND_CODES`), each named in docs/operations.md or docs/redis.md."""
    from tests.hostile.fuzzing import ROOT, documented_codes
    from tests.hostile.http_fuzzing import http_codes

    docs = [(ROOT / "docs" / name).read_text(encoding="utf-8")
            for name in ("operations.md", "redis.md")]  # fmt: skip
    undocumented = {code for code in COMMAND_CODES if not any(f"`{code}`" in t for t in docs)}
    assert not undocumented, undocumented
    return documented_codes() | set(http_codes()) | set(COMMAND_CODES)


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    """The exit status, standard output and standard error of ``rollbridge ARGV``
    (argparse's usage error: its exit status, 2)."""
    from rollbridge.cli import main

    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(argv)
    except SystemExit as exc:
        status = exc.code if isinstance(exc.code, int) else 1
    return status, out.getvalue(), err.getvalue()


def error_of(out: str, err: str, asked_json: bool, where: str) -> tuple[str, str]:
    """The code and the message of an exit status 1, asserting it is one line
    (``where`` says what ran, for a failure's report)."""
    said = [line for line in err.splitlines() if not line.startswith(WARNING)]
    if asked_json:
        assert not said, where
        error = json.loads(out)
        code, message = error["code"], error["message"]
    else:
        assert out == "" and len(said) == 1, where
        found = ERROR_LINE.fullmatch(said[0])
        assert found, where
        code, message = found.group(1), found.group(2)
    assert "\n" not in message and message.strip(), where
    return code, message
