-- claim: lease up to N due jobs to one worker, in one atomic step (the seeds' "find due and remove").
-- Expired leases are recovered first, so no separate poller is needed while workers are claiming.
-- KEYS[1] due zset   KEYS[2] leases zset   KEYS[3] jobs hash   KEYS[4] meta hash   KEYS[5] dead zset
-- ARGV[1] max jobs to claim (0: only recover and report the next wake times)
-- ARGV[2] lease ms
-- ARGV[3] lookahead ms: also claim jobs due up to now + lookahead (the worker starts each at its due time)
-- ARGV[4] max expired leases to recover in this call
-- ARGV[5] recovery backoff base ms   ARGV[6] recovery backoff cap ms   ARGV[7] random seed
-- ARGV[8] wake channel   ARGV[9] default max attempts (for records that carry 0)
-- ARGV[10] the claiming worker's name   ARGV[11] stand-by ms (see "waker" below)
-- Returns { now, next_due, next_expiry, recovered, recovered_dead, covered, now_us, id_1, record_1, ... }
--   now: Redis time (ms) of the claim (now_us: the same in microseconds, for the worker's clock);
--   each record is the job's new packed record (state processing,
--   attempt + 1, due, fresh token); every lease expires at now + lease ms.
--   next_due: when fewer than N jobs were claimed, the earliest due time left (-1: none);
--   -2 when N were claimed (not looked up: call again when there is room).
--   next_expiry: the earliest lease still held, this call's included (-1: none).
--   covered: 1 when another idle worker already promised to claim at (or before) next_due, so this one
--   may stand by a little longer; 0 when this worker is now that "waker" (or when nothing is due next).
-- Waker: idle workers would otherwise all wake for the same due time and all but one claim nothing. The
-- first worker to go idle before a due time registers itself in meta (waker, wake_at); the others are told
-- they are covered. A registration older than half the stand-by time is stale (its worker is busy or dead)
-- and is taken over, so a lost waker costs at most one stand-by period of lag. A waker that fills up (claims
-- as many jobs as it asked for) gives the promise up at once and publishes a "0" notice, which wakes the
-- standing-by workers.
-- @include record
-- @include notify
-- @include recover
redis.replicate_commands()
local k_due, k_leases, k_jobs, k_meta, k_dead = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local want, lease_ms, lookahead = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
math.randomseed(tonumber(ARGV[7]))
local now_micros = now_us()
local now = math.floor(now_micros / 1000)

local recovered, recovered_dead, next_expiry = recover_expired(k_due, k_leases, k_jobs, k_meta, k_dead, ARGV[8],
  now, tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[9]))

local out = { now, -2, next_expiry, recovered, recovered_dead, 0, now_micros }
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
    local expiry = now + lease_ms
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
      if next_expiry < 0 or expiry < next_expiry then out[3] = expiry end
    end
  end
end

local me, standby = ARGV[10], tonumber(ARGV[11])
if claimed < want or want == 0 then
  local h = redis.call('ZRANGE', k_due, 0, 0, 'WITHSCORES')
  local next_due = h[2] and tonumber(h[2]) or -1
  out[2] = next_due
  if next_due >= 0 and want > 0 and me ~= '' then
    local w = redis.call('HMGET', k_meta, 'waker', 'wake_at')
    local at = tonumber(w[2])
    if w[1] and w[1] ~= me and at and at <= next_due and at >= now - standby / 2 then
      out[6] = 1
    elseif w[1] ~= me or at ~= next_due then
      redis.call('HSET', k_meta, 'waker', me, 'wake_at', int(next_due))
    end
  end
elseif me ~= '' and redis.call('HGET', k_meta, 'waker') == me then
  redis.call('HDEL', k_meta, 'waker', 'wake_at')
  redis.call('PUBLISH', ARGV[8], '0')
end
return out
