-- purge: delete done and dead jobs older than their retention, a bounded batch per call.
-- With a lock time, only one caller per queue proceeds until the lock expires (workers run this
-- periodically; the lock keeps a fleet from doing the same work at once).
-- KEYS[1] done zset   KEYS[2] dead zset   KEYS[3] jobs hash   KEYS[4] lock key
-- ARGV[1] done max age ms (-1: keep all)   ARGV[2] dead max age ms (-1: keep all)
-- ARGV[3] most jobs to delete in this call   ARGV[4] lock ms (0: no lock)   ARGV[5] lock owner
-- Returns { done_deleted, dead_deleted, more (1 when a limit was hit), lock_ttl_ms }
--   lock_ttl_ms is > 0 (and nothing was deleted) when another caller holds the lock.
-- @include record
redis.replicate_commands()
local k_done, k_dead, k_jobs, k_lock = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local limit = tonumber(ARGV[3])
if tonumber(ARGV[4]) > 0 then
  if not redis.call('SET', k_lock, ARGV[5], 'NX', 'PX', ARGV[4]) then
    return { 0, 0, 0, math.max(redis.call('PTTL', k_lock), 1) }
  end
end
local now = now_ms()
local function sweep(k_index, max_age)
  if max_age < 0 or limit <= 0 then return 0 end
  local ids = redis.call('ZRANGEBYSCORE', k_index, '-inf', int(now - max_age), 'LIMIT', 0, limit)
  if #ids > 0 then
    redis.call('HDEL', k_jobs, unpack(ids))
    redis.call('ZREM', k_index, unpack(ids))
    limit = limit - #ids
  end
  return #ids
end
local done = sweep(k_done, tonumber(ARGV[1]))
local dead = sweep(k_dead, tonumber(ARGV[2]))
return { done, dead, limit <= 0 and 1 or 0, 0 }
