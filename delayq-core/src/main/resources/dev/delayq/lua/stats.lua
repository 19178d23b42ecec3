-- stats: counts per state, the queue's running totals and switches, read atomically.
-- KEYS[1] due zset   KEYS[2] leases zset   KEYS[3] done zset   KEYS[4] dead zset   KEYS[5] meta hash
-- KEYS[6] priority due zset
-- Returns { scheduled, processing, done, dead, now ms, head due ms (-1: nothing scheduled), meta field, value, ... }
-- (done: the done set's entries and the ids the done batch entries hold, meta's done_batched: see record.lua)
-- (meta holds the totals and the switches: paused, rate_n, rate_ms, concurrency, events)
-- @include record
-- @include notify
-- @include flow
local out = {
  redis.call('ZCARD', KEYS[1]) + redis.call('ZCARD', KEYS[6]), redis.call('ZCARD', KEYS[2]),
  redis.call('ZCARD', KEYS[3]), redis.call('ZCARD', KEYS[4]),
  now_ms(), earliest_due(KEYS[1], KEYS[6], flow_config(KEYS[5]).prios) or -1,
}
local meta = redis.call('HGETALL', KEYS[5])
for i = 1, #meta, 2 do
  out[#out + 1] = meta[i]
  out[#out + 1] = meta[i + 1]
  if meta[i] == 'done_batched' then out[3] = out[3] + (tonumber(meta[i + 1]) or 0) end
end
return out
