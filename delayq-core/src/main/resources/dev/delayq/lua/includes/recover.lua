-- recover: return jobs whose lease has expired (their worker died or hung) to the due set.
-- The lost attempt counts: the job is rescheduled at now + backoff with error "lease expired", or is
-- dead when it has used all its attempts (a record max of 0 means the caller's default_max).
-- Backoff = base * 2^(attempt-1), capped, with full jitter above the base (uniform in [base, capped]),
-- drawn from a seed the client sends (Redis seeds math.random identically for every script).
--
-- One ZRANGE by rank reads the limit + 1 earliest leases: the expired ones are recovered, and the first
-- one still valid is the next lease expiry. Returns recovered, dead, next_expiry (-1: no lease left;
-- now: more expired leases than the limit are waiting).
local function backoff_ms(attempt, base, cap)
  local exp = base * math.pow(2, math.max(attempt - 1, 0))
  if exp > cap then exp = cap end
  if exp <= base then return base end
  return math.floor(base + math.random() * (exp - base))
end

local function recover_expired(k_due, k_leases, k_jobs, k_meta, k_dead, channel, now, limit, base, cap, default_max)
  local head = redis.call('ZRANGE', k_leases, 0, limit, 'WITHSCORES')
  local ids, next_expiry = {}, -1
  for i = 1, #head, 2 do
    local expiry = tonumber(head[i + 1])
    if expiry > now then
      next_expiry = expiry
      break
    end
    if #ids == limit then
      next_expiry = now
      break
    end
    ids[#ids + 1] = head[i]
  end
  if #ids == 0 then return 0, 0, next_expiry end

  local head_before = head_score(k_due)
  local recovered, dead = 0, 0
  local seq = next_seqs(k_meta, #ids)
  redis.call('ZREM', k_leases, unpack(ids))
  for i = 1, #ids do
    local id = ids[i]
    local raw = redis.call('HGET', k_jobs, id)
    if raw then -- a lease without a record (never written by these scripts) is simply dropped
      local r = decode(raw)
      if r.state == PROCESSING then
        r.err = 'lease expired'
        if r.attempt >= (r.max > 0 and r.max or default_max) then
          r.state = DEAD
          redis.call('ZADD', k_dead, int(now), id)
          dead = dead + 1
        else
          r.state = SCHEDULED
          r.seq = seq + i - 1
          r.token = nil
          redis.call('ZADD', k_due, int(now + backoff_ms(r.attempt, base, cap)), member(r.seq, id))
          recovered = recovered + 1
        end
        redis.call('HSET', k_jobs, id, encode(r))
      end
    end
  end
  count(k_meta, 'recovered', recovered)
  count(k_meta, 'dead', dead)
  if recovered > 0 then publish_if_earlier(k_due, channel, head_before) end
  return recovered, dead, next_expiry
end
