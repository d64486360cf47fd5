"""The Lua scripts of the event store: an append (with its head check and idempotency record), a read (of the
stream, or of a compacted game's packed record), a compaction and a snapshot's save.  Each touches one game's keys
only (one slot); the keys are listed in :mod:`service.storage.events`."""

from __future__ import annotations

#: The head check of an append: event ``current``, in the stream or, once compacted, the packed record's head.
_HEAD_CHECK = """
if ARGV[2] ~= '' and current > 0 then
  local last = redis.call('XRANGE', KEYS[2], current .. '-0', current .. '-0')
  local head = nil
  if #last > 0 then
    head = last[1][2][2]
  else
    local top = redis.call('GETRANGE', KEYS[4], 0, 63)
    local upto, size, header = string.match(top, '^z1 (%d+) (%d+)\\n()')
    if upto and tonumber(upto) == current then
      head = redis.call('GETRANGE', KEYS[4], header - 1, header + tonumber(size) - 2)
    end
  end
  if head ~= ARGV[2] then return {'diverged', tostring(current)} end
end
"""

APPEND_SCRIPT = (
    """
-- KEYS: 1 version, 2 events, 3 idempotency records (a hash), 4 the packed record (a compacted game)
-- ARGV: 1 expected version, 2 expected head ('' unchecked), 3 the record's field ('' for none), 4 the record,
--       5 the records' ttl (s), 6.. payloads
if ARGV[3] ~= '' then
  local seen = redis.call('HGET', KEYS[3], ARGV[3])
  if seen then return {'replay', seen} end
end
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if current ~= tonumber(ARGV[1]) then return {'conflict', tostring(current)} end
"""
    + _HEAD_CHECK
    + """
local n = current
for i = 6, #ARGV do
  n = n + 1
  redis.call('XADD', KEYS[2], n .. '-0', 'e', ARGV[i])
end
redis.call('SET', KEYS[1], n)
if ARGV[3] ~= '' then
  redis.call('HSET', KEYS[3], ARGV[3], ARGV[4])
  redis.call('EXPIRE', KEYS[3], tonumber(ARGV[5]))
end
return {'ok', tostring(n)}
"""
)

READ_SCRIPT = """
-- KEYS: 1 events, 2 the packed record; ARGV: 1 the first number wanted, 2 how many at most ('' for all)
-- Answers {entries} or, when the packed record holds the first wanted, {entries, packed record}; or when that is
-- the record's last event (a reader checking its cached fold's head), {entries, '', that event's payload}.
local first = tonumber(ARGV[1])
local entries
if ARGV[2] ~= '' then
  entries = redis.call('XRANGE', KEYS[1], first .. '-0', '+', 'COUNT', tonumber(ARGV[2]))
else
  entries = redis.call('XRANGE', KEYS[1], first .. '-0', '+')
end
if #entries > 0 and tonumber(string.match(entries[1][1], '^(%d+)')) == first then return {entries} end
local upto, size, header = string.match(redis.call('GETRANGE', KEYS[2], 0, 63), '^z1 (%d+) (%d+)\\n()')
if not upto or tonumber(upto) < first then return {entries} end
if tonumber(upto) == first then
  return {entries, '', redis.call('GETRANGE', KEYS[2], header - 1, header + tonumber(size) - 2)}
end
return {entries, redis.call('GET', KEYS[2])}
"""

COMPACT_SCRIPT = (
    """
-- KEYS: 1 version, 2 events, 3 (unused), 4 the packed record; ARGV: 1 the version packed, 2 its head, 3 the record
-- Replaces the stream by the record if the stream is still at that version with that head.
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if current ~= tonumber(ARGV[1]) then return {'conflict', tostring(current)} end
"""
    + _HEAD_CHECK
    + """
redis.call('SET', KEYS[4], ARGV[3])
redis.call('DEL', KEYS[2])
return {'ok', tostring(current)}
"""
)

SNAPSHOT_SCRIPT = """
-- Keep a snapshot only if it is newer than the one stored; ARGV[3]: its ttl (s), 0 for none.
local stored = redis.call('HGET', KEYS[1], 'version')
if stored and tonumber(stored) >= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'version', ARGV[1], 'data', ARGV[2])
if tonumber(ARGV[3]) > 0 then redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3])) end
return 1
"""
