"""Ctrl-C (SIGINT) ends a command with exit status 130: with ``--json`` it prints the
JSON the other errors print, ``{"code": "interrupted", "message": …}`` on standard
output and nothing on standard error; without, its one text line on standard error.
Before, ``--json`` printed the text line too (docs/operations.md, "Errors of the
command line"). A real ``rollbridge table list`` process, waiting on a "Redis" of the
test's that takes the connection and never answers; SIGINT is sent once the process
has sent it its first line (it runs the command then, not at a sleep's end).

The command starts as a shell's foreground job does, SIGINT at Python's own handler,
whatever the test runner inherited: a runner started in the background of a script
(``pytest … &``: the shell ignores SIGINT for it, and the ignoring is inherited) handed
that on to ``rollbridge``, which, as any program started so, ignored the signal — each
test waited out its hang guard (seen at load, where runs were started in the
background; a foreground rerun passed)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys

import pytest

#: Only a guard against a hang: nothing here is timed.
HANG_GUARD = 60
#: ``python -m rollbridge`` with SIGINT at Python's handler (as at a terminal), though
#: the process may have inherited it ignored.
FOREGROUND = (
    "import runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler);"
    " sys.argv[0] = 'rollbridge'; runpy.run_module('rollbridge', run_name='__main__')"
)


def _interrupted(*argv: str, language: str = "en") -> tuple[int, str, str]:
    """Run ``rollbridge table list --redis …`` with ``argv`` (in the environment's
    ``language``) against a listener that never answers, send it SIGINT once it waits
    there: its status, stdout, stderr."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        listener.settimeout(HANG_GUARD)
        port = listener.getsockname()[1]
        # the URL's own timeout: the command waits for the answer as long as the test may
        redis = f"redis://127.0.0.1:{port}/0?socket_timeout={HANG_GUARD}"
        process = subprocess.Popen(
            [sys.executable, "-c", FOREGROUND, "table", "list", "--redis", redis, *argv],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1", "LANGUAGE": language},
        )  # fmt: skip
        try:
            connection, _ = listener.accept()
            with connection:
                connection.settimeout(HANG_GUARD)
                assert connection.recv(1024).startswith(b"*")  # its first command's line
                process.send_signal(signal.SIGINT)
                out, err = process.communicate(timeout=HANG_GUARD)
        finally:
            if process.returncode is None:
                process.kill()
                process.communicate()
    return process.returncode, out, err


@pytest.mark.parametrize(("language", "said"), [("en", "interrupted"), ("de", "abgebrochen")])
def test_ctrl_c_with_json_prints_the_json_error_shape(language, said):
    """In the environment's language, as the command's other errors."""
    status, out, err = _interrupted("--json", language=language)
    assert status == 130, (out, err)
    assert json.loads(out) == {"code": "interrupted", "message": said}
    assert said not in err and "Traceback" not in err, err


def test_ctrl_c_without_json_stays_a_text_line():
    status, out, err = _interrupted()
    assert status == 130
    assert out == ""
    assert err == "rollbridge: interrupted\n"


def test_a_runner_that_ignores_sigint_does_not_hand_that_on():
    """The runner ignoring SIGINT (started with ``&`` from a script) as the command's
    parent: Ctrl-C still ends the command."""
    if signal.getsignal(signal.SIGINT) is None:  # pragma: no cover - not Python's
        pytest.skip("SIGINT's handler is not Python's to change here")
    try:
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # pragma: no cover - not the main thread
        pytest.skip("signals are set from the main thread only")
    try:
        status, out, err = _interrupted()
    finally:
        signal.signal(signal.SIGINT, previous)
    assert status == 130, (out, err)
    assert err == "rollbridge: interrupted\n"
