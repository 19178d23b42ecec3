-- reschedule: move a scheduled job to a new due time (it goes behind jobs already due at that ms).
-- KEYS[1] due zset   KEYS[2] jobs hash   KEYS[3] meta hash   KEYS[4] priority due zset   KEYS[5] events stream
-- KEYS[6] retrying zset
-- ARGV[1] id   ARGV[2] when ("d<ms>" delay on Redis's clock, "a<ms>" absolute due ms)   ARGV[3] wake channel
-- Returns { code, due }: code 1 moved; { -1 } no such job; { -3, state } not scheduled; { -5 } due beyond year 9999;
--   { -7 } the record cannot be decoded (nothing changed).
-- (its common part with reschedule_by_dedupe: includes/reschedule.lua)
-- @include record
-- @include notify
-- @include flow
-- @include groups
-- @include reschedule
redis.replicate_commands()
return reschedule_job(ARGV[1], ARGV[2], ARGV[3])
