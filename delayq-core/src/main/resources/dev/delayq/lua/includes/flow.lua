-- flow: the queue's switches and limits (kept in its meta hash), priorities and the event stream.
--
-- Meta fields: paused (present while paused), rate_n and rate_ms (at most rate_n jobs handed out in any window of
-- rate_ms, on Redis's clock), concurrency (at most this many leases held at once, by all workers together), prios (a
-- bit mask of the priorities 1-9 that jobs were enqueued with), events (the event stream's length cap; absent: off),
-- progress (present once a handler of the queue has reported progress: until then complete need not clear any), hist
-- (the last minute whose history slot claim or complete checked: see history_known in jobs.lua), overlays (present
-- once claim has leased a job by a lease overlay, see record.lua: until then complete need not look for any).
-- One HMGET reads them all, so a queue that uses none of them pays one small read per script. A script that needs
-- other meta fields names them after k_meta and gets their values after the configuration, from the same HMGET
-- (claim's waker and wake_at); only the fields asked for are read, as each costs a search of the meta hash.
local function flow_config(k_meta, ...)
  local v = redis.call('HMGET', k_meta, 'paused', 'rate_n', 'rate_ms', 'concurrency', 'prios', 'events', 'progress',
    'hist', 'overlays', ...)
  return { paused = v[1] ~= false, rate_n = tonumber(v[2]), rate_ms = tonumber(v[3]), concurrency = tonumber(v[4]),
    prios = tonumber(v[5]) or 0, events = tonumber(v[6]), progress = v[7] ~= false, hist = tonumber(v[8]),
    overlays = v[9] ~= false }, unpack(v, 10)
end

-- Priorities: jobs of priority 0 wait in the due set (score = due ms). Jobs of priority p (1-9) wait in the sorted set
-- `due:prio` in band 9 - p: score = (9 - p) * 2^48 + due ms. Every band is exact (due ms < 2^48, and the largest score,
-- 9 * 2^48, is below 2^53); a band ordered by due time then by member (the enqueue sequence) keeps FIFO within a
-- priority, and a job is claimed only when its own due time has come, whatever its priority.
local PRIO_BAND = 281474976710656

local function has_prio(prios, p)
  return math.floor(prios / 2 ^ p) % 2 == 1
end

-- The key and score of a scheduled job's entry (r.priority from its record). A job of a group (r.group, see groups.lua)
-- has its entry in the priority due set too, in band 19 - p (above every priority band: no ungrouped claim reads it),
-- besides the entry in its group's lane that claim reads.
local function due_entry(k_due, k_prio, r, due)
  if r.group then return k_prio, (19 - r.priority) * PRIO_BAND + due end
  if r.priority > 0 then return k_prio, (9 - r.priority) * PRIO_BAND + due end
  return k_due, due
end

-- The earliest due time among the scheduled jobs of every priority in use, or nil. Bit 0 of prios says that the queue
-- has had grouped jobs (groups.lua): their bands (19 - p, for priority 0 and each priority in use) are read too.
local function earliest_due(k_due, k_prio, prios)
  local best = head_score(k_due)
  if prios > 0 then
    for q = 1, prios % 2 == 1 and 19 or 9 do -- q: a priority 1-9, or 10 + a band 0-9 of the grouped jobs
      local p = q < 10 and q or 19 - q
      if (q >= 10 and p == 0) or has_prio(prios, p) then
        local low = (q < 10 and 9 - p or q) * PRIO_BAND
        local h = redis.call('ZRANGEBYSCORE', k_prio, int(low), '(' .. int(low + PRIO_BAND), 'WITHSCORES',
          'LIMIT', '0', '1')
        if h[2] then
          local due = tonumber(h[2]) - low
          if not best or due < best then best = due end
        end
      end
    end
  end
  return best
end

-- Events: one stream entry per state change, appended in the same script, capped at exactly cfg.events entries (the
-- oldest go first). Fields: type, id, then what the change did (attempt, token, at).
local function emit(k_events, cfg, kind, id, a1, v1, a2, v2, a3, v3)
  if not cfg.events then return end
  if a3 then
    redis.call('XADD', k_events, 'MAXLEN', int(cfg.events), '*', 'type', kind, 'id', id, a1, v1, a2, v2, a3, v3)
  elseif a2 then
    redis.call('XADD', k_events, 'MAXLEN', int(cfg.events), '*', 'type', kind, 'id', id, a1, v1, a2, v2)
  elseif a1 then
    redis.call('XADD', k_events, 'MAXLEN', int(cfg.events), '*', 'type', kind, 'id', id, a1, v1)
  else
    redis.call('XADD', k_events, 'MAXLEN', int(cfg.events), '*', 'type', kind, 'id', id)
  end
end
