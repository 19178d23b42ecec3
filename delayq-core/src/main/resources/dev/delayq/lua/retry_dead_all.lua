-- retry_dead_all: one step of "retry every dead job": up to N dead jobs from a rank of the dead set back in the due
-- set, due now, with a fresh budget of attempts and stalls (see includes/revive.lua). Dead records that cannot be
-- decoded stay, and are stepped over.
-- KEYS[1] dead zset   KEYS[2] due zset   KEYS[3] jobs hash   KEYS[4] meta hash   KEYS[5] dedupe hash
-- KEYS[6] dedupe holds zset   KEYS[7] priority due zset   KEYS[8] events stream
-- ARGV[1] wake channel   ARGV[2] most jobs to move in this call   ARGV[3] rank to start at
-- Returns { moved, dead_left, skipped }; { -6, what } malformed arguments (nothing written).
-- @include record
-- @include notify
-- @include flow
-- @include groups
-- @include jobs
-- @include revive
redis.replicate_commands()
local limit, start = whole(ARGV[2], 1, {{MAX_BATCH}}), whole(ARGV[3], 0, 2 ^ 40)
if not (limit and start) then return { -6, 'malformed retry limit' } end
local ids = redis.call('ZRANGE', KEYS[1], start, start + limit - 1)
local moved, skipped = revive(ids, records_of(KEYS[3], ids), ARGV[1])
return { moved, redis.call('ZCARD', KEYS[1]), skipped }
