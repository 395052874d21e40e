"""The server-side Lua scripts of the Redis store (:mod:`rollbridge.stores.redis`).

Redis runs each script atomically: no other command runs between its first and
its last line, so a script's reads see whole commits only and its checks hold
when it writes. Redis does not undo a script's earlier writes when a later
command fails, so every script checks everything first and writes only after.
redis-py sends them with ``EVALSHA`` and falls back to ``SCRIPT LOAD`` when the
server does not know one (after a restart, say).

:data:`COMMIT` is the one script a commit is: the writer's fencing token, the
sequence, the request ids, then the writes and the ``PUBLISH``. Its arguments
are built by :func:`rollbridge.stores.redis.commit_args`; ``docs/redis.md``
describes each check.
"""

from __future__ import annotations

__all__ = [
    "ADD_ADMIN_TOKEN",
    "ADD_TOKEN",
    "COMMIT",
    "CREATE_TABLE",
    "DELETE_TABLE",
    "EVENT",
    "EVENTS_AFTER",
    "FIND_ADMIN_TOKEN",
    "FIND_TOKEN",
    "FIRST_START",
    "FOLLOW",
    "FOLLOW_LOG",
    "IMPORT_TABLE",
    "LIST_ADMIN_TOKENS",
    "LIST_TOKENS",
    "LOAD",
    "REPLY",
    "REPLY_KEYS",
    "REVOKE_ADMIN_TOKEN",
    "REVOKE_TOKEN",
    "UNDOS_AFTER",
]

#: The first line of every script that writes: with a shebang, Redis (7.0 or later)
#: refuses the whole script up front when it is out of memory, rather than at its
#: first write command (a deletion before it would already have happened).
_WRITES = "#!lua"
#: The first line of every script that only reads: it runs on a replica, and while
#: the server is out of memory.
_READS = "#!lua flags=no-writes"

#: HMGET in chunks, since Lua's unpack() has a bounded stack.
_HMGET = """
local function hmget(key, ids)
  local out = {}
  for from = 1, #ids, 500 do
    local chunk = {}
    for n = from, math.min(from + 499, #ids) do chunk[#chunk + 1] = ids[n] end
    local got = redis.call('HMGET', key, unpack(chunk))
    for n = 1, #got do out[#out + 1] = got[n] end
  end
  return out
end
"""

#: The log's events a commit sifts into a table's undos set at most (COMMIT): the set
#: of a log an older version wrote fills over several commits, each holding Redis some
#: 15 ms (docs/redis.md), never the whole log's time at once.
UNDOS_FILL = 2000

