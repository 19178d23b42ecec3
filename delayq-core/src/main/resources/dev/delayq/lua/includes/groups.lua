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
--
-- Per-group limits (settings.lua writes them): meta fields group_conc, group_rate_n, group_rate_ms hold the limits of
-- every group; `<due>:groups:limits` (HASH group -> "c rn rms w", '-' where the group keeps the default) overrides
-- them for one group and holds its weight w (jobs per turn, default 1). `<due>:groups:running` (HASH group -> leases
-- held) counts every grouped lease from claim to its end (complete, fail, recovery, release: group_ended, once per
-- lease, as the lease itself leaves the leases set once); `<due>:gr:<group>` (ZSET, score = the start time of a grant,
-- member = its token) is a group's rate window. A group at its limit leaves the ring for `<due>:groups`, scored by the
-- time its rate window frees a grant, or GROUP_HELD (concurrency: the end of one of its leases puts it back and
-- publishes a wake-up), so it never holds back another group.

-- Longest group key, in bytes; its characters: letters, digits and . _ - : @ / + =
local GROUP_MAX = 128

-- The group key g when valid, else nil.
local function group_valid(g)
  if #g == 0 or #g > GROUP_MAX or not string.match(g, '^[%w%._:@/%+=%-]+$') then return nil end
  return g
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

-- The score in `<due>:groups` of a group held by its concurrency limit: later than any due time (year 9999).
local GROUP_HELD = 253402300800000

