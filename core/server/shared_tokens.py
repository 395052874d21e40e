"""The throttle of wrong tokens shared by every ``serve --redis`` process of one
Redis (docs/redis.md, "The throttle of wrong tokens"; docs/operations.md, "Limits").

Each process keeps its own :class:`~rollbridge.protocol.limits.WrongTokens` (what
its own tokens being checked hold, ``scope: checking``); a token it lets through
then takes a place, in one round trip, from its address group's bucket in Redis
(and its IPv6 /48's), which every process counts against: a guesser behind a load
balancer spreading its connections over N processes gets the allowance of one, not
N. A right token (or one the store could not look up) gives the place back; a
wrong one keeps it.

One Lua script (:data:`BUCKETS`) does the token-bucket arithmetic atomically on a
small hash per bucket (``t``: tokens held, ``at``: when, in ms). Its clock is the
Redis server's ``TIME``: one clock for every process, so that processes whose
clocks disagree neither refill a bucket early nor late (a process's monotonic
clock means nothing to another's; wall clocks drift by seconds). A bucket full
again is deleted, and one not full expires (``PEXPIRE``) when it would be full
again, at most ``window`` later: Redis holds a bucket only for an address that
presented a wrong token within the last window (or has one being checked).

Keys (``{prefix}`` the store's, ``rb:`` by default), one Redis Cluster hash tag per
site, so that one script touches an address's bucket and its site's in one slot::

    {prefix}wrong:{203.0.113.7}                          an IPv4 address
    {prefix}wrong:{2001:db8:1::/48}                      an IPv6 /48 (its /64s together)
    {prefix}wrong:{2001:db8:1::/48}:2001:db8:1:2::/64    an IPv6 /64
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from rollbridge.protocol.limits import WRONG_TOKENS_WINDOW

__all__ = ["BUCKETS", "SharedWrongTokens"]

#: Takes a token from (``ARGV[1]`` ``take``) or gives one back to (``give``) each
#: bucket of ``KEYS``, each with its rate (tokens per ms) and burst in ``ARGV``
#: after the operation. A take that finds a bucket lacking a token takes from none
#: and answers each bucket's wait in seconds (``""``: it had one); else ``{}``.
#: ``#!lua`` (no flags), as the store's writing scripts: Redis out of memory refuses
#: it as a whole (a ``StoreUnavailable``), never half done.
BUCKETS = """#!lua
local now = redis.call('TIME')
local ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local take = ARGV[1] == 'take'
local levels = {}
for i, key in ipairs(KEYS) do
  local rate, burst = tonumber(ARGV[2 * i]), tonumber(ARGV[2 * i + 1])
  local held = redis.call('HMGET', key, 't', 'at')
  local tokens = burst
  if held[1] and held[2] then
    local since = math.max(0, ms - tonumber(held[2]))
    tokens = math.min(burst, tonumber(held[1]) + since * rate)
  end
  levels[i] = tokens
end
if take then
  local waits, short = {}, false
  for i = 1, #KEYS do
    local rate = tonumber(ARGV[2 * i])
    if levels[i] < 1 - 1e-9 then
      waits[i] = tostring((1 - levels[i]) / rate / 1000)
      short = true
    else
      waits[i] = ''
    end
  end
  if short then
    return waits
  end
end
for i, key in ipairs(KEYS) do
  local rate, burst = tonumber(ARGV[2 * i]), tonumber(ARGV[2 * i + 1])
  local tokens
  if take then
    tokens = math.max(0, levels[i] - 1)
  else
    tokens = math.min(burst, levels[i] + 1)
  end
  if tokens >= burst - 1e-9 then
    redis.call('DEL', key)
  else
    redis.call('HSET', key, 't', tostring(tokens), 'at', tostring(ms))
    redis.call('PEXPIRE', key, math.ceil((burst - tokens) / rate) + 1)
  end
end
return {}
"""


class SharedWrongTokens:
    """The buckets of wrong tokens in Redis, per address group and per site; see
    the module docstring.

    :param redis: an asyncio redis-py client (:meth:`register_script`).
    :param prefix: the store's key prefix (``rb:``).
    :param allowed: wrong tokens an address group may present within ``window``.
    :param per_site: wrong tokens a site may present within ``window`` (0: none).
    :param site: the site of an address group (None: none).
    :param window: seconds.
    """

    def __init__(
        self,
        redis: Any,
        prefix: str,
        allowed: int,
        per_site: int,
        site: Callable[[str], str | None],
        window: float = WRONG_TOKENS_WINDOW,
    ) -> None:
        self.prefix = prefix
        self.own = (allowed / (window * 1000), float(allowed))
        self.shared = (per_site / (window * 1000), float(per_site)) if per_site else None
        self.site = site
        self._script = redis.register_script(BUCKETS)

    def keys(self, address: str) -> tuple[list[str], list[float], str | None]:
        """The keys of ``address``'s buckets (its own, then its site's), their rates
        and bursts in the script's order, and its site (None: none)."""
        site = self.site(address) if self.shared is not None else None
        if site is None:
            return [f"{self.prefix}wrong:{{{address}}}"], [*self.own], None
        base = f"{self.prefix}wrong:{{{site}}}"
        assert self.shared is not None
        return [f"{base}:{address}", base], [*self.own, *self.shared], site

    async def take(self, address: str) -> tuple[float | None, float | None] | None:
        """Take a place for a token of ``address``: None if it was there (in its
        bucket and its site's), else the seconds until each of them has one (None:
        that one has; nothing is taken then).

        :raises redis.RedisError: Redis did not answer (nothing was taken).
        """
        keys, numbers, site = self.keys(address)
        waits = await self._script(keys=keys, args=["take", *numbers])
        if not waits:
            return None
        own, *rest = (wait_seconds(wait) for wait in waits)
        return own, (rest[0] if site is not None else None)

    async def give_back(self, address: str) -> None:
        """Give back the place a right token of ``address`` took.

        :raises redis.RedisError: Redis did not answer (the place stays taken until
            its bucket refills)."""
        keys, numbers, _site = self.keys(address)
        await self._script(keys=keys, args=["give", *numbers])


def wait_seconds(wait: bytes | str) -> float | None:
    """A bucket script's wait (seconds, as the text Redis returns) as a number, at
    least a millisecond; None for an empty or non-finite one (no wait)."""
    text = wait.decode() if isinstance(wait, bytes) else wait
    return max(0.001, float(text)) if text and math.isfinite(float(text)) else None
