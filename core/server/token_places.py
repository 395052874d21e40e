"""The throttle of wrong tokens as the server runs it over HTTP: a request whose
token would be refused only because its address's tokens being checked hold every
place waits for them instead (docs/operations.md, "Limits").

A front end calling the admin API with its one admin token, several calls at once
from one address, had every call past ``--wrong-tokens-per-address`` refused with
429 although its token was right: each call held its place while its token was
looked up. Each such call now waits until one of them was looked up — a right one
gives its place back — for :data:`MOST_WAIT` seconds at most. A ``hello`` is not
held (its connection is told ``"scope": "checking"`` and tries again in a second).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from rollbridge.protocol.limits import WRONG_TOKENS_WINDOW, TokenRefusal, WrongTokens

__all__ = ["MOST_WAIT", "WaitingWrongTokens"]

#: Seconds an HTTP request waits at most for its address's tokens being checked.
MOST_WAIT = 5.0


class WaitingWrongTokens(WrongTokens):
    """:class:`~rollbridge.protocol.limits.WrongTokens` whose :meth:`place` waits
    for the checks of an address to end (on the server's event loop)."""

    def __init__(self, allowed: int, window: float = WRONG_TOKENS_WINDOW, **options: Any) -> None:
        super().__init__(allowed, window, **options)
        #: Set (and forgotten) when a check of its address (or its site) ends, for
        #: those waiting.
        self._ended: dict[str, asyncio.Event] = {}

    def _checked(self, address: str) -> str | None:
        site = super()._checked(address)
        for key in (address, site):
            ended = self._ended.pop(key, None) if key is not None else None
            if ended is not None:
                ended.set()
        return site

    async def place(self, address: str | None) -> TokenRefusal | None:
        """:meth:`present` a token of ``address``, waiting while it would be refused
        only for the places its address's (or its site's) tokens being checked hold
        (:attr:`TokenRefusal.checking`), :data:`MOST_WAIT` s at most: None if it
        may be looked up, else the refusal (told to :attr:`refused`)."""
        loop = asyncio.get_running_loop()
        until = loop.time() + MOST_WAIT
        while True:
            refusal = self.present(address, tell=False)
            if refusal is None:
                return None
            left = until - loop.time()
            if address is None or not refusal.checking or left <= 0:
                if address is not None:
                    self.refuse(address, refusal)
                return refusal
            ended = self._ended.setdefault(refusal.site or address, asyncio.Event())
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(ended.wait(), min(left, refusal.wait))
