-- stats: counts per state, the queue's running totals and switches, read atomically.
-- KEYS[1] due zset   KEYS[2] leases zset   KEYS[3] done zset   KEYS[4] dead zset   KEYS[5] meta hash
-- KEYS[6] priority due zset   KEYS[7] done batches zset   KEYS[8] retrying zset
-- Returns { scheduled, processing, done, dead, now_ms, head_due_ms, past_retention, ready, delayed, retrying,
--   meta_field_1, value_1, ... }
--   (head_due_ms -1: nothing scheduled)
-- (done: the done set's entries and the ids the done batch entries hold, meta's done_batched: see record.lua)
-- (past retention: done and dead jobs older than the retention the workers' last purge pass recorded, meta's keep_done
--  and keep_dead (purge.lua), -1 when none did; the done batch entries of which some are older and some not count
--  their share of done_batched: an entry holds the jobs of one completion call, so the share is close)
-- (ready, delayed, retrying: the scheduled jobs split by state, their sum is scheduled. ready: due now, counted in the
--  due set and in each band of the priority due set in use; retrying: failed, waiting for a retry still to come, the
--  retrying set's entries scored after now (fail.lua adds one per retry; one whose time has come is a ready job, or a
--  job since claimed: not counted); delayed: the rest, due later. A few ZCOUNTs, O(log n) each, whatever the queue's
--  size)
-- (meta holds the totals and the switches: paused, rate_n, rate_ms, concurrency, events)
-- @include record
-- @include notify
-- @include flow
local now = now_ms()
local prios = flow_config(KEYS[5]).prios
local out = {
  redis.call('ZCARD', KEYS[1]) + redis.call('ZCARD', KEYS[6]), redis.call('ZCARD', KEYS[2]),
  redis.call('ZCARD', KEYS[3]), redis.call('ZCARD', KEYS[4]),
  now, earliest_due(KEYS[1], KEYS[6], prios) or -1, -1, 0, 0, 0,
}
local cut = int(now)
local ready = redis.call('ZCOUNT', KEYS[1], '-inf', cut)
if prios > 0 then
  for p = 1, 9 do
    if has_prio(prios, p) then
      local low = (9 - p) * PRIO_BAND
      ready = ready + redis.call('ZCOUNT', KEYS[6], int(low), int(low + now))
    end
  end
end
local retrying = redis.call('ZCOUNT', KEYS[8], '(' .. cut, '+inf')
out[8], out[9], out[10] = ready, math.max(0, out[1] - ready - retrying), retrying
local meta = redis.call('HGETALL', KEYS[5])
local batched, keep_done, keep_dead = 0, nil, nil
for i = 1, #meta, 2 do
  out[#out + 1] = meta[i]
  out[#out + 1] = meta[i + 1]
  if meta[i] == 'done_batched' then batched = tonumber(meta[i + 1]) or 0 end
  if meta[i] == 'keep_done' then keep_done = tonumber(meta[i + 1]) end
  if meta[i] == 'keep_dead' then keep_dead = tonumber(meta[i + 1]) end
end
out[3] = out[3] + batched
if keep_done and keep_dead then
  local past = 0
  if keep_done >= 0 then
    local cut = int(now - keep_done)
    past = past + redis.call('ZCOUNT', KEYS[3], '-inf', cut)
    local entries = redis.call('ZCARD', KEYS[7])
    if entries > 0 then
      local old = redis.call('ZCOUNT', KEYS[7], '-inf', cut)
      past = past + (old == entries and batched or math.floor(batched * old / entries + 0.5))
    end
  end
  if keep_dead >= 0 then past = past + redis.call('ZCOUNT', KEYS[4], '-inf', int(now - keep_dead)) end
  out[7] = past
end
return out
