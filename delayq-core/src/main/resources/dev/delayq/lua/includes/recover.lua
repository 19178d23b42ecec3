-- recover: return jobs whose lease has expired (their worker died or hung) to the due set.
-- The lost attempt counts: the job is rescheduled at now + backoff with error "lease expired", or is
-- dead when it has used all its attempts. Backoff = base * 2^(attempt-1), capped, with full jitter above
-- the base (uniform in [base, capped]), drawn from a seed the client sends (Redis seeds math.random
-- identically for every script, so the seed must come from outside).
-- A record max of 0 means "the claimer's default" (default_max).
-- keys: { due, leases, jobs, meta, dead }; returns recovered, dead
local function backoff_ms(attempt, base, cap)
  local exp = base * math.pow(2, math.max(attempt - 1, 0))
  if exp > cap then exp = cap end
  if exp <= base then return base end
  return math.floor(base + math.random() * (exp - base))
end

local function recover_expired(k_due, k_leases, k_jobs, k_meta, k_dead, now, limit, base, cap, default_max)
  if limit <= 0 then return 0, 0 end
  local ids = redis.call('ZRANGEBYSCORE', k_leases, '-inf', int(now), 'LIMIT', 0, int(limit))
  if #ids == 0 then return 0, 0 end
  local recovered, dead = 0, 0
  local seq = next_seqs(k_meta, #ids)
  for i = 1, #ids do
    local id = ids[i]
    local raw = redis.call('HGET', k_jobs, id)
    redis.call('ZREM', k_leases, id)
    if raw then
      local r = decode(raw)
      if r.state == PROCESSING then
        r.err = 'lease expired'
        if r.attempt >= (r.max > 0 and r.max or default_max) then
          r.state = DEAD
          redis.call('ZADD', k_dead, int(now), id)
          dead = dead + 1
        else
          local due = now + backoff_ms(r.attempt, base, cap)
          r.state = SCHEDULED
          r.seq = seq + i - 1
          r.token = nil
          redis.call('ZADD', k_due, int(due), member(r.seq, id))
          recovered = recovered + 1
        end
        redis.call('HSET', k_jobs, id, encode(r))
      end
    end
  end
  count(k_meta, 'recovered', recovered)
  count(k_meta, 'dead', dead)
  return recovered, dead
end
