-- release: hand leased jobs back unfinished (graceful shutdown), each fenced by its token.
-- The attempt is not counted and the job keeps its due time, so it is claimable again at once.
-- KEYS[1] leases zset   KEYS[2] jobs hash   KEYS[3] due zset   KEYS[4] meta hash   KEYS[5] priority due zset
-- KEYS[6] events stream   KEYS[7] progress hash
-- ARGV[1] wake channel   ARGV[2..] per lease: id, token
-- Returns { code_1, ... }: one code per job, 1 handed back, -1 no such job, -2 stale token (nothing changed);
--   { -6, what } (BAD_ARGUMENT, nothing written) when an argument is malformed.
-- @include record
-- @include notify
-- @include flow
-- @include groups
redis.replicate_commands()
local k_leases, k_jobs, k_due, k_meta, k_prio, k_events, k_progress = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7]
local n = (#ARGV - 1) / 2
if n ~= math.floor(n) then return { -6, 'malformed release arguments' } end
local ids, tokens = {}, {}
for i = 1, n do
  ids[i] = ARGV[2 * i]
  tokens[i] = whole(ARGV[2 * i + 1], 0, 2 ^ 53)
  if not tokens[i] then return { -6, 'malformed token of job ' .. i } end
end
if n == 0 then return {} end
local raws = records_of(k_jobs, ids)
local cfg = flow_config(k_meta)
local head_before = earliest_due(k_due, k_prio, cfg.prios)
local held = cfg.concurrency and redis.call('ZCARD', k_leases)
local seq = next_seqs(k_meta, n)
local out, released, seen = {}, 0, {}
for i = 1, n do
  local r = safe_decode(raws[i])
  if not raws[i] then
    out[i] = -1
  elseif not r or r.state ~= PROCESSING or r.token ~= tokens[i] or seen[ids[i]] then
    -- (a job named twice: the records were read once, so the second would hand it back again, with a second due entry)
    out[i] = -2 -- an undecodable record is left for recovery, which moves it aside
  else
    seen[ids[i]] = true
    if r.group then group_ended(k_due, r.group, ARGV[1], now_ms()) end
    r.state = SCHEDULED
    r.attempt = math.max(r.attempt - 1, 0)
    r.seq = seq + i - 1
    r.token = nil
    redis.call('ZREM', k_leases, ids[i])
    redis.call('HDEL', k_progress, ids[i])
    redis.call('HSET', k_jobs, ids[i], encode(r))
    drop_overlays(k_jobs, { ids[i] })
    local key, score = due_entry(k_due, k_prio, r, r.due)
    redis.call('ZADD', key, int(score), member(r.seq, ids[i]))
    if r.group then group_add(k_due, r, member(r.seq, ids[i]), r.due, now_ms()) end
    emit(k_events, cfg, 'released', ids[i])
    released = released + 1
    out[i] = 1
  end
end
if released > 0 then
  publish_if_earlier(ARGV[1], head_before, earliest_due(k_due, k_prio, cfg.prios))
  if held and held >= cfg.concurrency then redis.call('PUBLISH', ARGV[1], '0') end
end
return out
