"""Join tokens: random, shown once, stored only as hashes, compared in constant time.

A token opens one table in one role (``gm``, ``player``, ``observer``) under a
name (``player``, ``alice``). It is 32 bytes from :mod:`secrets`, so a plain
SHA-256 is enough to store it: there is nothing to brute-force. The store
keeps the hash; lookups hash the presented token and compare with
:func:`hmac.compare_digest`. Tokens are never logged or echoed.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass

from rollbridge.engine.model import Principal, Role

__all__ = ["TokenRecord", "hash_token", "matches", "new_token"]

_PREFIX = "rbt_"


@dataclass(frozen=True, slots=True)
class TokenRecord:
    """A stored token: its public id, table, role, name and hash (never the token)."""

    id: str
    table: str
    role: Role
    name: str
    hash: str

    def principal(self) -> Principal:
        """Who this token makes its bearer."""
        return Principal(role=self.role, name=self.name, key=self.id)

    def to_dict(self) -> dict[str, str]:
        """Public facts about the token (no hash)."""
        return {"id": self.id, "table": self.table, "role": self.role, "name": self.name}


def new_token(table: str, role: Role, name: str | None = None) -> tuple[str, TokenRecord]:
    """A fresh token and the record to store for it. Show the token once."""
    secret = _PREFIX + secrets.token_urlsafe(32)
    record = TokenRecord(
        id=secrets.token_hex(6), table=table, role=role, name=name or role, hash=hash_token(secret)
    )
    return secret, record


def hash_token(token: str) -> str:
    """The stored form of a token."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def matches(token: str, record: TokenRecord) -> bool:
    """Whether ``token`` is the one ``record`` was made for (constant time)."""
    return hmac.compare_digest(hash_token(token), record.hash)
