-- recover: return jobs whose lease expired to the due set (or to dead), without claiming anything.
-- Workers also do this inside every claim; this script is for running recovery on its own.
-- KEYS[1] due zset   KEYS[2] leases zset   KEYS[3] jobs hash   KEYS[4] meta hash   KEYS[5] dead zset
-- KEYS[6] dedupe hash   KEYS[7] dedupe holds zset   KEYS[8] history hash   KEYS[9] priority due zset
-- KEYS[10] events stream   KEYS[11] progress hash   KEYS[12] deps hash   KEYS[13] waiting zset
-- KEYS[14] children key prefix
-- ARGV[1] max leases to recover   ARGV[2] backoff base ms   ARGV[3] backoff cap ms   ARGV[4] random seed
-- ARGV[5] wake channel   ARGV[6] max stalls (expired leases) before a job goes dead
-- Returns { recovered, dead, next_expiry (-1 when no lease is held; now when more are expired) };
--   { -6, what } (BAD_ARGUMENT, nothing written) when an argument is malformed.
-- @include record
-- @include notify
-- @include flow
-- @include groups
-- @include jobs
-- @include deps
-- @include recover
redis.replicate_commands()
local limit, base, cap = whole(ARGV[1], 1, {{MAX_BATCH}}), whole(ARGV[2], 0, 2 ^ 40), whole(ARGV[3], 0, 2 ^ 40)
local seed, max_stalls = whole(ARGV[4], 0, 2 ^ 31), whole(ARGV[6], 0, {{MAX_ATTEMPTS}})
if not (limit and base and cap and seed and max_stalls) then return { -6, 'malformed recover arguments' } end
math.randomseed(seed)
local k = { due = KEYS[1], leases = KEYS[2], jobs = KEYS[3], meta = KEYS[4], dead = KEYS[5], dedupe = KEYS[6],
  holds = KEYS[7], history = KEYS[8], prio = KEYS[9], events = KEYS[10], progress = KEYS[11], deps = KEYS[12],
  waiting = KEYS[13], children = KEYS[14] }
k.cfg = flow_config(k.meta)
local recovered, dead, next_expiry = recover_expired(k, ARGV[5], now_ms(), limit, base, cap, max_stalls)
return { recovered, dead, next_expiry }
