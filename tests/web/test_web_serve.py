"""``rollbridge serve`` as a process names each table's web view, and the address
it prints opens the page."""

from __future__ import annotations

import urllib.request

from tests.server.test_server_lifecycle import Serve


def test_serve_prints_a_web_view_that_opens(tmp_path):
    server = Serve(tmp_path / "fresh.db")  # a fresh file: the demo table
    try:
        demo = next(line.split()[1] for line in server.lines if line.strip().startswith("table"))
        line = server.process.stdout.readline()  # the line after "serving"
        expected = f"http://127.0.0.1:{server.port}/tables/{demo}"
        assert line.split() == ["web", "view", expected, "(Demo", "(sr2))"]
        shared = [x for x in server.lines if x.startswith("Or open")]
        assert shared and f"{expected}#token=TOKEN" in shared[0]
        with urllib.request.urlopen(expected, timeout=10) as answer:
            assert answer.status == 200
            assert answer.headers["Content-Type"] == "text/html; charset=utf-8"
            assert "Content-Security-Policy" in answer.headers
            assert b'src="/static/web/table.mjs"' in answer.read()
    finally:
        assert server.stop() == 0
