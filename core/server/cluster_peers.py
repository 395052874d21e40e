"""The settings every ``rollbridge serve --redis`` process on one Redis must share
(docs/redis.md, "Settings every process shares").

A table's changes run on whichever process holds its lease, and that process applies
its own ``--retain`` (how much of the log and of the replies Redis keeps: its commits
trim them), ``--max-actors`` and ``--max-event-size``. A process started with other
values would make a table keep less, or take what the others refuse, whenever it
happens to own it — silently. So each process names its values in one hash,
``{prefix}processes`` (field: the process's id; value: ``UNTIL|JSON``, ``UNTIL`` the
Redis time in ms its claim lasts to), renewed with its leases; a process whose values
differ from a live one's is refused at start (:func:`claim`), before it listens.
A process killed without a goodbye leaves its claim for :data:`CLAIM_LEASES` lease
lengths; a process that stops deletes it (:func:`leave`).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Sequence
from typing import Any

from rollbridge.exceptions import InvalidRequest
from rollbridge.text import Messages, Text
from rollbridge.words import counted

__all__ = [
    "CLAIM",
    "CLAIM_LEASES",
    "OPTIONS",
    "Departures",
    "claim",
    "differences",
    "leave",
    "named",
    "shared",
]

say = Messages("rollbridge")
log = logging.getLogger("rollbridge.cluster")

#: Lease lengths a process's claim lasts unless renewed (it is renewed every third
#: of a lease, with the leases).
CLAIM_LEASES = 3

#: The settings that must agree, by the option that sets each.
OPTIONS = {"retain": "--retain", "max_actors": "--max-actors", "max_event_size": "--max-event-size"}

#: Claim this process's settings (``KEYS[1]``: the hash; ``KEYS[2]``: the hash of the
#: processes found gone, :data:`DEPARTED`; ``ARGV``: the process's id, its settings as
#: JSON, how long the claim lasts in ms, and ``1`` to renew the claim of a process that
#: serves): ``{}`` once claimed; the id, settings and ms left of a live process whose
#: settings differ. A start is then refused, and its own claim not written; a renewal
#: is written all the same (the process serves with its settings: a process starting
#: later is checked against it too, and the other one finds it and says so). Claims
#: past their time are deleted on the way, each other process's recorded in
#: ``KEYS[2]`` as gone (field: its id; value: ``UNTIL|RAN_OUT``, kept one claim's
#: length, until ``UNTIL``); the hashes live as long as their longest field. A renewal
#: answers two lists: the live process whose settings differ (as above, or empty), and
#: each process recorded gone — by any process's claim, not only this one's: with three
#: processes the one that took a table over is not always the one that finds its
#: owner's claim run out — as its id, the ms since its claim ran out and the Redis time
#: it ran out at (a process gone without stopping: killed, or cut off from Redis; one
#: that stops deletes its claim, :func:`leave`). A process renewing is taken out of
#: the gone (it was paused, and is back). Run by a Redis out of memory too (fields of
#: a few bytes), as the leases' renewals.
CLAIM = """#!lua flags=allow-oom
local now = redis.call('TIME')
local ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local ttl = tonumber(ARGV[3])
local fields = redis.call('HGETALL', KEYS[1])
local found = nil
for i = 1, #fields, 2 do
  local node, value = fields[i], fields[i + 1]
  local bar = string.find(value, '|', 1, true)
  local last = bar and tonumber(string.sub(value, 1, bar - 1)) or 0
  if last == nil or last <= ms then
    redis.call('HDEL', KEYS[1], node)
    if last ~= nil and last > 0 and node ~= ARGV[1] then
      redis.call('HSET', KEYS[2], node, (ms + ttl) .. '|' .. last)
      if redis.call('PTTL', KEYS[2]) < ttl then
        redis.call('PEXPIRE', KEYS[2], ttl)
      end
    end
  elseif found == nil and node ~= ARGV[1] and string.sub(value, bar + 1) ~= ARGV[2] then
    found = {node, string.sub(value, bar + 1), last - ms}
    if ARGV[4] ~= '1' then return found end
  end
