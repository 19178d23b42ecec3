-- schedule: change a recurring schedule and enqueue its tick jobs in one atomic step, compare-and-set.
-- The client reads the schedule, computes its ticks in Java (cron and time zones live there), and sends the stored
-- record it based them on: the script writes only when the schedule still holds exactly that record, so any number of
-- workers (and `delayq schedule tick`) racing on one tick advance it once; a tick's job id <name>@<tick ms> makes each
-- tick one job whatever happens (HSETNX: a tick already enqueued is not enqueued again).
-- KEYS[1] schedules hash   KEYS[2] jobs hash   KEYS[3] due zset   KEYS[4] meta hash   KEYS[5] history hash
-- KEYS[6] priority due zset   KEYS[7] events stream   KEYS[8] dedupe hash   KEYS[9] dedupe holds zset
-- KEYS[10] retrying zset   KEYS[11] paused schedules hash   KEYS[12] errors hash
-- ARGV[1] wake channel   ARGV[2] schedules channel (told of a change made with not before = 0, i.e. by upsert or
--   remove, so that workers' tickers look again; an advance needs no notice, every ticker wakes at the next tick)
-- ARGV[3] schedule name   ARGV[4] based on: the record the change is based on ("" = no such schedule)
-- ARGV[5] new record ("" = remove the schedule)   ARGV[6] not before: Redis time (ms) from which the change may
--   happen ("0" = any time; an advance waits for its tick to be due)   ARGV[7] drop id: a job to drop if it is still
--   scheduled (the pending tick of a changed or removed schedule; "" none)   ARGV[8] previous id: the previous tick's job,
--   which must have ended ("no overlap"; "" none)   ARGV[9] paused before: 1 when the change is based on the schedule
--   being paused, else 0 (compared like the record: pausing or resuming meanwhile is a change)   ARGV[10] paused after:
--   1 to keep or make it paused, 0 to keep or make it running (a removal: 0)   ARGV[11] ticks: tick jobs to enqueue
--   (0 to {{MAX_TICKS}})
-- ARGV[12..] per tick job: id, payload, due (ms, absolute), max_attempts ("" = the worker's default)
-- Returns { code, created }: code 1, created (created: tick jobs enqueued; the others existed already); { -4 } the schedule changed
--   meanwhile (nothing written: read it again); { 0, now } not yet (now < not before); { -3, state } the previous
--   tick's job is still scheduled (1) or running (2), nothing written; { -6, what } malformed arguments.
-- @include record
-- @include notify
-- @include flow
-- @include jobs
redis.replicate_commands()
local k_sched, k_jobs, k_due, k_meta, k_history, k_prio, k_events = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7]
local name, expected, new = ARGV[3], ARGV[4], ARGV[5]
local not_before, n = whole(ARGV[6], 0, MAX_DUE), whole(ARGV[11], 0, {{MAX_TICKS}})
local paused_before, paused_after = whole(ARGV[9], 0, 1), whole(ARGV[10], 0, 1)
if not not_before or not n or not paused_before or not paused_after or #ARGV ~= 11 + 4 * n or name == ''
    or (new == '' and paused_after == 1) then
  return { -6, 'malformed schedule arguments' }
end
local dues, maxes = {}, {}
for i = 1, n do
  local a = 12 + 4 * (i - 1)
  dues[i] = whole(ARGV[a + 2], 0, MAX_DUE)
  local ok = ARGV[a + 3] == ''
  if not ok then
    maxes[i] = whole(ARGV[a + 3], 1, {{MAX_ATTEMPTS}})
    ok = maxes[i] ~= nil
  end
  if not dues[i] or not ok or ARGV[a] == '' then return { -6, 'tick ' .. i .. ': malformed job' } end
end

local now_micros = now_us()
local now = math.floor(now_micros / 1000)
if now < not_before then return { 0, now } end
local current = redis.call('HGET', k_sched, name)
if (current or '') ~= expected or redis.call('HEXISTS', KEYS[11], name) ~= paused_before then return { -4 } end
if ARGV[8] ~= '' then
  local r = safe_decode(record_of(k_jobs, ARGV[8]))
  if r and (r.state == SCHEDULED or r.state == PROCESSING) then return { -3, r.state } end
end

local cfg = flow_config(k_meta)
local head_before = earliest_due(k_due, k_prio, cfg.prios)
-- The pending tick of a schedule changed or removed: cancelled as `cancel` would (only while still scheduled).
if ARGV[7] ~= '' then
  local r = safe_decode(record_of(k_jobs, ARGV[7]))
  if r and r.state == SCHEDULED then
    redis.call('ZREM', due_entry(k_due, k_prio, r, 0), member(r.seq, ARGV[7]))
    redis.call('ZREM', KEYS[10], ARGV[7])
    redis.call('HDEL', KEYS[12], ARGV[7]) -- a tick waiting for its retry has an error history
    redis.call('HDEL', k_jobs, ARGV[7])
    drop_overlays(k_jobs, { ARGV[7] })
    dedupe_release(KEYS[8], KEYS[9], r, ARGV[7], now, true)
    count(k_meta, 'cancelled', 1)
    emit(k_events, cfg, 'cancelled', ARGV[7])
  end
end
if new == '' then
  redis.call('HDEL', k_sched, name)
else
  redis.call('HSET', k_sched, name, new)
end
-- Paused: the name in the paused hash (with when, Redis ms), beside a record without a next tick; the hash is read by
-- this script and schedule_read only, so the record keeps the format earlier versions read (to them: no tick to make).
if paused_after == 1 and paused_before == 0 then
  redis.call('HSET', KEYS[11], name, now)
elseif paused_after == 0 and paused_before == 1 then
  redis.call('HDEL', KEYS[11], name)
end

-- The tick jobs: ordinary jobs of priority 0 named after the schedule, written as enqueue.lua writes them.
local created, members = 0, {}
local seq = n > 0 and next_seqs(k_meta, n) or 0
local created_at = created_now(now_micros)
for i = 1, n do
  local a = 12 + 4 * (i - 1)
  local id = ARGV[a]
  local rec = fresh_record(ARGV[a + 1], seq + i - 1, created_at, { max = maxes[i], name = name, priority = 0 })
  if redis.call('HSETNX', k_jobs, id, rec) == 1 then
    members[#members + 1] = dues[i]
    members[#members + 1] = member(seq + i - 1, id)
    emit(k_events, cfg, 'enqueued', id, 'at', int(dues[i]))
    created = created + 1
  end
end
if created > 0 then
  redis.call('ZADD', k_due, unpack(members))
  count(k_meta, 'enqueued', created)
  history_add(k_history, now, 'e', created)
  publish_if_earlier(ARGV[1], head_before, earliest_due(k_due, k_prio, cfg.prios))
end
if not_before == 0 then redis.call('PUBLISH', ARGV[2], name) end
return { 1, created }
