-- history: the queue's per-minute counters for the last minutes (see jobs.lua, "History").
-- KEYS[1] history hash
-- ARGV[1] minutes: how many, ending with the current one (1 to {{HISTORY_MINUTES}})
-- Returns { now, minute_1, enqueued_1, completed_1, retried_1, dead_1, lag_0_1, ... } oldest first, each minute with
--   its 21 lag buckets lag_0 to lag_20; a minute without a record has zeros.
-- @include record
local minutes = whole(ARGV[1], 1, {{HISTORY_MINUTES}})
if not minutes then return { -6, 'malformed minutes' } end
local now = now_ms()
local current = math.floor(now / 60000)
local out = { now }
for m = current - minutes + 1, current do
  local slot = m % {{HISTORY_MINUTES}}
  local fields = { slot .. ':m', slot .. ':e', slot .. ':c', slot .. ':r', slot .. ':d' }
  for b = 0, 20 do fields[#fields + 1] = slot .. ':l' .. b end
  local v = redis.call('HMGET', KEYS[1], unpack(fields))
  local mine = v[1] == int(m)
  out[#out + 1] = m
  for i = 2, #v do out[#out + 1] = mine and tonumber(v[i] or 0) or 0 end
end
return out
