"""The URL check (:mod:`rollbridge.stores.redis_query`) judges each setting of a Redis
URL's query as the installed redis-py reads it, and lets through what that reading
takes. That holds from redis-py 8.2 on, the floor ``pyproject.toml`` names: redis-py
5.0 to 8.1 (which the range allowed) read ``retry_on_error=ConnectionError`` as the
list of its letters (each attempt's failure then a ``TypeError`` of ``except``), passed
``ssl_min_version=771`` on as text (refused by ``ssl`` only at connecting, after the
check took it), and ``ssl_validate_ocsp=no`` as the text ``'no'``, that is yes. These
run against whatever redis-py is installed: in a venv of redis-py 5.0.0 every one
fails (docs/operations.md, "Upgrading", the dependency ranges)."""

from __future__ import annotations

import ssl

import pytest
import redis
from redis.connection import parse_url

from rollbridge.stores.redis_query import query_problem

URL = "rediss://127.0.0.1:6379/0?"


def _taken(query: str) -> dict:
    """What redis-py makes of ``query``, checked first as rollbridge checks it."""
    assert query_problem(query, "/0", "--redis", scheme="rediss") is None, query
    return parse_url(URL + query)


def test_retry_on_error_is_read_as_redis_pys_errors():
    taken = _taken("retry_on_error=ConnectionError,TimeoutError")
    assert taken["retry_on_error"] == [redis.exceptions.ConnectionError,
                                       redis.exceptions.TimeoutError]  # fmt: skip


def test_ssl_min_version_is_read_as_a_tls_version():
    taken = _taken("ssl_min_version=771")
    assert taken["ssl_min_version"] == ssl.TLSVersion.TLSv1_2


@pytest.mark.parametrize(("given", "read"), [("no", False), ("yes", True)])
def test_the_yes_or_no_settings_are_read_as_yes_or_no(given, read):
    for name in ("ssl_validate_ocsp", "ssl_validate_ocsp_stapled", "ssl_check_hostname",
                 "legacy_responses", "socket_keepalive", "retry_on_timeout"):  # fmt: skip
        assert _taken(f"{name}={given}")[name] is read, name


@pytest.mark.parametrize(("name", "given", "read"),
                         [("socket_read_size", "65536", 65536), ("protocol", "3", 3),
                          ("timeout", "2.5", 2.5)])  # fmt: skip
def test_the_numbers_are_read_as_numbers(name, given, read):
    assert _taken(f"{name}={given}")[name] == read
