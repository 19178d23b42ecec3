-- cancel_by_dedupe: cancel the scheduled job that holds a dedupe key (see includes/remove.lua). The key is released
-- at once.
-- KEYS[1] due zset   KEYS[2] jobs hash   KEYS[3] meta hash   KEYS[4] done zset   KEYS[5] dead zset
-- KEYS[6] dedupe hash   KEYS[7] dedupe holds zset   KEYS[8] leases zset   KEYS[9] priority due zset
-- KEYS[10] events stream   KEYS[11] done batches zset   KEYS[12] retrying zset   KEYS[13] errors hash   KEYS[14] deps hash
-- KEYS[15] waiting zset   KEYS[16] children key prefix   KEYS[17] results hash
-- ARGV[1] dedupe key   ARGV[2] wake channel
-- Returns { code, id }: code 1 removed (id: the job's); { -1 } the key names no job, or no such job; { -3, state }
--   the job is not scheduled (not changed); { -7 } the record cannot be decoded (not changed).
-- @include record
-- @include notify
-- @include flow
-- @include groups
-- @include jobs
-- @include deps
-- @include remove
local id = redis.call('HGET', KEYS[6], ARGV[1])
if not id then return { -1 } end
return remove_job(id, false)
