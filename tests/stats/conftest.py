"""The server fixtures of tests/server (a real server on a real port)."""

from tests.server.conftest import make_tables, tables  # noqa: F401  (fixtures)
