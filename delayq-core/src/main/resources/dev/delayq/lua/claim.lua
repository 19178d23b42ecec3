-- claim: lease up to N due jobs to one worker, in one atomic step (the seeds' "find due and remove").
-- Expired leases are recovered first, so no separate poller is needed while workers are claiming.
-- KEYS[1] due zset   KEYS[2] leases zset   KEYS[3] jobs hash   KEYS[4] meta hash   KEYS[5] dead zset
-- ARGV[1] max jobs to claim (0: only recover and report the next wake time)
-- ARGV[2] lease ms
-- ARGV[3] lookahead ms: also claim jobs due up to now + lookahead (the worker starts each at its due time)
-- ARGV[4] max expired leases to recover in this call
-- ARGV[5] recovery backoff base ms   ARGV[6] recovery backoff cap ms   ARGV[7] random seed
-- ARGV[8] wake channel   ARGV[9] default max attempts (for records that carry 0)
-- Returns { now, next_wake, recovered, recovered_dead, id_1, record_1, ..., id_n, record_n }
--   now: Redis time (ms) of the claim; each record is the job's new packed record (state processing,
--   attempt + 1, due, fresh token); lease expiry = now + lease ms.
--   next_wake: the earliest of the next due time and the next lease expiry when fewer than N jobs were
--   claimed; -1 when nothing is scheduled or leased; -2 when N were claimed (call again when free).
-- @include record
-- @include notify
-- @include recover
redis.replicate_commands()
local k_due, k_leases, k_jobs, k_meta, k_dead = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local want, lease_ms, lookahead = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
math.randomseed(tonumber(ARGV[7]))
local now = now_ms()

local head_before = head_score(k_due)
local recovered, recovered_dead = recover_expired(k_due, k_leases, k_jobs, k_meta, k_dead, now,
  tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[9]))
if recovered > 0 then
  publish_if_earlier(k_due, ARGV[8], head_before)
end

local out = { now, -1, recovered, recovered_dead }
local claimed = 0
if want > 0 then
  local due = redis.call('ZRANGEBYSCORE', k_due, '-inf', int(now + lookahead), 'WITHSCORES', 'LIMIT', 0, want)
  local n = #due / 2
  if n > 0 then
    local members, ids = {}, {}
    for i = 1, n do
      members[i] = due[2 * i - 1]
      ids[i] = member_id(members[i])
    end
    redis.call('ZREM', k_due, unpack(members))
    local raws = redis.call('HMGET', k_jobs, unpack(ids))
    local token = redis.call('HINCRBY', k_meta, 'token', n) - n
    local expiry = int(now + lease_ms)
    local fields, leases = {}, {}
    for i = 1, n do
      if raws[i] then -- a due member without a record cannot be run; dropping it heals the index
        local r = decode(raws[i])
        token = token + 1
        r.state = PROCESSING
        r.attempt = r.attempt + 1
        r.due = tonumber(due[2 * i])
        r.token = token
        local rec = encode(r)
        fields[#fields + 1] = ids[i]
        fields[#fields + 1] = rec
        leases[#leases + 1] = expiry
        leases[#leases + 1] = ids[i]
        out[#out + 1] = ids[i]
        out[#out + 1] = rec
        claimed = claimed + 1
      end
    end
    if claimed > 0 then
      redis.call('HSET', k_jobs, unpack(fields))
      redis.call('ZADD', k_leases, unpack(leases))
    end
  end
end

if claimed < want or want == 0 then
  local h = redis.call('ZRANGE', k_due, 0, 0, 'WITHSCORES')
  local l = redis.call('ZRANGE', k_leases, 0, 0, 'WITHSCORES')
  local nxt = -1
  if h[2] then nxt = tonumber(h[2]) end
  if l[2] and (nxt < 0 or tonumber(l[2]) < nxt) then nxt = tonumber(l[2]) end
  out[2] = nxt
else
  out[2] = -2
end
return out
