-- settings: the queue's flow settings kept in its meta hash (see flow.lua): the rate limit, the concurrency limit and
-- the event stream. Workers read them in every claim, so a change holds for every worker at once; a change wakes idle
-- workers (a looser limit may let them claim now).
-- KEYS[1] meta hash   KEYS[2] rate log zset   KEYS[3] events stream
-- ARGV[1] wake channel   ARGV[2..] per setting: what, value
--   what (the name of a setting: data, not a verb) is "rate" (value "<n>/<window ms>" or "" to clear),
--   "concurrency" ("<n>" or ""), "events" ("<cap>" or "" to turn the stream off and delete it), "group_concurrency"
--   ("<n>" or ""), "group_rate" ("<n>/<window ms>" or ""): the limits of every group (groups.lua), or "group:<group>"
--   ("<concurrency> <rate n> <rate window ms> <weight>", each "-" for the default or "=" to keep what the group has,
--   or "" to clear): one group's overrides and weight. A change of the group limits puts the groups a limit held back in their turn again.
-- Returns { code }: 1; { -6, what } malformed arguments (nothing written).
-- @include record
-- @include notify
-- @include flow
-- @include groups
local k_meta, k_rate, k_events = KEYS[1], KEYS[2], KEYS[3]
local k_due = string.sub(k_meta, 1, -5) .. 'due' -- the groups' keys are named after it (groups.lua)
local overrides, regroup = {}, false
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
  elseif what == 'group_concurrency' or what == 'group_rate' then
    regroup = true
    if value == '' then
      dels[#dels + 1] = what == 'group_rate' and 'group_rate_n' or 'group_conc'
      if what == 'group_rate' then dels[#dels + 1] = 'group_rate_ms' end
    elseif what == 'group_concurrency' then
      local c = whole(value, 1, 1000000000)
      if not c then return { -6, 'malformed group concurrency' } end
      sets[#sets + 1] = 'group_conc'
      sets[#sets + 1] = int(c)
    else
      local count, window = string.match(value, '^(%d+)/(%d+)$')
      count, window = whole(count, 1, 1000000000), whole(window, 1, 2 ^ 40)
      if not (count and window) then return { -6, 'malformed group rate' } end
      sets[#sets + 1] = 'group_rate_n'
      sets[#sets + 1] = int(count)
      sets[#sets + 1] = 'group_rate_ms'
      sets[#sets + 1] = int(window)
    end
  elseif string.sub(what, 1, 6) == 'group:' then
    local g = group_valid(string.sub(what, 7))
    if not g then return { -6, 'malformed group' } end
    if value ~= '' then
      local c, rn, rms, w = string.match(value, '^(%S+) (%S+) (%S+) (%S+)$')
      local function ok(v, lo, hi) return v == '-' or v == '=' or whole(v, lo, hi) end
      if not (c and ok(c, 1, 1000000000) and ok(rn, 1, 1000000000) and ok(rms, 1, 2 ^ 40) and ok(w, 1, 1000)
          and (rn == '-') == (rms == '-') and (rn == '=') == (rms == '=')) then
        return { -6, 'malformed group limits' }
      end
    end
    overrides[#overrides + 1] = g
    overrides[#overrides + 1] = value
    regroup = true
  else
    return { -6, 'unknown setting ' .. what }
  end
end
if #sets > 0 then redis.call('HSET', k_meta, unpack(sets)) end
if #dels > 0 then redis.call('HDEL', k_meta, unpack(dels)) end
if clear_rate then redis.call('DEL', k_rate) end
if drop_events then redis.call('DEL', k_events) end
if #overrides > 0 then
  local k_limits = k_due .. ':groups:limits'
  for i = 1, #overrides, 2 do
    local v = overrides[i + 1]
    if string.find(v, '=', 1, true) then -- keep the fields named '=' as the group has them
      local old = { string.match(redis.call('HGET', k_limits, overrides[i]) or '', '^(%S+) (%S+) (%S+) (%S+)$') }
      local new = { string.match(v, '^(%S+) (%S+) (%S+) (%S+)$') }
      for j = 1, 4 do
        if new[j] == '=' then new[j] = old[j] or '-' end
      end
      v = table.concat(new, ' ')
    end
    if v == '' or v == '- - - -' then
      redis.call('HDEL', k_limits, overrides[i])
    else
      redis.call('HSET', k_limits, overrides[i], v)
    end
  end
  if redis.call('EXISTS', k_limits) == 1 then
    redis.call('HSET', k_meta, 'group_limits', '1')
  else
    redis.call('HDEL', k_meta, 'group_limits')
  end
end
if regroup then
  -- The groups a limit held back (scored past now in `<due>:groups`) take their turn again: claim judges them anew.
  local now = now_ms()
  local held = redis.call('ZRANGEBYSCORE', k_due .. ':groups', '(' .. int(now), '+inf', 'LIMIT', '0', '1000')
  for i = 1, #held do group_sync(k_due, held[i], now) end
end
redis.call('PUBLISH', ARGV[1], '0')
return { 1 }
