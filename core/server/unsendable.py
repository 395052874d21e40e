"""A frame the outbox cannot make (:func:`rollbridge.server.outbox.write_together`).

One job: what becomes of it, so that no client waits for good for a reply whose
frame it is — the result of a commit already written, say. A text frame with a lone
surrogate (no UTF-8 holds one) is sent with U+FFFD in each one's place
(:func:`mended`): the JSON stays JSON, and the client gets its reply. A frame that is
neither bytes nor text (a bug: nothing can be sent for it) closes its connection
with 1011 (internal error) after the connection's other frames
(:func:`close_unsendable`): the client reconnects, resumes, and sends its unanswered
requests again (same ids), answered from the replies the store kept. Before, either
was skipped with a WARNING, and a requester whose own result it was waited for it
without end.

Each is said at WARNING on ``rollbridge.client``, at most one line a minute (the
same event to every connection of a table would say it once each), naming the
frame's type and what was done — never the frame's text, which may be a player's.
"""

from __future__ import annotations

import asyncio
import logging

from websockets.asyncio.server import ServerConnection
from websockets.frames import CloseCode

from rollbridge.plain import valid
from rollbridge.server.throttle import Throttle

__all__ = ["close_unsendable", "mended"]

log = logging.getLogger("rollbridge.client")

#: The WARNINGs of this module: at most one a minute, the next saying how many were held.
_said = Throttle(60.0)
#: The closes begun here, held until they end (a task nobody holds may be collected).
_closing: set[asyncio.Task[None]] = set()


def _say(line: str, *args: object) -> None:
    held = _said.allow()
    if held is not None:
        more = f" ({held} more such frames since the last line)" if held else ""
        log.warning(line + "%s", *args, more)


def mended(frame: object) -> bytes | str | None:
    """``frame`` as it can be sent: a text with a lone surrogate with U+FFFD in
    each one's place (said once a minute at most); None: it is neither bytes nor
    text, and cannot be sent at all."""
    if frame.__class__ is str:
        _say("a text frame held a lone surrogate (not UTF-8); sent with U+FFFD in its place")
        return valid(frame)  # type: ignore[arg-type]
    if frame.__class__ is bytes:  # made all the same: not this module's to mend
        return frame  # type: ignore[return-value]
    return None


def close_unsendable(connection: ServerConnection, frame: object) -> None:
    """Close ``connection`` with 1011 (internal error), in the background, after
    what was written to it: ``frame`` (of no type a frame is made of) was not sent,
    and its client learns so by the close, reconnects and asks again. Outside a
    running event loop (no connection is served there) the transport is aborted."""
    _say("a frame of type %s cannot be sent; its connection is closed (1011) so that "
         "its client reconnects and asks again", type(frame).__name__)  # fmt: skip
    try:
        task = asyncio.get_running_loop().create_task(connection.close(CloseCode.INTERNAL_ERROR))
    except RuntimeError:
        connection.transport.abort()
        return
    _closing.add(task)
    task.add_done_callback(_closing.discard)
