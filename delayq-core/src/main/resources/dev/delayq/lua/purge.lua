-- purge: delete done and dead jobs older than their retention, and dedupe holds that have run out, a bounded
-- batch per call. A worker's pass (Maintenance) calls it with a lock time and its own name: the first call takes the
-- queue's purge lock, every further call of the pass renews it, and the call that finds nothing more releases it, so
-- one worker purges a queue at a time, as long as the pass takes (whatever the backlog), and a worker that dies in a
-- pass holds it at most one lock time. A pass also records the retention it purges by (meta fields keep_done and
-- keep_dead, ms; -1 keeps all), from which stats counts the jobs kept past it.
-- KEYS[1] done zset   KEYS[2] dead zset   KEYS[3] jobs hash   KEYS[4] lock key   KEYS[5] dedupe hash
-- KEYS[6] dedupe holds zset   KEYS[7] done batches zset   KEYS[8] meta hash   KEYS[9] errors hash   KEYS[10] results hash
-- ARGV[1] done max age ms (-1: keep all)   ARGV[2] dead max age ms (-1: keep all)
-- ARGV[3] most jobs to delete in this call   ARGV[4] lock ms (0: no lock, nothing recorded)   ARGV[5] lock owner
-- Returns { done_deleted, dead_deleted, more (1 when a limit was hit), lock_ttl_ms, holds_released }
--   lock_ttl_ms is > 0 (and nothing was deleted) when another caller holds the lock;
--   { -6, what } malformed arguments (nothing written).
-- @include record
-- @include results
redis.replicate_commands()
local k_done, k_dead, k_jobs, k_lock, k_dedupe, k_holds = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local k_batches, k_meta = KEYS[7], KEYS[8]
local done_age, dead_age = whole(ARGV[1], -1, 2 ^ 50), whole(ARGV[2], -1, 2 ^ 50)
local limit, lock_ms = whole(ARGV[3], 1, 100000), whole(ARGV[4], 0, 2 ^ 40)
if not (done_age and dead_age and limit and lock_ms) then return { -6, 'malformed purge arguments' } end
if lock_ms > 0 then
  if not redis.call('SET', k_lock, ARGV[5], 'NX', 'PX', int(lock_ms)) then
    if redis.call('GET', k_lock) ~= ARGV[5] then
      return { 0, 0, 0, math.max(redis.call('PTTL', k_lock), 1), 0 }
    end
    redis.call('PEXPIRE', k_lock, int(lock_ms)) -- a further call of our own pass: renewed
  end
  redis.call('HSET', k_meta, 'keep_done', int(done_age), 'keep_dead', int(dead_age))
end
local now = now_ms()
-- Freeing large records is synchronous work for Redis: a call frees at most this many record bytes.
local budget = 64 * 1024 * 1024
-- Error histories go with their records; a queue none of whose jobs ever failed has no errors hash and pays one EXISTS.
local histories = redis.call('EXISTS', KEYS[9]) == 1
-- Results and parent lists too (results.lua): a queue whose handlers leave none and that has no flows pays one EXISTS.
local kept = redis.call('EXISTS', KEYS[10]) == 1
local function sweep(k_index, max_age)
  if max_age < 0 or limit <= 0 or budget <= 0 then return 0 end
  local ids = redis.call('ZRANGEBYSCORE', k_index, '-inf', int(now - max_age), 'LIMIT', 0, limit)
  for i = 1, #ids do
    budget = budget - redis.call('HSTRLEN', k_jobs, ids[i])
    if budget <= 0 then
      for j = #ids, i + 1, -1 do ids[j] = nil end
      limit = 0 -- report "more": the next call goes on
      break
    end
  end
  if #ids > 0 then
    redis.call('HDEL', k_jobs, unpack(ids))
    drop_overlays(k_jobs, ids)
    if histories then redis.call('HDEL', KEYS[9], unpack(ids)) end
    if kept then results_drop(KEYS[10], ids) end
    redis.call('ZREM', k_index, unpack(ids))
    if limit > 0 then limit = limit - #ids end
  end
  return #ids
end
-- The done batch entries that old (record.lua), entry by entry: an entry's ids go while the limit and the byte budget
-- allow, the entry with them (or, cut short, rewritten with the ids left). Only an id whose record is done with the
-- entry's finish time is that job and deleted; any other (a record deleted when it could not be decoded, the id then
-- enqueued again) only leaves the entry.
local function sweep_batches(max_age)
  if max_age < 0 or limit <= 0 or budget <= 0 then return 0 end
  local entries = redis.call('ZRANGEBYSCORE', k_batches, '-inf', int(now - max_age), 'WITHSCORES', 'LIMIT', 0, limit)
  local deleted, dropped = 0, 0
  for e = 1, #entries, 2 do
    if limit <= 0 or budget <= 0 then break end
    local m, score = entries[e], entries[e + 1]
    local at = tonumber(score)
    local ids = batch_ids(m)
    local take = 0
    while take < #ids and take < limit and budget > 0 do
      take = take + 1
      budget = budget - redis.call('HSTRLEN', k_jobs, ids[take])
    end
    if take < #ids then limit = 0 end -- report "more": the next call goes on
    -- Each job as the readers see it: a job leased under a lease overlay is done by its overlay (record.lua), which
    -- alone says so when the record under it cannot be decoded.
    local raws = records_of(k_jobs, { unpack(ids, 1, take) })
    local gone = {}
    for i = 1, take do
      local raw = raws[i]
      if raw and (finish_in(raw) == at or finish_in(redis.call('HGET', k_jobs, OVERLAY .. ids[i])) == at) then
        gone[#gone + 1] = ids[i]
      end
    end
    if #gone > 0 then
      redis.call('HDEL', k_jobs, unpack(gone))
      drop_overlays(k_jobs, gone)
      if histories then redis.call('HDEL', KEYS[9], unpack(gone)) end
      if kept then results_drop(KEYS[10], gone) end
    end
    redis.call('ZREM', k_batches, m)
    if take < #ids then
      redis.call('ZADD', k_batches, score, string.match(m, '^[^%z]*') .. '\0' .. table.concat(ids, '\0', take + 1))
    end
    deleted, dropped = deleted + #gone, dropped + take
    if limit > 0 then limit = limit - take end
  end
  if dropped > 0 then redis.call('HINCRBY', k_meta, 'done_batched', int(-dropped)) end
  return deleted
end
local done = sweep(k_done, done_age)
done = done + sweep_batches(done_age)
local dead = sweep(k_dead, dead_age)
local released = 0
if limit > 0 then
  local keys = redis.call('ZRANGEBYSCORE', k_holds, '-inf', int(now), 'LIMIT', 0, limit)
  if #keys > 0 then
    redis.call('HDEL', k_dedupe, unpack(keys))
    redis.call('ZREM', k_holds, unpack(keys))
    released = #keys
    limit = limit - #keys
  end
end
local more = limit <= 0
if lock_ms > 0 and not more then redis.call('DEL', k_lock) end -- the pass is over
return { done, dead, more and 1 or 0, 0, released }
