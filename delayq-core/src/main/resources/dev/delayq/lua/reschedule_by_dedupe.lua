-- reschedule_by_dedupe: move the scheduled job that holds a dedupe key to a new due time, as reschedule does (see
-- includes/reschedule.lua).
-- KEYS[1] due zset   KEYS[2] jobs hash   KEYS[3] meta hash   KEYS[4] priority due zset   KEYS[5] events stream
-- KEYS[6] retrying zset   KEYS[7] dedupe hash
-- ARGV[1] dedupe key   ARGV[2] when ("d<ms>" delay on Redis's clock, "a<ms>" absolute due ms)   ARGV[3] wake channel
-- Returns { code, due, id }: code 1 moved (id: the job's); { -1 } the key names no job, or no such job; { -3, state }
--   not scheduled; { -5 } due beyond year 9999; { -7 } the record cannot be decoded (nothing changed).
-- @include record
-- @include notify
-- @include flow
-- @include reschedule
redis.replicate_commands()
local id = redis.call('HGET', KEYS[7], ARGV[1])
if not id then return { -1 } end
local r = reschedule_job(id, ARGV[2], ARGV[3])
if r[1] == 1 then r[3] = id end
return r
