-- schedule_read: the queue's schedules (or one) with Redis's clock, read atomically.
-- KEYS[1] schedules hash   KEYS[2] paused schedules hash
-- ARGV[1] name of a schedule, or "" for all of them
-- Returns { now, name_1, record_1, paused_1, ... }: now in ms, then each schedule (none when the one asked for does not
--   exist) with when it was paused (Redis ms; 0: it is not paused).
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local out = { now }
if ARGV[1] ~= '' then
  local r = redis.call('HGET', KEYS[1], ARGV[1])
  if r then
    out[2] = ARGV[1]
    out[3] = r
    out[4] = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0') or 0
  end
  return out
end
local paused = {}
local p = redis.call('HGETALL', KEYS[2])
for i = 1, #p, 2 do paused[p[i]] = tonumber(p[i + 1]) or 0 end
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  out[#out + 1] = all[i]
  out[#out + 1] = all[i + 1]
  out[#out + 1] = paused[all[i]] or 0
end
return out
