-- jobs: what happens around a job's state changes, shared by the scripts: dedupe keys held and released,
-- undecodable records moved aside, and the per-minute history of the queue.
--
-- Dedupe keys live in two keys of the queue: the hash `dedupe` (dedupe key -> id of the job owning it) and the
-- sorted set `dedupe:holds` (dedupe key -> until when it holds, for keys whose job has ended). A key holds while
-- its job is scheduled or running (no entry in holds); when the job ends (done, dead) it keeps holding until
-- the job's enqueue time + TTL if that is still ahead, else it is released; cancel and delete release it at once.

-- Whether dedupe key dk is free at now (no owner, or a hold that has run out); returns owner, hold.
local function dedupe_owner(k_dedupe, k_holds, dk, now)
  local owner = redis.call('HGET', k_dedupe, dk)
  if not owner then return nil, nil end
  local hold = redis.call('ZSCORE', k_holds, dk)
  if hold and tonumber(hold) <= now then return nil, nil end
  return owner, hold and tonumber(hold) or -1
end

local function dedupe_take(k_dedupe, k_holds, dk, id)
  redis.call('HSET', k_dedupe, dk, id)
  redis.call('ZREM', k_holds, dk)
end

-- The job r (id) ended at now: its dedupe key keeps holding until r.hold if that is ahead, else is released.
-- Only a key that still names this job is touched. at_once: release whatever the hold (cancel, delete).
local function dedupe_release(k_dedupe, k_holds, r, id, now, at_once)
  if not r.dedupe or redis.call('HGET', k_dedupe, r.dedupe) ~= id then return end
  if not at_once and r.hold and r.hold > now then
    redis.call('ZADD', k_holds, r.hold, r.dedupe)
  else
    redis.call('HDEL', k_dedupe, r.dedupe)
    redis.call('ZREM', k_holds, r.dedupe)
  end
end

-- The job is active again (a dead job retried): its dedupe key holds again, unless another job took it.
local function dedupe_retake(k_dedupe, k_holds, r, id, now)
  if not r.dedupe then return end
  local owner = dedupe_owner(k_dedupe, k_holds, r.dedupe, now)
  if not owner or owner == id then dedupe_take(k_dedupe, k_holds, r.dedupe, id) end
end

-- Moves a record that cannot be decoded aside: to dead, error "record cannot be decoded", its raw bytes kept as
-- the payload (raw: the record as read, with its overlay applied when it had one; see record.lua). The caller has
-- removed (or will remove) the job's other index entries.
local function quarantine(k_jobs, k_dead, k_meta, id, raw, now)
  redis.call('HSET', k_jobs, id, quarantine_record(raw, next_seqs(k_meta, 1), now))
  drop_overlays(k_jobs, { id })
  redis.call('ZADD', k_dead, now, id)
  count(k_meta, 'quarantined', 1)
end

-- History: per-minute counters in the hash `history`, in 1440 slots (one day); a slot is reset when a new minute
-- first writes to it, so the hash stays bounded without a purge. Fields: <slot>:m (the minute the slot holds,
-- epoch minutes), <slot>:e enqueued, :c completed, :r retried, :d dead, :l<b> claims with a lag in bucket b
-- (b = 0 for under 1 ms, else floor(log2(ms)) + 1, at most 20).
-- Beside them the same counters per hour for the 7-day window, in 168 slots: h<slot>:m (the hour, epoch hours), then
-- h<slot>:e ... h<slot>:l<b>; each history_add adds to both (one more HINCRBY). The hour slot is checked only when a
-- minute slot is reset: the first write of a minute is the one that sees a new hour, so the steady state reads
-- nothing more.
local HISTORY_SLOTS = {{HISTORY_MINUTES}}
local HISTORY_HOUR_SLOTS = {{HISTORY_HOURS}}
local HISTORY_FIELDS = { 'e', 'c', 'r', 'd' }

-- The minute whose slot is known to be this minute's (checked by this call, or by an earlier call that noted it in
-- meta's field hist), and the meta hash to note a newly checked minute in (set by history_known; nil: not noted).
local history_minute, history_meta = nil, nil

-- For the hot scripts, which read meta anyway (flow_config): a slot checked once a minute, not once a call.
local function history_known(k_meta, cfg)
  history_minute, history_meta = cfg.hist, k_meta
end

local function history_slot(k_history, now)
  local minute = math.floor(now / 60000)
  local slot = minute % HISTORY_SLOTS
  if minute == history_minute then return slot end
  local key = slot .. ':m'
  local held = redis.call('HGET', k_history, key)
  if held ~= int(minute) then
    local old = {}
    for _, f in ipairs(HISTORY_FIELDS) do old[#old + 1] = slot .. ':' .. f end
    for b = 0, 20 do old[#old + 1] = slot .. ':l' .. b end
    redis.call('HDEL', k_history, unpack(old))
    redis.call('HSET', k_history, key, int(minute))
    local hour = math.floor(minute / 60)
    local hslot = 'h' .. int(hour % HISTORY_HOUR_SLOTS)
    if redis.call('HGET', k_history, hslot .. ':m') ~= int(hour) then
      local hold = {}
      for _, f in ipairs(HISTORY_FIELDS) do hold[#hold + 1] = hslot .. ':' .. f end
      for b = 0, 20 do hold[#hold + 1] = hslot .. ':l' .. b end
      redis.call('HDEL', k_history, unpack(hold))
      redis.call('HSET', k_history, hslot .. ':m', int(hour))
    end
  end
  history_minute = minute
  if history_meta then redis.call('HSET', history_meta, 'hist', int(minute)) end
  return slot
end

local function history_add(k_history, now, field, n)
  if n > 0 then
    redis.call('HINCRBY', k_history, int(history_slot(k_history, now)) .. ':' .. field, int(n))
    redis.call('HINCRBY', k_history, 'h' .. int(math.floor(now / 3600000) % HISTORY_HOUR_SLOTS) .. ':' .. field, int(n))
  end
end

-- The lag bucket of lag_ms (History.java: 0 under 1 ms, b from 1 to 20 for 2^(b-1) ms to under 2^b ms, 20 also for
-- all above), and the lags [lo, hi) that share it: claim works a bucket out once for jobs whose due times differ by
-- a few ms. By comparisons: no logarithms.
local function lag_bucket(lag_ms)
  if lag_ms < 1 then return 0, -math.huge, 1 end
  local b, lo = 1, 1
  while b < 20 and lag_ms >= lo * 2 do
    b, lo = b + 1, lo * 2
  end
  return b, lo, b < 20 and lo * 2 or math.huge
end
