"""``rollbridge connect`` through an HTTP proxy (``$http_proxy``) that hangs up on the
tunnel's request: the attempt was refused in one line, but asyncio printed a traceback
first ("Exception in callback … EOFError: stream ended", websockets' reader fed its end
inside the transport's ``connection_lost``). The session's loop now drops that error;
the line stays. A stand-in for the proxy: a real socket on 127.0.0.1 that reads the
request and closes."""

from __future__ import annotations

import asyncio
import os
import sys

from tests.cli.test_cli_reconnect import HANG_GUARD
from tests.cli.test_cli_server_killed import _free_port


async def _hang_up(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    await reader.read(4096)
    writer.close()


async def test_a_proxy_hanging_up_is_said_in_one_line_without_a_traceback():
    proxy = await asyncio.start_server(_hang_up, "127.0.0.1", 0)
    port = proxy.sockets[0].getsockname()[1]
    env = {**os.environ, "http_proxy": f"http://127.0.0.1:{port}"}
    try:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "rollbridge", "connect",
            f"ws://localhost:{_free_port()}/tables/t", "--token", "t",
            "--reconnect-attempts", "1",
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=env,
        )  # fmt: skip
        _out, err = await asyncio.wait_for(process.communicate(), HANG_GUARD)
    finally:
        proxy.close()
        await proxy.wait_closed()
    said = err.decode()
    assert process.returncode == 1, said
    assert "Traceback" not in said and "Exception in callback" not in said, said
    assert said.count("\n") == 1 and "from proxy" in said, said
