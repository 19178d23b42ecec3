-- history: the queue's per-minute or per-hour counters for the last minutes or hours (see jobs.lua, "History").
-- KEYS[1] history hash
-- ARGV[1] count: how many minutes (1 to {{HISTORY_MINUTES}}) or hours (1 to {{HISTORY_HOURS}}), ending with the current one
-- ARGV[2] hourly: 1 for hours, 0 for minutes
-- Returns { now, minute_1, enqueued_1, completed_1, retried_1, dead_1, lag_0_1, ... } oldest first, each minute (or
--   hour, named by its first minute) with its 21 lag buckets lag_0 to lag_20; one without a record has zeros.
-- @include record
local count = whole(ARGV[1], 1, {{HISTORY_MINUTES}})
if not count then return { -6, 'malformed count' } end
local hourly = whole(ARGV[2], 0, 1)
if not hourly then return { -6, 'malformed hourly' } end
if hourly == 1 and count > {{HISTORY_HOURS}} then return { -6, 'malformed count' } end
local now = now_ms()
local span, slots, prefix = 60000, {{HISTORY_MINUTES}}, ''
if hourly == 1 then span, slots, prefix = 3600000, {{HISTORY_HOURS}}, 'h' end
local current = math.floor(now / span)
local out = { now }
for m = current - count + 1, current do
  local slot = prefix .. int(m % slots)
  local fields = { slot .. ':m', slot .. ':e', slot .. ':c', slot .. ':r', slot .. ':d' }
  for b = 0, 20 do fields[#fields + 1] = slot .. ':l' .. b end
  local v = redis.call('HMGET', KEYS[1], unpack(fields))
  local mine = v[1] == int(m)
  out[#out + 1] = m * span / 60000
  for i = 2, #v do out[#out + 1] = mine and tonumber(v[i] or 0) or 0 end
end
return out
