-- history: the queue's per-minute counters for the last minutes (see jobs.lua, "History").
-- KEYS[1] history hash
-- ARGV[1] how many minutes, ending with the current one (1 to 1440)
-- Returns { now ms, minute_1, enqueued, completed, retried, dead, lag_0, ..., lag_20, minute_2, ... } oldest first;
--   a minute without a record has zeros.
-- @include record
local minutes = whole(ARGV[1], 1, 1440)
if not minutes then return { -6, 'malformed minutes' } end
local now = now_ms()
local current = math.floor(now / 60000)
local out = { now }
for m = current - minutes + 1, current do
  local slot = m % 1440
  local fields = { slot .. ':m', slot .. ':e', slot .. ':c', slot .. ':r', slot .. ':d' }
  for b = 0, 20 do fields[#fields + 1] = slot .. ':l' .. b end
  local v = redis.call('HMGET', KEYS[1], unpack(fields))
  local mine = v[1] == int(m)
  out[#out + 1] = m
  for i = 2, #v do out[#out + 1] = mine and tonumber(v[i] or 0) or 0 end
end
return out
