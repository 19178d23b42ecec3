-- get: one job with its full state, read atomically.
-- KEYS[1] jobs hash   KEYS[2] due zset   KEYS[3] leases zset   KEYS[4] done zset   KEYS[5] dead zset
-- ARGV[1] id
-- Returns {} when there is no such job, else { record, time } where time is the due ms (scheduled),
--   the lease expiry (processing) or the time it finished (done, dead); -1 when the index lacks it.
-- @include record
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if not raw then return {} end
local r = decode(raw)
local score
if r.state == SCHEDULED then
  score = redis.call('ZSCORE', KEYS[2], member(r.seq, ARGV[1]))
elseif r.state == PROCESSING then
  score = redis.call('ZSCORE', KEYS[3], ARGV[1])
elseif r.state == DONE then
  score = redis.call('ZSCORE', KEYS[4], ARGV[1])
else
  score = redis.call('ZSCORE', KEYS[5], ARGV[1])
end
return { raw, score and tonumber(score) or -1 }
