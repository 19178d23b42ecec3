-- claim: lease up to N due jobs to one worker, in one atomic step (the seeds' "find due and remove").
-- Expired leases are recovered first, so no separate poller is needed while workers are claiming.
-- KEYS[1] due zset   KEYS[2] leases zset   KEYS[3] jobs hash   KEYS[4] meta hash   KEYS[5] dead zset
-- KEYS[6] dedupe hash   KEYS[7] dedupe holds zset   KEYS[8] history hash   KEYS[9] priority due zset
-- KEYS[10] events stream   KEYS[11] rate log zset (grants of the window: score = the time the grant's jobs may start,
--   member = "<token>:<n>": n jobs, the first leased with that token; meta's rate_used counts the jobs it holds)
-- KEYS[12] progress hash   KEYS[13] deps hash   KEYS[14] waiting zset   KEYS[15] children key prefix
-- ARGV[1] max jobs to claim (0: only recover and report the next wake times)
-- ARGV[2] lease ms
-- ARGV[3] lookahead ms: also claim jobs due up to now + lookahead (the worker starts each at its due time)
-- ARGV[4] max expired leases to recover in this call
-- ARGV[5] recovery backoff base ms   ARGV[6] recovery backoff cap ms   ARGV[7] random seed
-- ARGV[8] wake channel   ARGV[9] max stalls (expired leases) before a job goes dead
-- ARGV[10] worker: the claiming worker's name   ARGV[11] stand-by ms (see "waker" below)
-- ARGV[12] most record bytes to return (at least one job is claimed whatever its size)
-- Returns { now, next_due, next_expiry, recovered, recovered_dead, covered, now_us, paused, quarantined, limited,
--   id_1, record_1, ... }
--   or { -6, what } (BAD_ARGUMENT, nothing written) when an argument is malformed.
--   now: Redis time (ms) of the claim (now_us: the same in microseconds, for the worker's clock);
--   each record is the job's new packed record (state processing, attempt + 1, due, fresh token), except for a job
--   leased by a lease overlay (see record.lua): its record as enqueue wrote it, and in place of its id a zero byte,
--   the overlay (state processing, token, due, attempt 1) and the id.
--   Every lease expires at now + lease ms.
--   next_due: when fewer than N jobs were claimed, the earliest due time left (-1: none);
--   -2 when N were claimed, or when the byte bound stopped the claim (not looked up: call again when there is room).
--   next_expiry: the earliest lease still held, this call's included (-1: none).
--   covered: 1 when another idle worker already promised to claim at (or before) next_due, so this one
--   may stand by a little longer; 0 when this worker is now that "waker" (or when nothing is due next).
--   paused: 1 when the queue is paused (nothing claimed; next_due -1; a notice wakes workers on resume).
--   quarantined: due records that could not be decoded and were moved to dead.
--   limited: 1 when a rate or concurrency limit cut the claim short (next_due then says when to come back).
-- Limits (see flow.lua): a claim hands out at most what the queue's rate limit (a sliding window of grants, exact on
-- Redis's clock) and its concurrency limit (leases held by all workers) allow. When a limit stops it, next_due is the
-- time the rate window frees a grant, or -1 (concurrency: a completion publishes a notice when it frees a lease), so a
-- refused worker sleeps until then and never polls faster than the limit.
-- The rate window counts grants at the time their jobs may start, max(now, due): a job leased ahead (lookahead) starts
-- at its due time, so that is when its grant enters the window and from when the window counts it. A claim counts every
-- grant later than now - window, those dated ahead included, so no window of that length holds more than the limit's
-- starts. The count is kept in meta (rate_used): a grant is read once when it is written and once when it leaves the
-- window, never on every claim, so a claim's cost does not grow with the grants in the window (an hour's quota).
-- Priorities: due jobs of a higher priority are claimed first; within a priority, due time then enqueue order.
-- Groups (a queue that has had grouped jobs, see groups.lua): the due jobs are chosen one per group per turn, the
-- ungrouped ones taking turns as one group; priorities order the jobs within a group (and within the ungrouped lane).
-- A due record that cannot be decoded is moved to dead (error "record cannot be decoded", raw bytes kept) and
-- the claim goes on with the others; a due entry without a record is dropped, and so is one that is not its
-- record's (a job already leased, ended, or waiting under another sequence), as far as the record says: a job
-- never leased (the fast path) is leased on its record alone, as enqueue wrote it.
-- Waker: idle workers would otherwise all wake for the same due time and all but one claim nothing. The
-- first worker to go idle before a due time registers itself in meta (waker, wake_at); the others are told
-- they are covered. A registration older than half the stand-by time is stale (its worker is busy or dead)
-- and is taken over, so a lost waker costs at most one stand-by period of lag. A waker that fills up (claims
-- as many jobs as it asked for) gives the promise up at once and publishes a "0" notice, which wakes the
-- standing-by workers.
-- @include record
-- @include notify
-- @include flow
-- @include groups
-- @include jobs
-- @include deps
-- @include recover
redis.replicate_commands()

-- Appends to cand and scores, in order, up to limit members of the sorted set key whose scores lie in [lo, hi], and
-- their scores less base. Redis formats every score it returns (snprintf in 7.0: with Lua's tonumber about 6,500
-- instructions a member, where the member alone costs 1,400; BENCHMARKS.md), and the jobs of a burst share their
-- due time. So the first PROBE members are read with their scores; when those are all equal (the first and the last
-- of them: the set is in order), the rest of that run of equal scores is read without (the run's score is theirs),
-- then what follows it. Scores that differ, or a run shorter than RUN_MIN, send the rest through one call with
-- scores, as before. A claim that finds fewer than PROBE due jobs makes one call, as before; one that finds more,
-- two or three, and two more for each further run of RUN_MIN or more that it reads.
local PROBE, RUN_MIN = 8, 16
-- Grants that left the rate window taken out of its log in one claim, at most.
local RATE_EXPIRE = '1000'
local function due_members(key, lo, hi, limit, base, cand, scores)
  local n = #cand
  local stop = n + limit
  local offset = 0 -- members of [lo, hi] before the first that the last call, with scores, should return
  while n < stop do
    local ask = math.min(stop - n, PROBE)
    local got = redis.call('ZRANGEBYSCORE', key, lo, hi, 'WITHSCORES', 'LIMIT', '0', int(ask))
    for i = 1, #got, 2 do
      n = n + 1
      cand[n] = got[i]
      scores[n] = tonumber(got[i + 1]) - base
    end
    if #got < 2 * ask or n >= stop then return end
    offset = ask
    local s = got[2]
    if s ~= got[2 * ask] then break end
    -- The probe's members are the first of score s (all before them score less): the rest of the run follows.
    local same = redis.call('ZRANGEBYSCORE', key, s, s, 'LIMIT', int(ask), int(stop - n))
    local sv = scores[n]
    for i = 1, #same do
      n = n + 1
      cand[n] = same[i]
      scores[n] = sv
    end
    lo, offset = '(' .. s, 0 -- the run is over (or the claim full): what follows has a higher score
    if ask + #same < RUN_MIN then break end
  end
  if n >= stop then return end
  local rest = redis.call('ZRANGEBYSCORE', key, lo, hi, 'WITHSCORES', 'LIMIT', int(offset), int(stop - n))
  for i = 1, #rest, 2 do
    n = n + 1
    cand[n] = rest[i]
    scores[n] = tonumber(rest[i + 1]) - base
  end
end

local k = { due = KEYS[1], leases = KEYS[2], jobs = KEYS[3], meta = KEYS[4], dead = KEYS[5], dedupe = KEYS[6],
  holds = KEYS[7], history = KEYS[8], prio = KEYS[9], events = KEYS[10], progress = KEYS[12], deps = KEYS[13],
  waiting = KEYS[14], children = KEYS[15] }
local k_rate = KEYS[11]
local want, lease_ms, lookahead = whole(ARGV[1], 0, {{MAX_BATCH}}), whole(ARGV[2], 1, 2 ^ 40), whole(ARGV[3], 0, 2 ^ 40)
local recover_limit, base, cap = whole(ARGV[4], 1, {{MAX_BATCH}}), whole(ARGV[5], 0, 2 ^ 40), whole(ARGV[6], 0, 2 ^ 40)
local seed, max_stalls, standby = whole(ARGV[7], 0, 2 ^ 31), whole(ARGV[9], 0, {{MAX_ATTEMPTS}}), whole(ARGV[11], 0, 2 ^ 40)
local max_bytes = whole(ARGV[12], 1, 2 ^ 40)
if not (want and lease_ms and lookahead and recover_limit and base and cap and seed and max_stalls and standby
    and max_bytes) then
  return { -6, 'malformed claim arguments' }
end
math.randomseed(seed)
local now_micros = now_us()
local now = math.floor(now_micros / 1000)

-- waker, wake_at: the idle worker that promised to claim at the next due time, and that time (see "Waker" above).
local cfg, waker, wake_at, claimed_v, fence_v = flow_config(k.meta, 'waker', 'wake_at', 'token', 'fence')
k.cfg = cfg
history_known(k.meta, cfg)
if cfg.paused then
  -- Paused: recover nothing and claim nothing; expired leases wait for the resume like due jobs do.
  return { now, -1, -1, 0, 0, 0, now_micros, 1, 0, 0 }
end

local recovered, recovered_dead, next_expiry = recover_expired(k, ARGV[8], now, recover_limit, base, cap, max_stalls)

local out = { now, -2, next_expiry, recovered, recovered_dead, 0, now_micros, 0, 0, 0 }

-- What the limits allow now.
-- binding: which limit cut the claim down ('c' concurrency, 'r' rate), or nil.
local allowed, binding = want, nil
if want > 0 and cfg.concurrency then
  local free = cfg.concurrency - redis.call('ZCARD', k.leases)
  if free < allowed then
    allowed = math.max(free, 0)
    binding = 'c'
  end
end
if want > 0 and cfg.rate_n and cfg.rate_ms then
  -- The grants that have left the window, oldest first (at most RATE_EXPIRE a call: more wait for the next call, and
  -- meanwhile still count, so the limit errs on the strict side only), taken out of the log and the count.
  local gone = redis.call('ZRANGEBYSCORE', k_rate, '-inf', int(now - cfg.rate_ms), 'LIMIT', '0', RATE_EXPIRE)
  local used = tonumber(redis.call('HGET', k.meta, 'rate_used')) or 0
  if #gone > 0 then
    local left = 0
    for i = 1, #gone do left = left + (tonumber(string.match(gone[i], ':(%d+)$')) or 0) end
    redis.call('ZREMRANGEBYRANK', k_rate, '0', int(#gone - 1)) -- they are the first by score
    used = used - left
    -- An empty log holds nothing, whatever the count says (the log was deleted by something else than delayq).
    if used < 0 or redis.call('EXISTS', k_rate) == 0 then used = 0 end
    redis.call('HSET', k.meta, 'rate_used', int(used))
  end
  local free = cfg.rate_n - used
  if free < allowed then
    allowed = math.max(free, 0)
    binding = 'r'
  end
end

local claimed, full = 0, false
if allowed > 0 then
  -- The candidates: due jobs of each priority in use, highest first, then priority 0 (the due set), in order.
  local cand, scores = {}, {}
  local limit_ms = int(now + lookahead)
  local n_prio, g_keys, g_lanes, g_order, g_lim = 0, nil, nil, nil, nil
  if cfg.prios % 2 == 1 then -- the queue has had grouped jobs: turns between its groups (groups.lua)
    g_keys, g_lanes, g_order, g_lim = group_choose(k, cfg.prios, now, limit_ms, allowed, due_members, cand, scores)
  else
    if cfg.prios > 0 then
      for p = 9, 1, -1 do
        if #cand < allowed and has_prio(cfg.prios, p) then
          local low = (9 - p) * PRIO_BAND
          due_members(k.prio, int(low), int(low + now + lookahead), allowed - #cand, low, cand, scores)
        end
      end
    end
    n_prio = #cand
    if #cand < allowed then
      due_members(k.due, '-inf', limit_ms, allowed - #cand, 0, cand, scores)
    end
  end
  local n = #cand
  local g_leased = {} -- grouped jobs leased, by group (group_lease)
  if g_keys and n == 0 then group_taken(k, cfg.prios, limit_ms, cand, g_keys, g_lanes, 0, g_order, g_lim, g_leased) end
  if n > 0 then
    -- Read the records in chunks, stopping once max_bytes are read: a claim of large payloads must not copy
    -- hundreds of megabytes through Redis's one thread. The first chunk is one record; the next ones are sized
    -- by the average record seen so far, so small records take two HMGETs and large ones stop early.
    -- The per-job loops below keep their own counts (# on a table is a search) and compute each id once.
    local take, raws, bytes, chunk, i, cids = 0, {}, 0, 1, 1, {}
    while i <= n and (i == 1 or bytes < max_bytes) do
      local last = math.min(n, i + chunk - 1)
      local ids = {}
      for j = i, last do
        local id = member_id(cand[j])
        cids[j] = id
        ids[j - i + 1] = id
      end
      local got = redis.call('HMGET', k.jobs, unpack(ids))
      for j = 1, #got do
        take = take + 1
        raws[take] = got[j]
        if got[j] then bytes = bytes + #got[j] end
      end
      i = last + 1
      chunk = math.max(1, math.floor((max_bytes - bytes) * take / math.max(bytes, 1)))
    end
    full = take < n
    if not g_keys then
      local taken_prio = math.min(take, n_prio)
      if taken_prio > 0 then redis.call('ZREM', k.prio, unpack(cand, 1, taken_prio)) end
      -- The due set's candidates are its first members in order (read from -inf up, in one run of ranks; nothing has
      -- changed the set since): removed by rank, without a member argument each.
      if take > n_prio then redis.call('ZREMRANGEBYRANK', k.due, '0', int(take - n_prio - 1)) end
    end
    -- Fencing tokens count up from Redis's clock in microseconds (meta `fence`: the last one granted): a replica
    -- promoted by a failover that lost claims of the old master grants tokens past theirs (its clock has moved on),
    -- never a lost claim's token again. Meta `token` counts the leases granted (stats' "claimed").
    local token = math.max((tonumber(fence_v) or 0) + 1, now_micros) - 1 -- the jobs below take token + 1, + 2, ...
    redis.call('HSET', k.meta, 'token', int((tonumber(claimed_v) or 0) + take), 'fence', int(token + take))
    local expiry = now + lease_ms
    local expiry_s = int(expiry) -- every lease's score: formatted once, not converted from a number per member
    local fields, leases, lags, quarantined, nf, no = {}, {}, {}, 0, 0, #out
    local at = int(now) -- for the events: formatted once, not per job
    -- The last due time seen and its varint (a burst shares few due times); the lag bucket of the last lag worked
    -- out, and the lags [lag_lo, lag_hi) in it (due times a few ms apart share one).
    local lag_due, due_v, lag_b, lag_lo, lag_hi = nil, nil, 0, 0, 0
    -- Under a rate limit, the grants by start time (max(now, due)): start -> { first token, jobs }, and the starts in
    -- the order first seen.
    local rated = cfg.rate_n and cfg.rate_ms
    local grants, starts = rated and {}, rated and {}
    for t = 1, take do
      local raw = raws[t]
      local id = cids[t]
      local rec, ov, attempt
      if raw then -- a due member without a record cannot be run; dropping it heals the index
        local due_at = scores[t]
        if due_at ~= lag_due then
          local lag = now - due_at
          if lag < lag_lo or lag >= lag_hi then lag_b, lag_lo, lag_hi = lag_bucket(lag) end
          lag_due, due_v = due_at, varint_string(due_at)
        end
        -- A fresh job is leased by an overlay when its record is long (the record stays as it is), else by
        -- splicing the lease into its record; any other job by rewriting its record (see record.lua).
        rec, ov = lease_fresh(raw, due_v, varint_string(token + 1), cand[t])
        attempt = 1
        if not rec then
          local r = safe_decode(raw)
          if not r then
            quarantine(k.jobs, k.dead, k.meta, id, raw, now)
            quarantined = quarantined + 1
          elseif r.state == SCHEDULED and member(r.seq, id) == cand[t] then
            attempt = r.attempt + 1
            rec = leased_record(r, due_at, token + 1, attempt)
          end -- else a stale due entry (the job runs, has ended or waits under another sequence): dropped like one
          -- without a record, never a second lease of the job
        end
      end
      if rec then
        token = token + 1
        if ov then
          fields[nf + 1] = OVERLAY .. id
          fields[nf + 2] = ov
          out[no + 1] = OVERLAY .. ov .. id
          if not cfg.overlays then -- from now on, complete looks for overlays
            redis.call('HSET', k.meta, 'overlays', '1')
            cfg.overlays = true
          end
        else
          fields[nf + 1] = id
          fields[nf + 2] = rec
          out[no + 1] = id
        end
        leases[nf + 1] = expiry_s
        leases[nf + 2] = id
        nf = nf + 2
        out[no + 2] = rec
        no = no + 2
        claimed = claimed + 1
        lags[lag_b] = (lags[lag_b] or 0) + 1
        if rated then
          local start = math.max(now, scores[t])
          local g = grants[start]
          if g then
            g[2] = g[2] + 1
          else
            grants[start] = { token, 1 }
            starts[#starts + 1] = start
          end
        end
        if cfg.events then emit(k.events, cfg, 'started', id, 'attempt', attempt, 'token', token, 'at', at) end
        if g_keys and g_lanes[t] ~= '' then group_lease(g_leased, g_lanes[t], token, math.max(now, scores[t])) end
      end
    end
    if g_keys then group_taken(k, cfg.prios, limit_ms, cand, g_keys, g_lanes, take, g_order, g_lim, g_leased) end
    if claimed > 0 then
      redis.call('HSET', k.jobs, unpack(fields))
      redis.call('ZADD', k.leases, unpack(leases))
      if next_expiry < 0 or expiry < next_expiry then out[3] = expiry end
      for b, c in pairs(lags) do history_add(k.history, now, 'l' .. int(b), c) end
      if rated then
        local log = {}
        for i = 1, #starts do
          local g = grants[starts[i]]
          log[2 * i - 1] = int(starts[i])
          log[2 * i] = int(g[1]) .. ':' .. int(g[2])
        end
        redis.call('ZADD', k_rate, unpack(log))
        redis.call('HINCRBY', k.meta, 'rate_used', int(claimed))
      end
    end
    out[9] = quarantined
  end
end

local me = ARGV[10]
if binding and claimed >= allowed and claimed < want then
  -- Stopped by a limit: wake when the rate window frees a grant (its oldest grant leaves it), or at a notice
  -- (concurrency: a completion that frees a lease publishes one), not at due times.
  out[10] = 1
  if binding == 'r' then
    local oldest = redis.call('ZRANGE', k_rate, '0', '0', 'WITHSCORES')
    out[2] = oldest[2] and tonumber(oldest[2]) + cfg.rate_ms or now + 1
  else
    out[2] = -1
  end
elseif (claimed < want and not full) or want == 0 then
  local next_due
  if cfg.prios % 2 == 1 then next_due = group_next_due(k, cfg.prios, now) else next_due = earliest_due(k.due, k.prio, cfg.prios) end
  next_due = next_due or -1
  out[2] = next_due
  if next_due >= 0 and want > 0 and me ~= '' then
    local at = tonumber(wake_at) -- read with the flow settings (nothing above changes them)
    if waker and waker ~= me and at and at <= next_due and at >= now - standby / 2 then
      out[6] = 1
    elseif waker ~= me or at ~= next_due then
      redis.call('HSET', k.meta, 'waker', me, 'wake_at', int(next_due))
    end
  end
elseif me ~= '' and waker == me then
  redis.call('HDEL', k.meta, 'waker', 'wake_at')
  redis.call('PUBLISH', ARGV[8], '0')
end
return out
