-- recover: return jobs whose lease expired to the due set (or to dead), without claiming anything.
-- Workers also do this inside every claim; this script is for running recovery on its own.
-- KEYS[1] due zset   KEYS[2] leases zset   KEYS[3] jobs hash   KEYS[4] meta hash   KEYS[5] dead zset
-- ARGV[1] max leases to recover   ARGV[2] backoff base ms   ARGV[3] backoff cap ms   ARGV[4] random seed
-- ARGV[5] wake channel   ARGV[6] default max attempts (for records that carry 0)
-- Returns { recovered, dead, next_expiry (-1 when no lease is held; now when more are expired) }
-- @include record
-- @include notify
-- @include recover
redis.replicate_commands()
math.randomseed(tonumber(ARGV[4]))
local recovered, dead, next_expiry = recover_expired(KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], ARGV[5],
  now_ms(), tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[6]))
return { recovered, dead, next_expiry }
