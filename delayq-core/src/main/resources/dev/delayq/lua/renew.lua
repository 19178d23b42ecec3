-- renew: extend the leases of jobs still running (a batch), each fenced by its token.
-- KEYS[1] leases zset   KEYS[2] jobs hash
-- ARGV[1] lease ms   ARGV[2..] pairs: id, token
-- Returns { expiry, code_1, ..., code_n }: the new expiry ms, then per job 1 renewed, -1 no such job,
--   -2 stale (the lease is lost: the job was recovered, re-leased or finished; the holder must stop).
-- @include record
redis.replicate_commands()
local k_leases, k_jobs = KEYS[1], KEYS[2]
local n = (#ARGV - 1) / 2
local ids = {}
for i = 1, n do ids[i] = ARGV[2 * i] end
local raws = redis.call('HMGET', k_jobs, unpack(ids))
local expiry = now_ms() + tonumber(ARGV[1])
local out, leases = { expiry }, {}
for i = 1, n do
  local raw = raws[i]
  if not raw then
    out[i + 1] = -1
  else
    local r = decode(raw)
    if r.state == PROCESSING and r.token == tonumber(ARGV[2 * i + 1]) then
      out[i + 1] = 1
      leases[#leases + 1] = expiry
      leases[#leases + 1] = ids[i]
    else
      out[i + 1] = -2
    end
  end
end
if #leases > 0 then redis.call('ZADD', k_leases, unpack(leases)) end
return out
