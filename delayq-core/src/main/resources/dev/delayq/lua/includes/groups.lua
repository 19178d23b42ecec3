-- groups: fair turns between the groups of a queue (docs/groups.md). Uses record, notify (int) and flow (PRIO_BAND,
-- has_prio, earliest_due): a script lists those includes before this one.
--
-- A job enqueued with a group key (record extension field 512, r.group) waits in two sorted sets: its entry in the
-- priority due set in band 19 - p (flow.lua's due_entry: what get, list, stats, check, cancel and delete read, as for
-- any scheduled job), and its entry in its group's lane, `<due>:g:<group>`, score (9 - p) * 2^48 + due ms, the same
-- member (what claim reads: by priority, then due time, then enqueue order). Every group with scheduled jobs is in one
-- of two sets: the ring `<due>:groups:ring` (groups with a due job, in turn order: score = the turn number, member =
-- the group), or `<due>:groups` (the others: score = the due time of the group's earliest job). Claim moves a group
-- from the second to the end of the ring when its head comes due, serves the ring's first groups one job each per
-- turn, and puts each group it served back at the end of the ring (or in `<due>:groups` when its next job is not due,
-- nowhere when it has none). The ring's member '' is the lane of the queue's ungrouped jobs (the due set and the
-- priority bands), which takes turns like one group. Bit 0 of meta `prios` (set by the first grouped enqueue) says
-- the queue has had grouped jobs: until then no script pays anything for groups. The keys are named after the due
-- set's (they share its hash tag, so its slot): one per group, so a script cannot declare them all.

-- Longest group key, in bytes; its characters: letters, digits and . _ - : @ / + =
local GROUP_MAX = 128

-- The group key g when valid, else nil.
local function group_valid(g)
  if #g == 0 or #g > GROUP_MAX or not string.match(g, '^[%w%._:@/%+=%-]+$') then return nil end
  return g
end

-- The tagged enqueue option fields f[10..] (docs/data-layout.md): the group, or false when none; nil when a field is
-- malformed or unknown.
local function group_tags(f)
  local group = false
  for i = 10, #f do
    local v = string.match(f[i], '^group=(.*)$')
    if not v or group or not group_valid(v) then return nil end
    group = v
  end
  return group
end

local function group_key(k_due, g)
  return k_due .. ':g:' .. g
end

-- The earliest due ms of the lane gk (one call when its first job has priority 0), or nil when it is empty.
local function lane_head(gk)
  local h = redis.call('ZRANGE', gk, '0', '0', 'WITHSCORES')
  if not h[2] then return nil end
  local s = tonumber(h[2])
  local band = math.floor(s / PRIO_BAND)
  local best = s - band * PRIO_BAND
  for b = band + 1, 9 do
    local low = b * PRIO_BAND
    local e = redis.call('ZRANGEBYSCORE', gk, int(low), '(' .. int(low + PRIO_BAND), 'WITHSCORES', 'LIMIT', '0', '1')
    if e[2] and tonumber(e[2]) - low < best then best = tonumber(e[2]) - low end
  end
  return best
end

-- After the lane of group g changed: the group stays in the ring while its head is due (by at), else waits in
-- `<due>:groups` by its head, and leaves both when it has no scheduled job.
local function group_sync(k_due, g, at)
  local head = lane_head(group_key(k_due, g))
  local ring, wait = k_due .. ':groups:ring', k_due .. ':groups'
  if not head then
    redis.call('ZREM', ring, g)
    redis.call('ZREM', wait, g)
  elseif head > at or not redis.call('ZSCORE', ring, g) then
    redis.call('ZREM', ring, g)
    redis.call('ZADD', wait, int(head), g)
  end
end

-- The scheduled grouped job r (due-set member m) into its group's lane, due at due ms; now: Redis's time.
local function group_add(k_due, r, m, due, now)
  redis.call('ZADD', group_key(k_due, r.group), int((9 - r.priority) * PRIO_BAND + due), m)
  group_sync(k_due, r.group, now)
end

-- The grouped job r (member m) out of its group's lane.
local function group_remove(k_due, r, m, now)
  redis.call('ZREM', group_key(k_due, r.group), m)
  group_sync(k_due, r.group, now)
end

-- The number of groups with scheduled jobs.
local function group_count(k_due)
  local ring = k_due .. ':groups:ring'
  local n = redis.call('ZCARD', ring) + redis.call('ZCARD', k_due .. ':groups')
  if redis.call('ZSCORE', ring, '') then n = n - 1 end
  return n
end

-- Groups moved from `<due>:groups` to the ring in one claim, at most (the others follow on the next claims).
local GROUP_PROMOTE = 1000

-- claim's choice on a queue with groups: up to allowed due jobs (due by limit_ms), one per group per turn from the
-- ring's first groups. due_members is claim's reader of the ungrouped sets. Appends to cand and scores (the due ms)
-- and returns keys (the set each candidate's entry is in), lanes (its group, '' ungrouped) and the lanes read, in
-- ring order.
local function group_choose(k, prios, limit_ms, allowed, due_members, cand, scores)
  local ring, wait = k.due .. ':groups:ring', k.due .. ':groups'
  local last = redis.call('ZRANGE', ring, '-1', '-1', 'WITHSCORES')
  local turn = tonumber(last[2]) or 0
  local ready = redis.call('ZRANGEBYSCORE', wait, '-inf', limit_ms, 'LIMIT', '0', int(GROUP_PROMOTE))
  if #ready > 0 then
    local add = {}
    for i = 1, #ready do
      turn = turn + 1
      add[2 * i - 1] = int(turn)
      add[2 * i] = ready[i]
    end
    redis.call('ZREM', wait, unpack(ready))
    redis.call('ZADD', ring, unpack(add))
  end
  local plain = prios - prios % 2 -- the ungrouped sets alone
  if not redis.call('ZSCORE', ring, '') then
    local h = earliest_due(k.due, k.prio, plain)
    if h and h <= tonumber(limit_ms) then redis.call('ZADD', ring, int(turn + 1), '') end
  end
  local order = redis.call('ZRANGE', ring, '0', int(allowed - 1))
  local got = {} -- per lane: { members, scores, keys }
  local function fetch(i, want)
    local m, s, ks = {}, {}, {}
    local g = order[i]
    if g == '' then
      if plain > 0 then
        for p = 9, 1, -1 do
          if #m < want and has_prio(plain, p) then
            local low = (9 - p) * PRIO_BAND
            local n0 = #m
            due_members(k.prio, int(low), int(low + limit_ms), want - #m, low, m, s)
            for j = n0 + 1, #m do ks[j] = k.prio end
          end
        end
      end
      if #m < want then
        local n0 = #m
        due_members(k.due, '-inf', limit_ms, want - #m, 0, m, s)
        for j = n0 + 1, #m do ks[j] = k.due end
      end
    else
      local gk = group_key(k.due, g)
      for p = 9, 0, -1 do
        if #m < want and (p == 0 or has_prio(plain, p)) then
          local low = (9 - p) * PRIO_BAND
          local e = redis.call('ZRANGEBYSCORE', gk, int(low), int(low + limit_ms), 'WITHSCORES', 'LIMIT', '0',
            int(want - #m))
          for j = 1, #e, 2 do
            m[#m + 1] = e[j]
            s[#s + 1] = tonumber(e[j + 1]) - low
            ks[#ks + 1] = gk
          end
        end
      end
    end
    got[i] = { m, s, ks }
  end
  local per, total = math.ceil(allowed / math.max(#order, 1)), 0
  for i = 1, #order do
    fetch(i, per)
    total = total + #got[i][1]
  end
  if total < allowed then -- fewer lanes with due jobs than the claim wants: the full ones give more
    local more = allowed - total
    for i = 1, #order do
      if #got[i][1] == per then fetch(i, per + more) end
    end
  end
  local keys, lanes, n = {}, {}, #cand
  local round, left = 1, true
  while left and n < allowed do
    left = false
    for i = 1, #order do
      local e = got[i]
      if e[1][round] and n < allowed then
        n = n + 1
        cand[n], scores[n], keys[n], lanes[n] = e[1][round], e[2][round], e[3][round], order[i]
        left = true
      end
    end
    round = round + 1
  end
  return keys, lanes, order
end

-- After claim took its candidates 1..take (keys, lanes from group_choose; order: the lanes it read): their entries
-- out of their sets, and each lane it read to the end of the ring while it has a due job (served lanes in the order
-- of their last job served), to `<due>:groups` or nowhere otherwise. Lanes not reached (the byte bound stopped the
-- claim) keep their place.
local function group_taken(k, prios, limit_ms, cand, keys, lanes, take, order)
  local by_key, served, last = {}, {}, {}
  for t = 1, take do
    local key = keys[t]
    local list = by_key[key]
    if not list then
      list = {}
      by_key[key] = list
    end
    list[#list + 1] = cand[t]
    if lanes[t] ~= '' then
      local gl = by_key[k.prio]
      if not gl then
        gl = {}
        by_key[k.prio] = gl
      end
      gl[#gl + 1] = cand[t] -- its entry in the priority due set
    end
    last[lanes[t]] = t
  end
  for key, list in pairs(by_key) do redis.call('ZREM', key, unpack(list)) end
  local ring = k.due .. ':groups:ring'
  local top = redis.call('ZRANGE', ring, '-1', '-1', 'WITHSCORES')
  local turn = tonumber(top[2]) or 0
  local reached = {}
  for t = 1, take do
    if last[lanes[t]] == t then served[#served + 1] = lanes[t] end
    reached[lanes[t]] = true
  end
  if take == #cand then -- lanes read that gave nothing (no due job left) leave the ring too
    for i = 1, #order do
      if not reached[order[i]] then served[#served + 1] = order[i] end
    end
  end
  for i = 1, #served do
    local g = served[i]
    local head
    if g == '' then
      head = earliest_due(k.due, k.prio, prios - prios % 2)
    else
      head = lane_head(group_key(k.due, g))
    end
    if head and head <= tonumber(limit_ms) then
      turn = turn + 1
      redis.call('ZADD', ring, int(turn), g)
    else
      redis.call('ZREM', ring, g)
      if head and g ~= '' then redis.call('ZADD', k.due .. ':groups', int(head), g) end
    end
  end
end
