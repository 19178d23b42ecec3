-- stats_many: the stats of many queue partitions and the live worker counts of their queues in one call (the
-- dashboard's overview, /api/queues and /metrics), each partition read as stats.lua reads it (includes/stats.lua),
-- atomically.
-- KEYS[1..] per entry, by its kind: stats: 8 keys, a partition's in stats.lua's order (due zset, leases zset, done
--   zset, dead zset, meta hash, priority due zset, done batches zset, retrying zset); stats+workers: those 8 and the
--   queue's workers zset (a queue without partitions: all in one slot); workers: the queue's workers zset alone (a
--   partitioned queue's registry, of its plain key set). At most {{MAX_STATS_MANY}} entries per call; on a Redis
--   Cluster all of one call's keys hash to one slot
-- ARGV[1..] per entry: kind (stats | stats+workers | workers)
-- Returns { entries, ok_1, count_1, ... }: per entry ok (1: its count values follow: for stats stats.lua's reply, for
--   stats+workers the live workers then stats.lua's reply, for workers the live workers; 0: a key is of a type delayq
--   does not write, count 1, the message follows). Live workers: the workers zset's entries whose expiry (Redis's
--   clock) is still to come, as workers.lua lists them. The types are checked before any other read, so one such
--   entry does not fail the call: the others are answered.
-- @include record
-- @include notify
-- @include flow
-- @include groups
-- @include stats
local STATS = { 'zset', 'zset', 'zset', 'zset', 'hash', 'zset', 'zset', 'zset' }
local WIDTH = { ['stats'] = 8, ['stats+workers'] = 9, ['workers'] = 1 }
local n = #ARGV
local need = 0
for e = 1, n do
  local w = WIDTH[ARGV[e]]
  if w == nil then
    return { -6, 'malformed stats_many arguments: an entry kind is stats, stats+workers or workers' }
  end
  need = need + w
end
if n > {{MAX_STATS_MANY}} or need ~= #KEYS then
  return { -6, 'malformed stats_many keys: 8, 9 or 1 per entry by its kind, at most {{MAX_STATS_MANY}} entries' }
end
local out = { n }
local k = 0
for e = 1, n do
  local kind = ARGV[e]
  local w = WIDTH[kind]
  local bad = nil
  for i = 1, w do
    local key = KEYS[k + i]
    local wanted = (kind == 'workers' or i == 9) and 'zset' or STATS[i]
    local t = redis.call('TYPE', key)['ok']
    if t ~= 'none' and t ~= wanted then
      bad = 'WRONGTYPE the key ' .. key .. ' is a ' .. t .. ', delayq keeps a ' .. wanted .. ' there'
      break
    end
  end
  if bad then
    out[#out + 1] = 0
    out[#out + 1] = 1
    out[#out + 1] = bad
  else
    local vals = {}
    if kind ~= 'stats' then
      local wk = KEYS[k + w]
      vals[1] = redis.call('ZCOUNT', wk, '(' .. int(now_ms()), '+inf')
    end
    if kind ~= 'workers' then
      local s = queue_stats(KEYS[k + 1], KEYS[k + 2], KEYS[k + 3], KEYS[k + 4], KEYS[k + 5], KEYS[k + 6], KEYS[k + 7],
        KEYS[k + 8])
      for i = 1, #s do vals[#vals + 1] = s[i] end
    end
    out[#out + 1] = 1
    out[#out + 1] = #vals
    for i = 1, #vals do out[#out + 1] = vals[i] end
  end
  k = k + w
end
return out
