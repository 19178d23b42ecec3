-- stats: counts per state and the queue's running totals, read atomically.
-- KEYS[1] due zset   KEYS[2] leases zset   KEYS[3] done zset   KEYS[4] dead zset   KEYS[5] meta hash
-- Returns { scheduled, processing, done, dead, meta field, value, ... }
local out = {
  redis.call('ZCARD', KEYS[1]), redis.call('ZCARD', KEYS[2]),
  redis.call('ZCARD', KEYS[3]), redis.call('ZCARD', KEYS[4]),
}
local meta = redis.call('HGETALL', KEYS[5])
for i = 1, #meta do out[#out + 1] = meta[i] end
return out
