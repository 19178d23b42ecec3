-- complete: acknowledge finished jobs (a batch), each fenced by the token of its lease.
-- KEYS[1] leases zset   KEYS[2] jobs hash   KEYS[3] done zset   KEYS[4] meta hash   KEYS[5] dedupe hash
-- KEYS[6] dedupe holds zset   KEYS[7] history hash   KEYS[8] dead zset   KEYS[9] events stream
-- KEYS[10] progress hash   ARGV[1] also tells the wake channel: see below
-- ARGV[1] done retention ms (0: delete the record at once)   ARGV[2] wake channel   ARGV[3..] pairs: id, token
-- Returns one code per job: 1 completed; 2 already completed with this token (a replayed call);
--   -1 no such job; -2 stale: the token is not the job's current lease (it was recovered, re-leased
--   or finished by someone else), nothing changed; -7 the record cannot be decoded (moved to dead).
--   { -6, what } (BAD_ARGUMENT, nothing written) when an argument is malformed.
-- A completed job's dedupe key keeps holding until the job's enqueue time + TTL if that is ahead, else it is
-- released. When the queue has a concurrency limit and this frees leases it was held at, a "0" notice wakes the
-- workers it refused.
-- @include record
-- @include notify
-- @include flow
-- @include jobs
redis.replicate_commands()
local k_leases, k_jobs, k_done, k_meta = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local k_dedupe, k_holds, k_history = KEYS[5], KEYS[6], KEYS[7]
local k_events, k_progress = KEYS[9], KEYS[10]
local retention = whole(ARGV[1], 0, 2 ^ 50)
local n = (#ARGV - 2) / 2
if not retention or n ~= math.floor(n) then return { -6, 'malformed complete arguments' } end
local ids, tokens = {}, {}
for i = 1, n do
  ids[i] = ARGV[2 * i + 1]
  tokens[i] = whole(ARGV[2 * i + 2], 0, 2 ^ 53)
  if not tokens[i] then return { -6, 'malformed token of job ' .. i } end
end
if n == 0 then return {} end
local raws = redis.call('HMGET', k_jobs, unpack(ids))
local now = now_ms()
local now_s = int(now) -- every done entry's score: formatted once, not converted from a number per member
local cfg = flow_config(k_meta)
history_known(k_meta, cfg)
local out, fields, finished, dels, dones = {}, {}, {}, {}, {}
local function finish(id, done_record) -- done_record: the record with state done (when retention > 0)
  finished[#finished + 1] = id
  if retention > 0 then
    fields[#fields + 1] = id
    fields[#fields + 1] = done_record
    dones[#dones + 1] = now_s
    dones[#dones + 1] = id
  else
    dels[#dels + 1] = id
  end
end
-- The usual job (no dedupe key, no events wanted) is judged by its token's bytes, without decoding its record.
local fast = not cfg.events
for i = 1, n do
  local raw, id = raws[i], ids[i]
  local token_v = fast and raw and leased_token(raw)
  if token_v and token_v == varint_string(tokens[i]) then
    out[i] = 1
    finish(id, retention > 0 and LEASED_DONE_CHAR .. string.sub(raw, 2))
  else
    local r = safe_decode(raw)
    if not raw then
      out[i] = -1
    elseif not r then
      out[i] = -7
      redis.call('ZREM', k_leases, id)
      quarantine(k_jobs, KEYS[8], k_meta, id, raw, now)
    elseif r.token ~= tokens[i] then
      out[i] = -2
    elseif r.state == DONE then
      out[i] = 2
    elseif r.state ~= PROCESSING then
      out[i] = -2
    else
      out[i] = 1
      if r.dedupe then dedupe_release(k_dedupe, k_holds, r, id, now, false) end
      if cfg.events then emit(k_events, cfg, 'completed', id, 'attempt', r.attempt, 'token', r.token) end
      finish(id, retention > 0 and with_state(r, DONE))
    end
  end
end
if #finished > 0 then
  local held = cfg.concurrency and redis.call('ZCARD', k_leases)
  redis.call('ZREM', k_leases, unpack(finished))
  if cfg.progress then redis.call('HDEL', k_progress, unpack(finished)) end
  if held and held >= cfg.concurrency then redis.call('PUBLISH', ARGV[2], '0') end
  if #fields > 0 then
    redis.call('HSET', k_jobs, unpack(fields))
    redis.call('ZADD', k_done, unpack(dones))
  end
  if #dels > 0 then redis.call('HDEL', k_jobs, unpack(dels)) end
  count(k_meta, 'completed', #finished)
  history_add(k_history, now, 'c', #finished)
end
return out