end
redis.call('HSET', KEYS[1], ARGV[1], (ms + ttl) .. '|' .. ARGV[2])
if redis.call('PTTL', KEYS[1]) < ttl then
  redis.call('PEXPIRE', KEYS[1], ttl)
end
if ARGV[4] ~= '1' then
  return found or {}
end
redis.call('HDEL', KEYS[2], ARGV[1])
local gone = {}
local departed = redis.call('HGETALL', KEYS[2])
for i = 1, #departed, 2 do
  local node, value = departed[i], departed[i + 1]
  local bar = string.find(value, '|', 1, true)
  local keep = bar and tonumber(string.sub(value, 1, bar - 1))
  local last = bar and tonumber(string.sub(value, bar + 1))
  if keep == nil or last == nil or keep <= ms then
    redis.call('HDEL', KEYS[2], node)
  else
    gone[#gone + 1] = node
    gone[#gone + 1] = ms - last
    gone[#gone + 1] = last
  end
end
return {found or {}, gone}
"""

# Translators: serve --redis refused to start; {process} is another process's id,
# {differences} a list of cluster.setting_differs, joined with "; " (the ":; " after
# its name; keep it).
DIFFER = say(
    "cluster.settings_differ",
    "another rollbridge serve on this Redis ({process}) runs with other settings: "
    "{differences:; }. Every process runs each table's changes when it holds the table, so "
    "they must agree: start this one with the same values, or stop every process and "
    "start them all with the new ones (a process gone without stopping holds its "
    "settings {seconds} s more)",
)


def shared(retain: int, max_actors: int | None, max_event_size: int) -> str:
    """The settings that must agree, as the JSON the claims compare (keys sorted)."""
    values = {"retain": retain, "max_actors": max_actors, "max_event_size": max_event_size}
    return json.dumps(values, sort_keys=True, separators=(",", ":"))


# Translators: one setting that differs between two processes: {option} is an option
# (--retain), {theirs} its value on the other process, {ours} on this one.
ONE_DIFFERS = say("cluster.setting_differs", "{option} {theirs} there, {ours} here")


def differences(theirs: str, ours: str) -> list[Text]:
    """Each setting that differs, by its option: ``--retain 1000 there, 5 here``; a
    claim that cannot be read is shown as it is, as the value of ``settings``."""
    try:
        other, mine = json.loads(theirs), json.loads(ours)
    except ValueError:
        other, mine = None, None
    if not isinstance(other, dict) or not isinstance(mine, dict):
        return [ONE_DIFFERS(option="settings", theirs=theirs, ours=ours)]
    return [
        ONE_DIFFERS(option=option, theirs=_shown(other.get(name)), ours=_shown(mine.get(name)))
        for name, option in OPTIONS.items()
        if other.get(name) != mine.get(name)
    ] or [ONE_DIFFERS(option="settings", theirs=theirs, ours=ours)]


def _shown(value: Any) -> str:
    return "0" if value is None else str(value)  # as the option is given: 0 is none


def claim(client: Any, key: str, departed: str, node: str, settings: str, ttl_ms: int) -> None:
    """Claim ``settings`` for process ``node`` on a redis-py (synchronous) ``client``
    (``key``: the hash of the claims; ``departed``: of the processes found gone).

    :raises InvalidRequest: (``settings_differ``) a live process's settings differ;
        nothing is written.
    :raises redis.RedisError: Redis failed (the caller says so)."""
    found = client.eval(CLAIM, 2, key, departed, node, settings, ttl_ms)
    if found:
        other, theirs = (part.decode() if isinstance(part, bytes) else str(part)
                         for part in found[:2])  # fmt: skip
        left = -(-int(found[2]) // 1000)  # whole seconds, rounded up
        raise InvalidRequest(
            DIFFER(process=other, differences=differences(theirs, settings), seconds=left),
            code="settings_differ",
            details={"process": other, "theirs": theirs, "ours": settings},
        )  # fmt: skip


async def leave(redis: Any, key: str, node: str) -> None:
    """Delete the claim of process ``node`` (it stops), on an asyncio client."""
    await redis.hdel(key, node)


#: A process id as ``rollbridge serve`` makes it (:func:`rollbridge.cli.stores.process_id`).
_PROCESS_ID = re.compile(r"serve-(?P<host>.+)-(?P<pid>[0-9]+)-[0-9a-f]+")


def named(node: str) -> str:
    """Process ``node`` as a log line names it: its id, and the pid and host it holds
    (``serve-web1-4830-9216164f (pid 4830 on web1)``); an id of another shape alone."""
    parts = _PROCESS_ID.fullmatch(node)
    return f"{node} (pid {parts['pid']} on {parts['host']})" if parts else node


class Departures:
    """Which process ran each table this process took over, until that process is
    found gone (its claim past its time, recorded by whichever process's renewal found
    it: :data:`CLAIM`), said then in one WARNING naming it and those tables — by every
    process, each naming the tables it took over (with three processes, the one that
    finds the claim run out has often taken none of them). A process that stops
    deletes its claim and is never said gone; the tables taken from it are forgotten
    with the oldest once more than :attr:`MOST` processes are remembered (each with its
    :attr:`TABLES` first), and so are the processes said gone. A process said gone
    that the renewals no longer answer (it was paused and is back, or its record ran
    out) is forgotten as said: the tables taken from it afterwards are named if it is
    found gone again."""

    #: Processes remembered, and tables named for each.
    MOST = 64
    TABLES = 100

    def __init__(self) -> None:
        self._taken: dict[str, list[str]] = {}
        #: Each process said gone: the Redis time (ms) its claim ran out at.
        self._said: dict[str, int] = {}

    def took(self, table_id: str, node: str) -> None:
        """This process took ``table_id`` over after ``node`` had run it."""
        if node in self._said:  # said gone already: the "now runs" line names it
            return
        tables = self._taken.pop(node, [])  # (again) the newest
        if table_id not in tables and len(tables) < self.TABLES:
            tables.append(table_id)
        self._taken[node] = tables
        if len(self._taken) > self.MOST:
            del self._taken[next(iter(self._taken))]

    def gone(self, found: Sequence[Any]) -> None:
        """Say each process gone of a renewal's answer (``found``: an id, the ms since
        its claim ran out and the Redis time it ran out at, and so on), with the tables
        taken from it here; a process already said gone (at that time) is not said
        again, as each renewal answers it while it is recorded. Every renewal's
        answer is given, an empty one too: a process said gone that it no longer
        holds is forgotten as said."""
        listed = set()
        for index in range(0, len(found) - 2, 3):
            node = _text(found[index])
            listed.add(node)
            seconds = int(found[index + 1]) / 1000
            ran_out = int(found[index + 2])
            if self._said.get(node) == ran_out:
                continue
            self._said.pop(node, None)
            self._said[node] = ran_out
            if len(self._said) > self.MOST:
                del self._said[next(iter(self._said))]
            tables = self._taken.pop(node, [])
            took = (
                "this process took over its " + counted(len(tables), "table") + ": "
                + ", ".join(tables)
                if tables
                else "this process took over none of its tables (each goes to the first "
                "process that gets a change of it)"
            )  # fmt: skip
            ago = f" {seconds:.0f} s ago" if seconds >= 1 else ""
            log.warning(
                "process %s went away without stopping (killed, or cut off from Redis): "
                "its claim on this Redis ran out%s, not renewed for %s; %s",
                named(node), ago, counted(CLAIM_LEASES, "lease"), took,
            )  # fmt: skip
        for node in [node for node in self._said if node not in listed]:
            del self._said[node]  # back (its renewal took it out of the gone), or ran out


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
