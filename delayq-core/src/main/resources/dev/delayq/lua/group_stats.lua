-- group_stats: the groups of one queue partition with the most scheduled jobs (groups.lua), with their running leases
-- and the limits that apply to them, read in one atomic step.
-- KEYS[1] due zset   KEYS[2] meta hash
-- ARGV[1] top: how many groups to return (the largest backlogs first)
-- ARGV[2] most groups to read (the groups past it are counted, not read)
-- Returns { groups, read, default_concurrency, default_rate_n, default_rate_ms, group_1, scheduled_1, running_1,
--   concurrency_1, rate_n_1, rate_ms_1, weight_1, ... }: groups with scheduled jobs or running leases (counted), read
--   (how many of them were ranked), the limits of every group (0: none) and the top groups by scheduled jobs (ties by
--   name), each with the limits that apply to it (its own or the default; 0: none); { -6, what } malformed arguments.
-- @include record
local top, most = whole(ARGV[1], 1, 10000), whole(ARGV[2], 1, 100000)
if not (top and most) then return { -6, 'malformed group_stats arguments' } end
local k_due, k_meta = KEYS[1], KEYS[2]
local names, seen = {}, {}
local function add(list)
  for i = 1, #list do
    local g = list[i]
    if g ~= '' and not seen[g] then
      seen[g] = true
      names[#names + 1] = g
    end
  end
end
local ring, wait, running = k_due .. ':groups:ring', k_due .. ':groups', k_due .. ':groups:running'
local total = redis.call('ZCARD', ring) + redis.call('ZCARD', wait)
if redis.call('ZSCORE', ring, '') then total = total - 1 end
add(redis.call('ZRANGE', ring, '0', int(most - 1)))
if #names < most then add(redis.call('ZRANGE', wait, '0', int(most - 1 - #names))) end
local run_names = redis.call('HKEYS', running)
for i = 1, #run_names do
  if not redis.call('ZSCORE', ring, run_names[i]) and not redis.call('ZSCORE', wait, run_names[i]) then total = total + 1 end
end
if #names < most then add(run_names) end
if #names > most then
  for i = #names, most + 1, -1 do names[i] = nil end
end
local d = redis.call('HMGET', k_meta, 'group_conc', 'group_rate_n', 'group_rate_ms')
local dc, drn, drms = tonumber(d[1]) or 0, tonumber(d[2]) or 0, tonumber(d[3]) or 0
local rows = {}
for i = 1, #names do
  local g = names[i]
  rows[i] = { g, redis.call('ZCARD', k_due .. ':g:' .. g) }
end
table.sort(rows, function(a, b) if a[2] ~= b[2] then return a[2] > b[2] end return a[1] < b[1] end)
local out = { total, #names, dc, drn, drms }
local n = math.min(top, #rows)
if n == 0 then return out end
local pick = {}
for i = 1, n do pick[i] = rows[i][1] end
local runs = redis.call('HMGET', running, unpack(pick))
local ovs = redis.call('HMGET', k_due .. ':groups:limits', unpack(pick))
for i = 1, n do
  local c, rn, rms, w = dc, drn, drms, 1
  local oc, orn, orms, ow = string.match(ovs[i] or '', '^(%S+) (%S+) (%S+) (%S+)$')
  if oc and oc ~= '-' then c = tonumber(oc) end
  if orn and orn ~= '-' then rn, rms = tonumber(orn), tonumber(orms) end
  if ow and ow ~= '-' then w = tonumber(ow) end
  local o = #out
  out[o + 1], out[o + 2], out[o + 3] = pick[i], rows[i][2], tonumber(runs[i]) or 0
  out[o + 4], out[o + 5], out[o + 6], out[o + 7] = c, rn, rms, w
end
return out
