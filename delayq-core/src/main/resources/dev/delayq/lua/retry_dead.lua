-- retry_dead: put dead jobs back in the due set, due now, with a fresh budget of attempts and stalls. A job's
-- dedupe key holds again, unless another job has taken it meanwhile.
-- KEYS[1] dead zset   KEYS[2] due zset   KEYS[3] jobs hash   KEYS[4] meta hash   KEYS[5] dedupe hash
-- KEYS[6] dedupe holds zset   KEYS[7] priority due zset   KEYS[8] events stream
-- ARGV[1] wake channel   ARGV[2] "id" or "all"   ARGV[3] the id, or the most to move in this call
-- ARGV[4] ("all") the rank to start at: dead records that cannot be decoded stay, and are stepped over
-- Returns for "id": { 1, due } moved, { -1 } no such job, { -3, state } not dead;
--   for "all": { moved, dead_left, skipped }; { -6, what } malformed arguments (nothing written).
-- A record that cannot be decoded is left where it is ("all" skips it; "id" answers { -7 }).
-- @include record
-- @include notify
-- @include flow
-- @include jobs
redis.replicate_commands()
local k_dead, k_due, k_jobs, k_meta, k_dedupe, k_holds = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local ids, raws
if ARGV[2] == 'id' then
  local raw = record_of(k_jobs, ARGV[3])
  if not raw then return { -1 } end
  local r = safe_decode(raw)
  if not r then return { -7 } end
  if r.state ~= DEAD then return { -3, r.state } end
  ids, raws = { ARGV[3] }, { raw }
elseif ARGV[2] == 'all' then
  local limit, start = whole(ARGV[3], 1, 1000), whole(ARGV[4], 0, 2 ^ 40)
  if not (limit and start) then return { -6, 'malformed retry limit' } end
  ids = redis.call('ZRANGE', k_dead, start, start + limit - 1)
  raws = records_of(k_jobs, ids)
else
  return { -6, 'malformed retry arguments' }
end
local now = now_ms()
local moved, skipped = 0, 0
local cfg = flow_config(k_meta)
local k_prio = KEYS[7]
if #ids > 0 then
  local head_before = earliest_due(k_due, k_prio, cfg.prios)
  local seq = next_seqs(k_meta, #ids)
  for i = 1, #ids do
    local r = safe_decode(raws[i])
    if not raws[i] then
      redis.call('ZREM', k_dead, ids[i]) -- a dead entry without a record: drop it
    elseif not r or r.state ~= DEAD then
      skipped = skipped + 1
    else
      redis.call('ZREM', k_dead, ids[i])
      r.state = SCHEDULED
      r.attempt = 0
      r.stalls = 0
      r.seq = seq + i - 1
      r.token = nil
      redis.call('HSET', k_jobs, ids[i], encode(r))
      drop_overlays(k_jobs, { ids[i] })
      local key, score = due_entry(k_due, k_prio, r, now)
      redis.call('ZADD', key, int(score), member(r.seq, ids[i]))
      dedupe_retake(k_dedupe, k_holds, r, ids[i], now)
      emit(KEYS[8], cfg, 'revived', ids[i], 'at', int(now))
      moved = moved + 1
    end
  end
  publish_if_earlier(ARGV[1], head_before, earliest_due(k_due, k_prio, cfg.prios))
end
if ARGV[2] == 'id' then return { 1, now } end
return { moved, redis.call('ZCARD', k_dead), skipped }
