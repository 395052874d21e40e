"""What rollbridge needs of websockets, the floor ``pyproject.toml`` names (17.0):
the server reads each request's method (a ``HEAD`` or ``OPTIONS`` of its HTTP routes,
a ``POST`` refused with 405) from ``Request.method``, which websockets 13 to 16 — the
range allowed ``>=13.0`` — does not have: every handshake there was answered 500 with
an ``AttributeError`` in the log, so no client could join. ``rollbridge connect``
goes through ``$https_proxy`` with ``connect(proxy=…)`` and says a refused tunnel
from ``InvalidProxyStatus`` (websockets 15 on). These run against whatever websockets
is installed: in a venv of websockets 16.1.1 or older they fail (docs/operations.md,
"Upgrading", the dependency ranges)."""

from __future__ import annotations

import dataclasses
import inspect

from websockets.asyncio.client import connect
from websockets.http11 import Request


def test_a_request_says_its_method_and_protocol():
    fields = {field.name for field in dataclasses.fields(Request)}
    assert {"method", "protocol"} <= fields


def test_a_client_goes_through_a_proxy_and_names_its_refusal():
    from websockets.exceptions import InvalidProxyStatus

    assert issubclass(InvalidProxyStatus, Exception)
    assert "proxy" in inspect.signature(connect.__init__).parameters
