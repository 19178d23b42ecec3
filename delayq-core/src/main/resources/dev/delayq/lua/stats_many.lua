-- stats_many: the stats of many queue partitions in one call (the dashboard's overview and /metrics), each read as
-- stats.lua reads it (includes/stats.lua), atomically.
-- KEYS[1..] per partition, 8 keys each, in stats.lua's order: due zset, leases zset, done zset, dead zset, meta hash,
--   priority due zset, done batches zset, retrying zset (at most {{MAX_STATS_MANY}} partitions per call; on a Redis
--   Cluster all of one call's keys hash to one slot)
-- Returns { partitions, ok_1, count_1, ... }: per partition ok (1: its count values follow, stats.lua's reply; 0: a
--   key is of a type delayq does not write, count 1, the message follows). The types are checked before any other
--   read, so one such partition does not fail the call: the others are answered.
-- @include record
-- @include notify
-- @include flow
-- @include groups
-- @include stats
local WANTED = { 'zset', 'zset', 'zset', 'zset', 'hash', 'zset', 'zset', 'zset' }
local n = #KEYS / 8
if n ~= math.floor(n) or n > {{MAX_STATS_MANY}} then
  return { -6, 'malformed stats_many keys: 8 per partition, at most {{MAX_STATS_MANY}} partitions' }
end
local out = { n }
for p = 0, n - 1 do
  local bad = nil
  for i = 1, 8 do
    local k = KEYS[p * 8 + i]
    local t = redis.call('TYPE', k)['ok']
    if t ~= 'none' and t ~= WANTED[i] then
      bad = 'WRONGTYPE the key ' .. k .. ' is a ' .. t .. ', delayq keeps a ' .. WANTED[i] .. ' there'
      break
    end
  end
  if bad then
    out[#out + 1] = 0
    out[#out + 1] = 1
    out[#out + 1] = bad
  else
    local s = queue_stats(KEYS[p * 8 + 1], KEYS[p * 8 + 2], KEYS[p * 8 + 3], KEYS[p * 8 + 4], KEYS[p * 8 + 5],
      KEYS[p * 8 + 6], KEYS[p * 8 + 7], KEYS[p * 8 + 8])
    out[#out + 1] = 1
    out[#out + 1] = #s
    for i = 1, #s do out[#out + 1] = s[i] end
  end
end
return out
