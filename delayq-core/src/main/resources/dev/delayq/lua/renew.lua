-- renew: extend the leases of jobs still running (a batch), each fenced by its token.
-- A lease that has already expired is not renewed, even before a claim recovered it: once expired it may be
-- recovered at any moment, so its holder must stop (its completion is still accepted while nobody else holds
-- the job; see RELIABILITY.md).
-- KEYS[1] leases zset   KEYS[2] jobs hash
-- ARGV[1] lease ms   ARGV[2..] per lease: id, token
-- Returns { expiry, code_1, ... }: the new expiry ms, then per job 1 renewed, -1 no such job,
--   -2 stale (the lease is lost: it expired, or the job was recovered, re-leased or finished; the holder must
--   stop); { -6, what } (BAD_ARGUMENT, nothing written) when an argument is malformed.
-- @include record
redis.replicate_commands()
local k_leases, k_jobs = KEYS[1], KEYS[2]
local lease_ms = whole(ARGV[1], 1, 2 ^ 40)
local n = (#ARGV - 1) / 2
if not lease_ms or n ~= math.floor(n) then return { -6, 'malformed renew arguments' } end
local ids, tokens = {}, {}
for i = 1, n do
  ids[i] = ARGV[2 * i]
  tokens[i] = whole(ARGV[2 * i + 1], 0, 2 ^ 53)
  if not tokens[i] then return { -6, 'malformed token of job ' .. i } end
end
local now = now_ms()
local expiry = now + lease_ms
if n == 0 then return { expiry } end
local raws = records_of(k_jobs, ids)
local out, leases = { expiry }, {}
for i = 1, n do
  local r = safe_decode(raws[i])
  if not raws[i] then
    out[i + 1] = -1
  elseif r and r.state == PROCESSING and r.token == tokens[i]
      and (tonumber(redis.call('ZSCORE', k_leases, ids[i])) or 0) > now then
    out[i + 1] = 1
    leases[#leases + 1] = expiry
    leases[#leases + 1] = ids[i]
  else
    out[i + 1] = -2
  end
end
if #leases > 0 then redis.call('ZADD', k_leases, unpack(leases)) end
return out
