-- settings: the queue's flow settings kept in its meta hash (see flow.lua): the rate limit, the concurrency limit and
-- the event stream. Workers read them in every claim, so a change holds for every worker at once; a change wakes idle
-- workers (a looser limit may let them claim now).
-- KEYS[1] meta hash   KEYS[2] rate log zset   KEYS[3] events stream
-- ARGV[1] wake channel   ARGV[2..] per setting: what, value
--   what (the name of a setting: data, not a verb) is "rate" (value "<n>/<window ms>" or "" to clear),
--   "concurrency" ("<n>" or ""), "events" ("<cap>" or "" to turn the stream off and delete it)
-- Returns { code }: 1; { -6, what } malformed arguments (nothing written).
-- @include record
local k_meta, k_rate, k_events = KEYS[1], KEYS[2], KEYS[3]
local n = (#ARGV - 1) / 2
if n < 1 or n ~= math.floor(n) then return { -6, 'malformed settings arguments' } end
local sets, dels, clear_rate, drop_events = {}, {}, false, false
for i = 1, n do
  local what, value = ARGV[2 * i], ARGV[2 * i + 1]
  if what == 'rate' then
    if value == '' then
      dels[#dels + 1] = 'rate_n'
      dels[#dels + 1] = 'rate_ms'
      dels[#dels + 1] = 'rate_used' -- the count of the rate log's grants (claim.lua), deleted with the log
      clear_rate = true
    else
      local count, window = string.match(value, '^(%d+)/(%d+)$')
      count, window = whole(count, 1, 1000000000), whole(window, 1, 2 ^ 40)
      if not (count and window) then return { -6, 'malformed rate' } end
      sets[#sets + 1] = 'rate_n'
      sets[#sets + 1] = int(count)
      sets[#sets + 1] = 'rate_ms'
      sets[#sets + 1] = int(window)
    end
  elseif what == 'concurrency' then
    if value == '' then
      dels[#dels + 1] = 'concurrency'
    else
      local c = whole(value, 1, 1000000000)
      if not c then return { -6, 'malformed concurrency' } end
      sets[#sets + 1] = 'concurrency'
      sets[#sets + 1] = int(c)
    end
  elseif what == 'events' then
    if value == '' then
      dels[#dels + 1] = 'events'
      drop_events = true
    else
      local cap = whole(value, 1, 100000000)
      if not cap then return { -6, 'malformed events cap' } end
      sets[#sets + 1] = 'events'
      sets[#sets + 1] = int(cap)
    end
  else
    return { -6, 'unknown setting ' .. what }
  end
end
if #sets > 0 then redis.call('HSET', k_meta, unpack(sets)) end
if #dels > 0 then redis.call('HDEL', k_meta, unpack(dels)) end
if clear_rate then redis.call('DEL', k_rate) end
if drop_events then redis.call('DEL', k_events) end
redis.call('PUBLISH', ARGV[1], '0')
return { 1 }
