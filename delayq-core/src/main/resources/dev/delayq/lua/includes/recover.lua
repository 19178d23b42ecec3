-- recover: return jobs whose lease has expired (their worker died or hung, or the claim's reply was lost) to the
-- due set. An expired lease is a stall, not a failed attempt: the attempt is given back (the handler may never
-- have run) and the job's stall count goes up; it is rescheduled at now + backoff (by its stall count) with
-- error "lease expired", or goes dead when it has stalled more than max_stalls times (a job that keeps killing
-- its workers). Backoff = base * 2^(stalls-1), capped, with full jitter above the base, drawn from a seed the
-- client sends (Redis seeds math.random identically for every script).
--
-- One ZRANGE by rank reads the earliest lease; when it has expired, a ZRANGEBYSCORE reads up to limit expired ones,
-- without their scores (Redis would print each), and after they are recovered the earliest lease left is the next
-- expiry. Returns recovered, dead, next_expiry (-1: no lease left; now: more expired leases than the limit are
-- waiting).
local function backoff_ms(n, base, cap)
  local exp = base * math.pow(2, math.max(n - 1, 0))
  if exp > cap then exp = cap end
  if exp <= base then return base end
  return math.floor(base + math.random() * (exp - base))
end

-- k: a table of the queue's keys (due, leases, jobs, meta, dead, dedupe, holds, history, prio, events, progress, deps,
-- waiting, children) and its flow configuration (k.cfg). A job with children that goes dead ends them (deps.lua).
local function recover_expired(k, channel, now, limit, base, cap, max_stalls)
  -- The earliest lease first, alone: when it has not expired (the usual case) it is the next expiry, and Redis
  -- prints one score instead of limit + 1 (each in '%.17g' on 7.0, about 3,600 instructions, read back by a strtod).
  local earliest = head_score(k.leases)
  if not earliest then return 0, 0, -1 end
  if earliest > now then return 0, 0, earliest end
  local ids = redis.call('ZRANGEBYSCORE', k.leases, '-inf', int(now), 'LIMIT', '0', int(limit))
  local raws = records_of(k.jobs, ids)
  local head_before = earliest_due(k.due, k.prio, k.cfg.prios)
  local recovered, dead, rewritten, parents = 0, 0, {}, nil
  local seq = next_seqs(k.meta, #ids)
  redis.call('ZREM', k.leases, unpack(ids))
  redis.call('HDEL', k.progress, unpack(ids))
  local next_expiry = head_score(k.leases) or -1
  if next_expiry >= 0 and next_expiry <= now then next_expiry = now end -- more expired than the limit: call again
  for i = 1, #ids do
    local id, raw = ids[i], raws[i]
    local r = safe_decode(raw)
    if raw and not r then
      quarantine(k.jobs, k.dead, k.meta, id, raw, now)
      dead = dead + 1
    elseif r and r.state == PROCESSING then -- a lease without a record, or of a finished job, is simply dropped
      if r.group then group_ended(k.due, r.group, channel, now) end
      r.stalls = r.stalls + 1
      r.attempt = math.max(r.attempt - 1, 0)
      if r.stalls > max_stalls then
        r.state = DEAD
        r.due = r.due or now
        r.err = 'lease expired ' .. r.stalls .. ' times (stalled: the worker died or lost its connection each time)'
        -- No token: its last holder did not cause this death, so a late complete or fail from it is refused as stale
        -- (fail.lua answers "already applied" only to the token it finds in the record).
        r.token = nil
        redis.call('ZADD', k.dead, now, id)
        dedupe_release(k.dedupe, k.holds, r, id, now, false)
        emit(k.events, k.cfg, 'dead', id, 'stalls', r.stalls)
        dead = dead + 1
        if r.parent then
          parents = parents or {}
          parents[#parents + 1] = id
        end
      else
        r.state = SCHEDULED
        r.err = 'lease expired (stall ' .. r.stalls .. ' of at most ' .. max_stalls .. ')'
        r.seq = seq + i - 1
        r.token = nil
        local at = now + backoff_ms(r.stalls, base, cap)
        local key, score = due_entry(k.due, k.prio, r, at)
        redis.call('ZADD', key, score, member(r.seq, id))
        if r.group then group_add(k.due, r, member(r.seq, id), at, now) end
        emit(k.events, k.cfg, 'recovered', id, 'stalls', r.stalls, 'at', int(at))
        recovered = recovered + 1
      end
      redis.call('HSET', k.jobs, id, encode(r))
      rewritten[#rewritten + 1] = id
    end
  end
  drop_overlays(k.jobs, rewritten)
  if parents then
    k.channel = channel
    deps_ended(k, parents, true, now * 1000)
  end
  count(k.meta, 'recovered', recovered)
  count(k.meta, 'dead', dead)
  history_add(k.history, now, 'r', recovered)
  history_add(k.history, now, 'd', dead)
  if recovered > 0 then publish_if_earlier(channel, head_before, earliest_due(k.due, k.prio, k.cfg.prios)) end
  return recovered, dead, next_expiry
end