-- The limits of the lanes order[i] (groups; '' the ungrouped lane has none) as claim sees them at now: a table per
-- group with cap (jobs it may start now, nil: any), weight, conc, rn, rms (its limits) and held (when cap is 0: the
-- score it waits under in `<due>:groups`). Reads nothing more when the queue has no group limits.
local function lane_limits(k, order, now)
  local d = redis.call('HMGET', k.meta, 'group_conc', 'group_rate_n', 'group_rate_ms', 'group_limits')
  local out = {}
  if not d[1] and not d[2] and not d[4] then return out end -- no group limit, override or weight
  local names = {}
  for i = 1, #order do
    if order[i] ~= '' then names[#names + 1] = order[i] end
  end
  if #names == 0 then return out end
  local ov = d[4] and redis.call('HMGET', k.due .. ':groups:limits', unpack(names)) or {}
  local running = redis.call('HMGET', k.due .. ':groups:running', unpack(names))
  for j = 1, #names do
    local g = names[j]
    local c, rn, rms, w = tonumber(d[1]), tonumber(d[2]), tonumber(d[3]), 1
    if ov[j] then
      local oc, orn, orms, ow = string.match(ov[j], '^(%S+) (%S+) (%S+) (%S+)$')
      if oc and oc ~= '-' then c = tonumber(oc) end
      if orn and orn ~= '-' then rn, rms = tonumber(orn), tonumber(orms) end
      if ow and ow ~= '-' then w = tonumber(ow) or 1 end
    end
    local e = { weight = w, conc = c, rn = rn, rms = rms }
    if c then
      e.cap = c - (tonumber(running[j]) or 0)
      if e.cap <= 0 then e.held = GROUP_HELD end
    end
    if rn and rms and not e.held then
      local log = k.due .. ':gr:' .. g
      local old = redis.call('ZCOUNT', log, '-inf', int(now - rms)) -- grants that left the window: the first by score
      if old > 0 then redis.call('ZREMRANGEBYRANK', log, '0', int(old - 1)) end
      local free = rn - redis.call('ZCARD', log)
      if not e.cap or free < e.cap then e.cap = free end
      if free <= 0 then
        local oldest = redis.call('ZRANGE', log, '0', '0', 'WITHSCORES')
        e.held = oldest[2] and tonumber(oldest[2]) + rms or now + 1
      end
    end
    if e.cap and e.cap < 0 then e.cap = 0 end
    out[g] = e
  end
  return out
end

-- A lease of group g ended (complete, fail, recovery, release): one lease less held; a group its concurrency limit
-- held goes back to `<due>:groups` by its head, and a "0" notice on channel wakes the workers.
local function group_ended(k_due, g, channel, now)
  local running = k_due .. ':groups:running'
  if redis.call('HINCRBY', running, g, -1) <= 0 then redis.call('HDEL', running, g) end
  if tonumber(redis.call('ZSCORE', k_due .. ':groups', g)) == GROUP_HELD then
    group_sync(k_due, g, now)
    redis.call('PUBLISH', channel, '0')
  end
end

-- The due set's name from the jobs hash's (scripts that do not declare the due set: complete).
local function due_of(k_jobs)
  return string.sub(k_jobs, 1, -5) .. 'due'
end

-- claim's next due time on a queue with groups: now while a group in the ring has a due job, else the earliest of the
-- ungrouped jobs and of the groups waiting (by their head, or until their rate window frees a grant); a group held by
-- its concurrency limit waits for a notice. nil: nothing to wait for.
local function group_next_due(k, prios, now)
  local best = earliest_due(k.due, k.prio, prios - prios % 2)
  if redis.call('ZCARD', k.due .. ':groups:ring') > 0 then return now end
  local w = redis.call('ZRANGE', k.due .. ':groups', '0', '0', 'WITHSCORES')
  local at = tonumber(w[2])
  if at and at < GROUP_HELD and (not best or at < best) then best = at end
  return best
end

-- claim's choice on a queue with groups: up to allowed due jobs (due by limit_ms), one per group per turn from the
-- ring's first groups. due_members is claim's reader of the ungrouped sets. Appends to cand and scores (the due ms)
-- and returns keys (the set each candidate's entry is in), lanes (its group, '' ungrouped), the lanes read, in ring
-- order, and their limits (lane_limits): a lane gets up to its weight's jobs per turn, never more than its cap.
local function group_choose(k, prios, now, limit_ms, allowed, due_members, cand, scores)
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
  local lim = lane_limits(k, order, now)
  local got = {} -- per lane: { members, scores, keys }
  local function fetch(i, want)
    local m, s, ks = {}, {}, {}
    local g = order[i]
    local e = lim[g]
    if e then
      want = want * e.weight
      if e.cap and e.cap < want then want = e.cap end
    end
    if want <= 0 then
      got[i] = { m, s, ks }
      return
    end
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
    got[i] = { m, s, ks, want }
  end
  local per, total = math.ceil(allowed / math.max(#order, 1)), 0
  for i = 1, #order do
    fetch(i, per)
    total = total + #got[i][1]
  end
  if total < allowed then -- fewer lanes with due jobs than the claim wants: the full ones give more
    local more = allowed - total
    for i = 1, #order do
      if got[i][4] and #got[i][1] == got[i][4] then fetch(i, per + more) end
    end
  end
  local keys, lanes, n = {}, {}, #cand
  local round, left = 1, true
  while left and n < allowed do
    left = false
    for i = 1, #order do
      local e = got[i]
      local w = lim[order[i]] and lim[order[i]].weight or 1
      for j = (round - 1) * w + 1, round * w do
        if e[1][j] and n < allowed then
          n = n + 1
          cand[n], scores[n], keys[n], lanes[n] = e[1][j], e[2][j], e[3][j], order[i]
          left = true
        end
      end
    end
    round = round + 1
  end
  return keys, lanes, order, lim
end

-- A job of group g leased by claim with token, starting at start: counted in leased (group -> { jobs, grants }).
local function group_lease(leased, g, token, start)
  local l = leased[g]
  if not l then
    l = { 0, {} }
    leased[g] = l
  end
  l[1] = l[1] + 1
  l[2][2 * l[1] - 1] = int(start)
  l[2][2 * l[1]] = int(token)
end

-- After claim took its candidates 1..take (keys, lanes, order, lim from group_choose; leased from group_lease): their
-- entries out of their sets; each group's leases counted in `<due>:groups:running` and its grants in its rate window;
-- each lane it read to the end of the ring while it has a due job and room under its limits (served lanes in the
-- order of their last job served), else to `<due>:groups` (held by a limit, or its next job not due) or nowhere (no
-- job left). Lanes not reached (the byte bound stopped the claim) keep their place.
local function group_taken(k, prios, limit_ms, cand, keys, lanes, take, order, lim, leased)
  local running = k.due .. ':groups:running'
  for g, l in pairs(leased) do
    local held = redis.call('HINCRBY', running, g, int(l[1]))
    local e = lim[g]
    if e then
      if e.rn and e.rms then redis.call('ZADD', k.due .. ':gr:' .. g, unpack(l[2])) end
      if e.cap then
        e.cap = e.cap - l[1]
        if e.cap <= 0 then
          if e.conc and held >= e.conc then
            e.held = GROUP_HELD
          else
            local oldest = redis.call('ZRANGE', k.due .. ':gr:' .. g, '0', '0', 'WITHSCORES')
            e.held = tonumber(oldest[2]) + e.rms
          end
        end
      end
    end
  end
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
    if lim[g] and lim[g].held then
      redis.call('ZREM', ring, g)
      redis.call('ZADD', k.due .. ':groups', int(lim[g].held), g)
    elseif g == '' then
      head = earliest_due(k.due, k.prio, prios - prios % 2)
    else
      head = lane_head(group_key(k.due, g))
    end
    if lim[g] and lim[g].held then
      -- in `<due>:groups` until its limit lets it run again (above)
    elseif head and head <= tonumber(limit_ms) then
      turn = turn + 1
      redis.call('ZADD', ring, int(turn), g)
    else
      redis.call('ZREM', ring, g)
      if head and g ~= '' then redis.call('ZADD', k.due .. ':groups', int(head), g) end
    end
  end
end