#: KEYS: info actors order log replies reply_seqs owner commits undos.
#: ARGV: writer, epoch, seq, events, actors, removed, replies, info head, meta,
#: wanted, retain, window, channel, digest, order, base, info tail, undos (the
#: indexes among the commit's events of its undos and redos, by commas); then events
#: (seq, bytes), actors (id, bytes), removed ids, replies (key, flag byte + bytes),
#: every actor id in order (when the commit gives the order: ``order`` of them,
#: else none). ``base`` is the digest of the commit the writer wrote last to the
#: table, or empty: then the info head and the meta are sent; with a base, an empty
#: info head or meta is "as that commit left it" (check 4; docs/redis.md, "A commit
#: sends only what changed").
#: Returns {1} written, {2} this very commit was written already (nothing
#: written again), or {0, reason, ...}: nothing written (``whole``: send the
#: commit again without a base).
COMMIT = (
    _WRITES
    + """
local head = redis.call('HMGET', KEYS[1], 'epoch', 'seq')
if not head[1] then return {0, 'unknown'} end
local epoch, stored = tonumber(head[1]), tonumber(head[2])
local cepoch, cseq = tonumber(ARGV[2]), tonumber(ARGV[3])
local ne, na, nr, np = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]),
  tonumber(ARGV[7])
local retain, window = tonumber(ARGV[11]), tonumber(ARGV[12])
local no = tonumber(ARGV[15])
local against = ARGV[16]
local e0 = 19
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

-- 4. a commit sent against its writer's last one (against): the table must hold what
-- that commit left. Its digest is in 'mtag' and 'wanted' ends with a comma: every
-- commit of this version writes both, a version before this one writes 'wanted'
-- without it (and never 'mtag'), so then no other writer wrote the table since.
-- What the commit did not send is as that commit left it: the info's head (in
-- 'ihead'), the meta (in 'meta': not written again). Or 'mtag' is this very commit's
-- digest: the table holds what it leaves (another writer wrote the same, a commit
-- without events), as a later commit of its batch, sent against it, finds
local ihead, meta = ARGV[8], ARGV[9]
if against ~= '' then
  local s = redis.call('HMGET', KEYS[1], 'mtag', 'wanted', 'ihead')
  if (s[1] ~= against and s[1] ~= ARGV[14]) or string.sub(s[2] or '', -1) ~= ','
      or not s[3] then
    return {0, 'whole'}
  end
  if ihead == '' then ihead = s[3] end
elseif ihead == '' or meta == '' then
  return redis.error_reply('a commit without a base sends its info and meta')
end

-- 5. every check passed: write
for k = 0, ne - 1 do
  redis.call('ZADD', KEYS[4], ARGV[e0 + 2 * k], ARGV[e0 + 2 * k + 1])
end
if retain > 0 then
  redis.call('ZREMRANGEBYRANK', KEYS[4], 0, -(retain + 1))
else
  redis.call('DEL', KEYS[4])
end
-- the undos and redos again, apart (read alone: UNDOS_AFTER), kept as long as the log;
-- the set holds every one from info's undos to its undos_to, and nothing else. A
-- commit that finds the last one written by a process that keeps no set takes the
-- commits of an older version after undos_to into it when the set answers up to where
-- they began and they are at most UNDOS_FILL events; else (a table none of this
-- version wrote yet; or one an older version moved in, maybe over a set its delete
-- left; or an older version's long run) starts it anew, empty, from its own seq. Then
-- every commit sifts at most UNDOS_FILL of the log's events under undos into it (their
-- bytes naming an undo or redo kind; the reader checks the kind), undos moved down to
-- the lowest: a whole retained log in one commit held Redis 0.75 s at 100,000 events,
-- and past 5 s (busy-reply-threshold) it could not be killed
if ne > 0 then
  local function sift(found)
    for k = 1, #found, 2 do
      local e = found[k]
      if string.find(e, '\\164kind\\164undo', 1, true)
          or string.find(e, '\\164kind\\164redo', 1, true) then
        redis.call('ZADD', KEYS[9], found[k + 1], e)
      end
    end
  end
  local to = tonumber(redis.call('HGET', KEYS[1], 'undos_to'))
  if to ~= stored then
    if to and to < stored and stored - to <= UNDOS_FILL
        and redis.call('HEXISTS', KEYS[1], 'undos') == 1 then
      sift(redis.call('ZRANGE', KEYS[4], '(' .. to, stored, 'BYSCORE', 'WITHSCORES'))
    else
      redis.call('DEL', KEYS[9])
      redis.call('HSET', KEYS[1], 'undos', ARGV[e0])
    end
  end
  redis.call('HSET', KEYS[1], 'undos_to', cseq)
  local from = redis.call('HGET', KEYS[1], 'undos')
  local below = redis.call('ZRANGE', KEYS[4], '(' .. from, '-inf', 'BYSCORE', 'REV',
    'LIMIT', 0, UNDOS_FILL, 'WITHSCORES')
  if #below > 0 then
    sift(below)
    redis.call('HSET', KEYS[1], 'undos', below[#below])
  end
end
for k in string.gmatch(ARGV[18], '%d+') do
  k = tonumber(k)
  redis.call('ZADD', KEYS[9], ARGV[e0 + 2 * k], ARGV[e0 + 2 * k + 1])
end
redis.call('ZREMRANGEBYSCORE', KEYS[9], '-inf', cseq - math.max(retain, 1))
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
-- the info, then the meta if it changed; 'wanted' with its comma (above), which the
-- scripts that read it skip; the info's head and the digest, for the next commit
redis.call('HSET', KEYS[1], 'info', ihead .. ARGV[17], 'epoch', cepoch, 'seq', cseq,
  'wanted', ARGV[10] .. ',', 'ihead', ihead, 'mtag', ARGV[14])
if meta ~= '' then redis.call('HSET', KEYS[1], 'meta', meta) end
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
).replace("UNDOS_FILL", str(UNDOS_FILL))

#: KEYS: info actors order log. Returns false for an unknown table, else
#: {info, meta, records in order, events the undo/redo stacks name}.
LOAD = (
    _READS
    + _HMGET
    + """
local h = redis.call('HMGET', KEYS[1], 'info', 'meta', 'wanted')
if not h[1] then return false end
local ids = redis.call('ZRANGE', KEYS[3], 0, -1)
local records = hmget(KEYS[2], ids)
local history = {}
for s in string.gmatch(h[3] or '', '[^,]+') do
  local got = redis.call('ZRANGE', KEYS[4], s, s, 'BYSCORE')
  if got[1] then history[#history + 1] = got[1] end
end
return {h[1], h[2], records, history}
"""
)

#: KEYS: info actors order log reply_seqs. ARGV: after, retain, window. What a
#: follower's sync reads, in one atomic read: LOAD without the undo/redo events
#: (only which of those seqs the log still holds: from the log's range when it is
#: whole, else by a ZCOUNT each), EVENTS_AFTER and
#: REPLY_KEYS. Returns false for an unknown table, else {info, meta, records in
#: order, the seqs of ``wanted`` in the log, latest seq, events after ``after`` (none
#: when ``after`` is the latest or some left the log), reply keys in the window}.
FOLLOW = (
    _READS
    + _HMGET
    + """
local h = redis.call('HMGET', KEYS[1], 'info', 'meta', 'wanted', 'seq')
if not h[1] then return false end
local ids = redis.call('ZRANGE', KEYS[3], 0, -1)
local records = hmget(KEYS[2], ids)
local latest = tonumber(h[4])
-- the log is (nearly always) the seqs latest - card + 1 .. latest, each once (the commit
-- script stores a seq once): then an entry's event is in it exactly when its seq is in
-- that range, found with two calls instead of a ZCOUNT per entry
local card = redis.call('ZCARD', KEYS[4])
local low = latest - card + 1
local whole = card > 0 and redis.call('ZCOUNT', KEYS[4], low, latest) == card
local present = {}
for s in string.gmatch(h[3] or '', '[^,]+') do
  local n = tonumber(s)
  if whole then
    if n >= low and n <= latest then present[#present + 1] = s end
  elseif redis.call('ZCOUNT', KEYS[4], s, s) > 0 then
    present[#present + 1] = s
  end
end
local after, retain = tonumber(ARGV[1]), tonumber(ARGV[2])
local events = {}
if after < latest and after >= latest - retain then
  events = redis.call('ZRANGE', KEYS[4], '(' .. after, '+inf', 'BYSCORE')
end
local keys = redis.call('ZRANGE', KEYS[5], '(' .. (latest - tonumber(ARGV[3])), '+inf',
  'BYSCORE')
return {h[1], h[2], records, present, latest, events, keys}
"""
)

#: KEYS: info log. ARGV: after, retain. What a follower that applies the events to
#: its table in memory reads (:meth:`~rollbridge.stores.redis.RedisStore.follow_log`):
#: EVENTS_AFTER, with the table's epoch and the log's first seq. Returns false for an
#: unknown table, else {epoch, latest seq, the log's first seq or false, events after
#: ``after`` (none when ``after`` is the latest or some left the log)}.
FOLLOW_LOG = (
    _READS
    + """
local h = redis.call('HMGET', KEYS[1], 'epoch', 'seq')
if not h[1] then return false end
local latest = tonumber(h[2])
local after, retain = tonumber(ARGV[1]), tonumber(ARGV[2])
local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
local events = {}
if after < latest and after >= latest - retain then
  events = redis.call('ZRANGE', KEYS[2], '(' .. after, '+inf', 'BYSCORE')
end
return {tonumber(h[1]), latest, first[2] and tonumber(first[2]) or false, events}
"""
)

#: KEYS: info log. ARGV: seq, retain[, until]. Returns false for an unknown table,
#: else {latest seq, events after seq (up to until)...} (no events when some left
#: the log).
EVENTS_AFTER = (
    _READS
    + """
local latest = redis.call('HGET', KEYS[1], 'seq')
if not latest then return false end
latest = tonumber(latest)
local seq, retain = tonumber(ARGV[1]), tonumber(ARGV[2])
local last = latest
if ARGV[3] then last = math.min(latest, tonumber(ARGV[3])) end
if seq >= last or seq < latest - retain then return {latest} end
local out = redis.call('ZRANGE', KEYS[2], '(' .. seq, last, 'BYSCORE')
table.insert(out, 1, latest)
return out
"""
)

#: KEYS: info log undos. ARGV: seq, retain. Returns false for an unknown table, else
#: {latest seq, the undos and redos after seq in the retained log that the undos set
#: holds (from info's undos to its undos_to), the log's events after seq outside
#: that span (those of a log older than the set, or written by a process that keeps
#: none: the reader sifts them)}.
UNDOS_AFTER = (
    _READS
    + """
local h = redis.call('HMGET', KEYS[1], 'seq', 'undos', 'undos_to')
if not h[1] then return false end
local latest = tonumber(h[1])
local start = math.max(tonumber(ARGV[1]), latest - tonumber(ARGV[2]))
local from, to = tonumber(h[2]) or latest + 1, tonumber(h[3]) or latest
local undos = {}
if to > math.max(start, from - 1) then  -- what the set answers for: from .. to alone
  undos = redis.call('ZRANGE', KEYS[3], '(' .. math.max(start, from - 1), to, 'BYSCORE')
end
local older = {}
if from - 1 > start then
  older = redis.call('ZRANGE', KEYS[2], '(' .. start, math.min(from - 1, latest), 'BYSCORE')
end
if to < latest then
  for _, e in ipairs(redis.call('ZRANGE', KEYS[2], '(' .. math.max(to, start), latest,
      'BYSCORE')) do
    table.insert(older, e)
  end
end
return {latest, undos, older}
"""
)

#: KEYS: info log. ARGV: seq. Returns false, or {latest seq, the event or false}.
EVENT = (
    _READS
    + """
local latest = redis.call('HGET', KEYS[1], 'seq')
if not latest then return false end
local got = redis.call('ZRANGE', KEYS[2], ARGV[1], ARGV[1], 'BYSCORE')
return {tonumber(latest), got[1] or false}
"""
)

#: KEYS: info replies reply_seqs. ARGV: key. Returns false, or {latest, reply, at}.
REPLY = (
    _READS
    + """
local latest = redis.call('HGET', KEYS[1], 'seq')
if not latest then return false end
local reply = redis.call('HGET', KEYS[2], ARGV[1])
local at = redis.call('ZSCORE', KEYS[3], ARGV[1])
return {tonumber(latest), reply or false, at or false}
"""
)

#: KEYS: info reply_seqs. ARGV: window. Returns false, or the keys in the window.
REPLY_KEYS = (
    _READS
    + """
local latest = redis.call('HGET', KEYS[1], 'seq')
if not latest then return false end
return redis.call('ZRANGE', KEYS[2], '(' .. (tonumber(latest) - tonumber(ARGV[1])),
  '+inf', 'BYSCORE')
"""
)

#: KEYS: info tokens token_by_hash token_hash_of token_order tables counter.
#: ARGV: id, info, meta, epoch, seq, created, then tokens (id, bytes, hash).
#: Returns 0 if the table exists (nothing written), 1 once created.
CREATE_TABLE = (
    _WRITES
    + """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'info', ARGV[2], 'meta', ARGV[3], 'epoch', ARGV[4],
  'seq', ARGV[5], 'wanted', '', 'created', ARGV[6], 'pos', 0)
for k = 7, #ARGV, 3 do
  local id, hash = ARGV[k], ARGV[k + 2]
  redis.call('HSET', KEYS[2], id, ARGV[k + 1])
  redis.call('HSET', KEYS[3], hash, id)
  redis.call('HSET', KEYS[4], id, hash)
  redis.call('ZADD', KEYS[5], 'NX', redis.call('HINCRBY', KEYS[1], 'tokpos', 1), id)
end
redis.call('ZADD', KEYS[6], redis.call('INCR', KEYS[7]), ARGV[1])
return 1
"""
)

#: KEYS: served tables counter. Marks the store served; returns 1 if nothing of
#: rollbridge's was there before (never served, no table, none ever made: the
#: counter counts every table and admin token made), else 0 — so one process, once.
FIRST_START = (
    _WRITES
    + """
if not redis.call('SET', KEYS[1], '1', 'NX') then return 0 end
if redis.call('EXISTS', KEYS[2]) == 1 or redis.call('EXISTS', KEYS[3]) == 1 then return 0 end
return 1
"""
)

#: KEYS: the table's (TABLE_KINDS order, then any more of it to delete), then tables.
#: ARGV: id.
#: Returns 0 for an unknown table, 1 once deleted.
DELETE_TABLE = (
    _WRITES
    + """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
for k = 1, #KEYS - 1 do redis.call('DEL', KEYS[k]) end
redis.call('ZREM', KEYS[#KEYS], ARGV[1])
return 1
"""
)

#: KEYS: info tokens token_by_hash token_hash_of token_order. ARGV: id, bytes, hash.
#: Returns 0 for an unknown table, 1 once stored (replacing a record of that id).
ADD_TOKEN = (
    _WRITES
    + """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local id, hash = ARGV[1], ARGV[3]
local old = redis.call('HGET', KEYS[4], id)
if old then redis.call('HDEL', KEYS[3], old) end
redis.call('HSET', KEYS[2], id, ARGV[2])
redis.call('HSET', KEYS[3], hash, id)
redis.call('HSET', KEYS[4], id, hash)
redis.call('ZADD', KEYS[5], 'NX', redis.call('HINCRBY', KEYS[1], 'tokpos', 1), id)
return 1
"""
)

#: KEYS: tokens token_by_hash. ARGV: hash. Returns the record, or false.
FIND_TOKEN = (
    _READS
    + """
local id = redis.call('HGET', KEYS[2], ARGV[1])
if not id then return false end
return redis.call('HGET', KEYS[1], id)
"""
)

#: KEYS: info tokens token_order. Returns false for an unknown table, else records.
LIST_TOKENS = (
    _READS
    + _HMGET
    + """
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
return hmget(KEYS[2], redis.call('ZRANGE', KEYS[3], 0, -1))
"""
)

#: KEYS: info tokens token_by_hash token_hash_of token_order. ARGV: id.
#: Returns -1 for an unknown table, 0 for an unknown token, 1 once removed.
REVOKE_TOKEN = (
    _WRITES
    + """
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
local hash = redis.call('HGET', KEYS[4], ARGV[1])
if not hash then return 0 end
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], hash)
redis.call('HDEL', KEYS[4], ARGV[1])
redis.call('ZREM', KEYS[5], ARGV[1])
return 1
"""
)

#: KEYS: admin_tokens admin_by_hash admin_hash_of admin_order counter.
#: ARGV: id, bytes, hash. Stores the record, replacing one of that id.
ADD_ADMIN_TOKEN = (
    _WRITES
    + """
local old = redis.call('HGET', KEYS[3], ARGV[1])
if old then redis.call('HDEL', KEYS[2], old) end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[2], ARGV[3], ARGV[1])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[3])
redis.call('ZADD', KEYS[4], 'NX', redis.call('INCR', KEYS[5]), ARGV[1])
return 1
"""
)

#: KEYS: admin_tokens admin_by_hash. ARGV: hash. Returns the record, or false.
FIND_ADMIN_TOKEN = (
    _READS
    + """
local id = redis.call('HGET', KEYS[2], ARGV[1])
if not id then return false end
return redis.call('HGET', KEYS[1], id)
"""
)

#: KEYS: admin_tokens admin_order. Returns every record, oldest first.
LIST_ADMIN_TOKENS = (
    _READS
    + _HMGET
    + """
return hmget(KEYS[1], redis.call('ZRANGE', KEYS[2], 0, -1))
"""
)

#: KEYS: admin_tokens admin_by_hash admin_hash_of admin_order. ARGV: id.
#: Returns 0 for an unknown token, 1 once removed.
REVOKE_ADMIN_TOKEN = (
    _WRITES
    + """
local hash = redis.call('HGET', KEYS[3], ARGV[1])
if not hash then return 0 end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], hash)
redis.call('HDEL', KEYS[3], ARGV[1])
redis.call('ZREM', KEYS[4], ARGV[1])
return 1
"""
)

#: KEYS: info actors order log replies reply_seqs tokens token_by_hash token_hash_of
#: token_order tables counter undos. ARGV: id, info, meta, epoch, seq, wanted, created,
#: then the counts of actors, events, replies, tokens, the indexes among the events of
#: the undos and redos (by commas), then actors (id, bytes) in order, events (seq,
#: bytes), replies (key, flag byte + bytes, seq), tokens (id, bytes, hash) in order. A
#: whole table moved from another store (:mod:`rollbridge.stores.migrate`), its undos
#: and redos in the undos set (a set left under its id, by a delete of a version that
#: kept none, dropped), which then holds every one of the log. Returns 0 if the table
#: exists (nothing written), 1 once written.
IMPORT_TABLE = (
    _WRITES
    + """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local na, ne, nr, nt = tonumber(ARGV[8]), tonumber(ARGV[9]), tonumber(ARGV[10]),
  tonumber(ARGV[11])
