-- stats: counts per state, the queue's running totals and switches, read atomically.
-- KEYS[1] due zset   KEYS[2] leases zset   KEYS[3] done zset   KEYS[4] dead zset   KEYS[5] meta hash
-- Returns { scheduled, processing, done, dead, now ms, head due ms (-1: nothing scheduled), meta field, value, ... }
-- @include record
local h = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local out = {
  redis.call('ZCARD', KEYS[1]), redis.call('ZCARD', KEYS[2]),
  redis.call('ZCARD', KEYS[3]), redis.call('ZCARD', KEYS[4]),
  now_ms(), h[2] and tonumber(h[2]) or -1,
}
local meta = redis.call('HGETALL', KEYS[5])
for i = 1, #meta do out[#out + 1] = meta[i] end
return out
