-- schedule_read: the queue's schedules (or one) with Redis's clock, read atomically.
-- KEYS[1] schedules hash
-- ARGV[1] name of a schedule, or "" for all of them
-- Returns { now, name_1, record_1, ... }: now in ms, then each schedule (none when the one asked for does not exist).
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local out = { now }
if ARGV[1] ~= '' then
  local r = redis.call('HGET', KEYS[1], ARGV[1])
  if r then
    out[2] = ARGV[1]
    out[3] = r
  end
  return out
end
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all do out[i + 1] = all[i] end
return out