local at = 13
local e0 = at + 2 * na
local from = tonumber(ARGV[5]) + 1
if ne > 0 then from = tonumber(ARGV[e0]) end
redis.call('HSET', KEYS[1], 'info', ARGV[2], 'meta', ARGV[3], 'epoch', ARGV[4],
  'seq', ARGV[5], 'wanted', ARGV[6], 'created', ARGV[7], 'pos', na, 'tokpos', nt,
  'undos', from, 'undos_to', ARGV[5])
for k = 1, na do
  redis.call('HSET', KEYS[2], ARGV[at], ARGV[at + 1])
  redis.call('ZADD', KEYS[3], k, ARGV[at])
  at = at + 2
end
for k = 1, ne do
  redis.call('ZADD', KEYS[4], ARGV[at], ARGV[at + 1])
  at = at + 2
end
redis.call('DEL', KEYS[13])
for k in string.gmatch(ARGV[12], '%d+') do
  k = tonumber(k)
  redis.call('ZADD', KEYS[13], ARGV[e0 + 2 * k], ARGV[e0 + 2 * k + 1])
end
for k = 1, nr do
  redis.call('HSET', KEYS[5], ARGV[at], ARGV[at + 1])
  redis.call('ZADD', KEYS[6], ARGV[at + 2], ARGV[at])
  at = at + 3
end
for k = 1, nt do
  redis.call('HSET', KEYS[7], ARGV[at], ARGV[at + 1])
  redis.call('HSET', KEYS[8], ARGV[at + 2], ARGV[at])
  redis.call('HSET', KEYS[9], ARGV[at], ARGV[at + 2])
  redis.call('ZADD', KEYS[10], k, ARGV[at])
  at = at + 3
end
redis.call('ZADD', KEYS[11], redis.call('INCR', KEYS[12]), ARGV[1])
return 1
"""
)
