-- fail: record a failed attempt, fenced by the lease token: retry at now + backoff, or dead.
-- KEYS[1] leases zset   KEYS[2] jobs hash   KEYS[3] due zset   KEYS[4] dead zset   KEYS[5] meta hash
-- KEYS[6] dedupe hash   KEYS[7] dedupe holds zset   KEYS[8] history hash   KEYS[9] priority due zset
-- KEYS[10] events stream   KEYS[11] progress hash   KEYS[12] retrying zset   KEYS[13] errors hash   KEYS[14] deps hash
-- KEYS[15] waiting zset   KEYS[16] children key prefix
-- ARGV[1] id   ARGV[2] token   ARGV[3] error summary
-- ARGV[4] retryable: "1" / "0" not (straight to dead)   ARGV[5] backoff ms   ARGV[6] wake channel
-- ARGV[7] default max attempts (for records that carry 0)
-- Returns { code, at }: code 1 rescheduled, at the retry time; 2 dead (attempts used up or not retryable), at the
--   time it died; 3 / 4 the same: this very failure was already applied (a retry of a call whose reply was
--   lost: the job keeps the token of the lease that failed it until it is claimed again);
--   { -1 } no such job; { -2 } stale token, nothing changed; { -7 } the record cannot be decoded (moved to dead);
--   { -6, what } (BAD_ARGUMENT, nothing written) when an argument is malformed.
-- (retrying: a rescheduled job gets an entry scored at its retry time, so stats tells it from a job enqueued for later;
--  the entries already past, jobs whose retry came due, are trimmed here, the one place that adds them, up to 100 per
--  call (ZRANGEBYSCORE and ZREM, commands the least-privilege ACL allows): each failure adds one entry and drops up to
--  100 past ones, so the set holds the pending retries and few more; claim and complete never touch it)
-- (errors: the job's error history, its last {{MAX_ERRORS}} failures newest first, one field of the errors hash per job that
--  ever failed, written here only: a job that never fails costs nothing; every script that deletes a record that may
--  have one, i.e. one with an error, deletes it. Each entry: attempt ":" time ms ":" byte length ":" the error summary)
-- @include record
-- @include notify
-- @include flow
-- @include groups
-- @include jobs
-- @include deps
redis.replicate_commands()
local k_leases, k_jobs, k_due, k_dead, k_meta = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local k_dedupe, k_holds, k_history, k_prio, k_events, k_progress = KEYS[6], KEYS[7], KEYS[8], KEYS[9], KEYS[10], KEYS[11]
local id, token = ARGV[1], whole(ARGV[2], 0, 2 ^ 53)
local backoff, default_max = whole(ARGV[5], 0, 2 ^ 50), whole(ARGV[7], 1, {{MAX_ATTEMPTS}})
if not (token and backoff and default_max) or (ARGV[4] ~= '1' and ARGV[4] ~= '0') then
  return { -6, 'malformed fail arguments' }
end
local raw = record_of(k_jobs, id)
if not raw then return { -1 } end
local now_micros = now_us()
local now = math.floor(now_micros / 1000)
local r = safe_decode(raw)
if not r then
  redis.call('ZREM', k_leases, id)
  quarantine(k_jobs, k_dead, k_meta, id, raw, now)
  return { -7 }
end
if r.token == token and r.state == SCHEDULED then
  local key = due_entry(k_due, k_prio, r, 0)
  local score = tonumber(redis.call('ZSCORE', key, member(r.seq, id)))
  return { 3, score and (key == k_prio and score % PRIO_BAND or score) }
elseif r.token == token and r.state == DEAD then
  return { 4, tonumber(redis.call('ZSCORE', k_dead, id)) }
end
if r.state ~= PROCESSING or r.token ~= token then return { -2 } end
if r.group then group_ended(k_due, r.group, ARGV[6], now) end
r.err = ARGV[3]
-- The history: this failure first, then at most MAX_ERRORS - 1 of the entries before it (each entry says its length).
local old, keep = redis.call('HGET', KEYS[13], id) or '', 1
for _ = 1, {{MAX_ERRORS}} - 1 do
  local e, len = string.match(old, '^%d+:%d+:()(%d+):', keep)
  if not e then break end
  keep = e + #len + 1 + tonumber(len)
end
redis.call('HSET', KEYS[13], id, int(r.attempt) .. ':' .. int(now) .. ':' .. #ARGV[3] .. ':' .. ARGV[3]
  .. string.sub(old, 1, keep - 1))
local cfg = flow_config(k_meta)
local held = cfg.concurrency and redis.call('ZCARD', k_leases)
redis.call('ZREM', k_leases, id)
redis.call('HDEL', k_progress, id)
if held and held >= cfg.concurrency then redis.call('PUBLISH', ARGV[6], '0') end
local max = r.max > 0 and r.max or default_max
if ARGV[4] == '1' and r.attempt < max then
  local head_before = earliest_due(k_due, k_prio, cfg.prios)
  local at = after(now_micros, backoff) -- never sooner than the backoff
  r.state = SCHEDULED
  r.seq = next_seqs(k_meta, 1)
  redis.call('HSET', k_jobs, id, encode(r)) -- keeps the token: a retried fail recognises its own work
  drop_overlays(k_jobs, { id })
  local key, score = due_entry(k_due, k_prio, r, at)
  redis.call('ZADD', key, int(score), member(r.seq, id))
  if r.group then group_add(k_due, r, member(r.seq, id), at, now) end
  local past = redis.call('ZRANGEBYSCORE', KEYS[12], '-inf', int(now), 'LIMIT', '0', '100')
  if #past > 0 then redis.call('ZREM', KEYS[12], unpack(past)) end
  redis.call('ZADD', KEYS[12], int(at), id)
  count(k_meta, 'retried', 1)
  history_add(k_history, now, 'r', 1)
  emit(k_events, cfg, 'retried', id, 'attempt', r.attempt, 'at', int(at))
  publish_if_earlier(ARGV[6], head_before, earliest_due(k_due, k_prio, cfg.prios))
  return { 1, at }
end
r.state = DEAD
redis.call('HSET', k_jobs, id, encode(r))
drop_overlays(k_jobs, { id })
redis.call('ZADD', k_dead, int(now), id)
redis.call('ZREM', KEYS[12], id) -- a retry entry of an earlier attempt, past by now: no need to wait for the trim
dedupe_release(k_dedupe, k_holds, r, id, now, false)
count(k_meta, 'dead', 1)
history_add(k_history, now, 'd', 1)
emit(k_events, cfg, 'dead', id, 'attempt', r.attempt)
if r.parent then -- its waiting children (deps.lua)
  deps_ended({ jobs = k_jobs, due = k_due, prio = k_prio, dead = k_dead, meta = k_meta, dedupe = k_dedupe, holds = k_holds,
    events = k_events, deps = KEYS[14], waiting = KEYS[15], children = KEYS[16], cfg = cfg, channel = ARGV[6] }, { id }, true,
    now_micros)
end
return { 2, now }
