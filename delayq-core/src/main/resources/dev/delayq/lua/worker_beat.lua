-- worker_beat: record one worker's heartbeat in its queue's worker registry, and drop the workers whose heartbeat
-- expired (they stopped without saying goodbye: killed, frozen, cut off). Run every beat interval by each worker.
-- KEYS[1] workers zset (member = worker id, score = expiry ms by Redis's clock)
-- KEYS[2] workers info hash (worker id -> beat ms .. "\n" .. the worker's info)
-- ARGV[1] worker id   ARGV[2] ttl ms: time to live (a whole number > 0)   ARGV[3] info: the worker's (lines: ops.Workers)
-- Returns { code (1), now (ms) }, or { -6, message } for malformed arguments (nothing written).
local ttl = tonumber(ARGV[2])
if ARGV[1] == nil or ARGV[1] == '' or ttl == nil or ttl <= 0 or ttl ~= math.floor(ttl) or ARGV[3] == nil then
  return { -6, 'malformed worker_beat arguments' }
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
-- A bounded step per beat: a fleet that died at once is cleared over a few beats, never in one long call.
local expired = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, 100)
if #expired > 0 then
  redis.call('ZREM', KEYS[1], unpack(expired))
  redis.call('HDEL', KEYS[2], unpack(expired))
end
redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], string.format('%d', now) .. '\n' .. ARGV[3])
-- Both keys live as long as the latest expiry of any worker, so they vanish when the last worker is gone.
for i = 1, 2 do
  if redis.call('PTTL', KEYS[i]) < ttl then
    redis.call('PEXPIRE', KEYS[i], ttl)
  end
end
return { 1, now }
