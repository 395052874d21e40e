"""The commit script of the version before a commit sent only what changed (main at
94ad67b, core/stores/redis_scripts.py), kept as it was: a process of that version in
a rolling upgrade (``tests/stores/test_redis_changes_only.py``). It writes the whole
info and meta of every commit and knows nothing of the parts the new script keeps."""

from __future__ import annotations

from typing import Any

from rollbridge.engine.model import Commit
from rollbridge.plain import pack
from rollbridge.stores.base import reply_window
from rollbridge.stores.redis import RedisStore, _digest, prepare

__all__ = ["COMMIT_BEFORE", "commit_before"]

#: ``COMMIT`` of the version before, verbatim.
COMMIT_BEFORE = (
    "#!lua"
    + """
local head = redis.call('HMGET', KEYS[1], 'epoch', 'seq')
if not head[1] then return {0, 'unknown'} end
local epoch, stored = tonumber(head[1]), tonumber(head[2])
local cepoch, cseq = tonumber(ARGV[2]), tonumber(ARGV[3])
local ne, na, nr, np = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]),
  tonumber(ARGV[7])
local retain, window = tonumber(ARGV[11]), tonumber(ARGV[12])
local no = tonumber(ARGV[15])
local e0 = 16
local a0 = e0 + 2 * ne
local r0 = a0 + 2 * na
local p0 = r0 + nr
local o0 = p0 + 2 * np

-- 0. this very commit, written already (a retry after a lost reply): nothing to do
if ne > 0 and cepoch == epoch and cseq <= stored
    and tonumber(redis.call('ZSCORE', KEYS[8], ARGV[14])) == cseq then
  return {2}
end

-- 1. the writer's fencing token: only the lease holder (if any) writes
local owner = redis.call('GET', KEYS[7])
if owner and owner ~= ARGV[1] then return {0, 'owner', owner} end

-- 2. the sequence: the commit continues the stored log exactly, in the stored epoch.
-- Another epoch never writes: only FENCE moves a table to a new one, so an older
-- epoch is a process that has not seen the fence, and a newer one a fence Redis lost
-- (a second failover): refused, the writer reloads and fences again
if cepoch ~= epoch then return {0, 'seq', epoch, stored} end
local expect = stored
for k = 0, ne - 1 do
  if tonumber(ARGV[e0 + 2 * k]) ~= expect + 1 then return {0, 'seq', epoch, stored} end
  expect = expect + 1
end
if cseq ~= expect then return {0, 'seq', epoch, stored} end

-- 3. the request ids: a request whose reply names an event is never answered again
local floor = stored - window
for k = 0, np - 1 do
  local key = ARGV[p0 + 2 * k]
  local at = redis.call('ZSCORE', KEYS[6], key)
  if at and tonumber(at) > floor then
    local old = redis.call('HGET', KEYS[5], key)
    if old and string.sub(old, 1, 1) == 'F' then return {0, 'reply', key} end
  end
end

-- 4. every check passed: write
for k = 0, ne - 1 do
  redis.call('ZADD', KEYS[4], ARGV[e0 + 2 * k], ARGV[e0 + 2 * k + 1])
end
if retain > 0 then
  redis.call('ZREMRANGEBYRANK', KEYS[4], 0, -(retain + 1))
else
  redis.call('DEL', KEYS[4])
end
if ne > 0 then
  redis.call('ZADD', KEYS[8], cseq, ARGV[14])
  redis.call('ZREMRANGEBYSCORE', KEYS[8], '-inf', cseq - math.max(retain, 1))
end
for k = 0, na - 1 do
  -- HSET answers how many fields it added: 1 for an actor new to the table, which
  -- then takes the next position (the record hash and the order set move together)
  local id = ARGV[a0 + 2 * k]
  if redis.call('HSET', KEYS[2], id, ARGV[a0 + 2 * k + 1]) == 1 then
    redis.call('ZADD', KEYS[3], redis.call('HINCRBY', KEYS[1], 'pos', 1), id)
  end
end
for k = 0, nr - 1 do
  redis.call('HDEL', KEYS[2], ARGV[r0 + k])
  redis.call('ZREM', KEYS[3], ARGV[r0 + k])
end
if no > 0 then
  -- the whole order (an actor put back where it stood): positions after every other
  local base = redis.call('HINCRBY', KEYS[1], 'pos', no) - no
  for k = 0, no - 1 do
    if redis.call('HEXISTS', KEYS[2], ARGV[o0 + k]) == 1 then
      redis.call('ZADD', KEYS[3], base + k + 1, ARGV[o0 + k])
    end
  end
end
redis.call('HSET', KEYS[1], 'info', ARGV[8], 'meta', ARGV[9], 'epoch', cepoch,
  'seq', cseq, 'wanted', ARGV[10])
for k = 0, np - 1 do
  local key = ARGV[p0 + 2 * k]
  redis.call('HSET', KEYS[5], key, ARGV[p0 + 2 * k + 1])
  redis.call('ZADD', KEYS[6], cseq, key)
end
local old = redis.call('ZRANGE', KEYS[6], '-inf', cseq - window, 'BYSCORE')
for from = 1, #old, 500 do
  local chunk = {}
  for n = from, math.min(from + 499, #old) do chunk[#chunk + 1] = old[n] end
  redis.call('HDEL', KEYS[5], unpack(chunk))
  redis.call('ZREM', KEYS[6], unpack(chunk))
end
redis.call('PUBLISH', ARGV[13], cepoch .. ':' .. cseq)
return {1}
"""
)


def commit_before(store: RedisStore, table_id: str, commit: Commit) -> list[Any]:
    """Write ``commit`` as a process of the version before did (its ``commit_args``:
    the whole info and meta), through ``store``'s client; the script's answer."""
    p = prepare(commit)  # events, actors, replies: serialised as the version before did
    info, meta = pack(commit.info.to_dict()), pack(commit.meta)  # whole, as it packed them
    fields = (p.epoch, p.seq, p.events, p.actors, p.removed, info, meta, p.wanted, p.replies,
              p.order)  # fmt: skip
    digest = _digest(fields if p.order else fields[:-1])
    keys = store.keys.table(table_id)
    args: list[Any] = [store.writer or "", p.epoch, p.seq, len(p.events), len(p.actors),
                       len(p.removed), len(p.replies), info, meta, p.wanted, store.retain,
                       reply_window(store.retain), keys.channel, digest, len(p.order)]  # fmt: skip
    for pair in (*p.events, *p.actors):
        args += pair
    args += p.removed
    for pair in p.replies:
        args += pair
    args += p.order
    names = [keys.info, keys.actors, keys.order, keys.log, keys.replies, keys.reply_seqs,
             keys.owner, keys.commits]  # fmt: skip
    return store.client.register_script(COMMIT_BEFORE)(keys=names, args=args)
