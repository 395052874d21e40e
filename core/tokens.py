"""Join tokens and admin tokens: random, shown once, stored only as hashes,
compared in constant time.

A join token (``rbt_…``) opens one table in one role (``gm``, ``player``,
``observer``) under a name (``player``, ``alice``). An admin token (``rba_…``,
``rollbridge admin-token``) opens a server's admin API: it creates, lists and
deletes tables and issues and revokes their join tokens. Either is 32 bytes from
:mod:`secrets`, so a plain SHA-256 is enough to store it: there is nothing to
brute-force. The store keeps the hash; lookups hash the presented token and
compare with :func:`hmac.compare_digest`. Tokens are never logged or echoed
(:mod:`rollbridge.server.logs` cuts both prefixes out of every log line).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass

from rollbridge.engine.model import Principal, Role
from rollbridge.names import check_name

__all__ = [
    "ADMIN_PREFIX",
    "JOIN_PREFIX",
    "AdminTokenRecord",
    "TokenRecord",
    "hash_token",
    "matches",
    "new_admin_token",
    "new_token",
]

#: How every join token starts.
JOIN_PREFIX = "rbt_"
#: How every admin token starts.
ADMIN_PREFIX = "rba_"
_PREFIX = JOIN_PREFIX


@dataclass(frozen=True, slots=True)
class TokenRecord:
    """A stored token: its public id, table, role, name and hash (never the token),
    and when it was made (seconds since the epoch; None for a token made before
    rollbridge kept it: SQLite schema 4, or Redis records of that time)."""

    id: str
    table: str
    role: Role
    name: str
    hash: str
    created: float | None = None

    def principal(self) -> Principal:
        """Who this token makes its bearer."""
        return Principal(role=self.role, name=self.name, key=self.id)

    def to_dict(self) -> dict[str, str | float | None]:
        """Public facts about the token (no hash); ``created`` is None when unknown."""
        return {"id": self.id, "table": self.table, "role": self.role, "name": self.name,
                "created": self.created}  # fmt: skip


def new_token(table: str, role: Role, name: str | None = None) -> tuple[str, TokenRecord]:
    """A fresh token and the record to store for it. Show the token once.

    :raises InvalidRequest: a ``name`` that is no name (:func:`~rollbridge.names.check_name`).
    """
    if name is not None:
        check_name(name)
    secret = _PREFIX + secrets.token_urlsafe(32)
    record = TokenRecord(
        id=secrets.token_hex(6),
        table=table,
        role=role,
        name=name or role,
        hash=hash_token(secret),
        created=time.time(),
    )
    return secret, record


def hash_token(token: str) -> str:
    """The stored form of a token."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def matches(token: str, record: TokenRecord) -> bool:
    """Whether ``token`` is the one ``record`` was made for (constant time)."""
    return hmac.compare_digest(hash_token(token), record.hash)


@dataclass(frozen=True, slots=True)
class AdminTokenRecord:
    """A stored admin token: its public id, a name for logs, when it was made
    (seconds since the epoch) and its hash (never the token)."""

    id: str
    name: str
    created: float
    hash: str

    def to_dict(self) -> dict[str, str | float]:
        """Public facts about the token (no hash)."""
        return {"id": self.id, "name": self.name, "created": self.created}


def new_admin_token(name: str | None = None) -> tuple[str, AdminTokenRecord]:
    """A fresh admin token and the record to store for it. Show the token once.

    :raises InvalidRequest: a ``name`` that is no name
        (:func:`~rollbridge.names.check_name`: the server's log names the admin token
        of each admin API request, so a line break or an escape in it forged or
        repainted a log line); none or an empty one is ``admin``.
    """
    if name:
        check_name(name)
    secret = ADMIN_PREFIX + secrets.token_urlsafe(32)
    record = AdminTokenRecord(
        id=secrets.token_hex(6), name=name or "admin", created=time.time(), hash=hash_token(secret)
    )
    return secret, record
