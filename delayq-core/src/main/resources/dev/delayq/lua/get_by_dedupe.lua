-- get_by_dedupe: the job that holds a dedupe key (or held it: a key that holds after its job ended names that job),
-- with its full state, read atomically as get does (see includes/get.lua).
-- KEYS[1] jobs hash   KEYS[2] due zset   KEYS[3] leases zset   KEYS[4] done zset   KEYS[5] dead zset
-- KEYS[6] dedupe holds zset   KEYS[7] priority due zset   KEYS[8] progress hash   KEYS[9] dedupe hash
-- KEYS[10] results hash
-- ARGV[1] dedupe key   ARGV[2] most payload bytes (-1: whole)
-- Returns { record, time, state, hold, progress, payload_bytes, result, id } as get.lua with the job's id, or {} when the key
--   names no job or there is no such job.
-- @include record
-- @include page
-- @include get
local id = redis.call('HGET', KEYS[9], ARGV[1])
if not id then return {} end
local r = get_job(id, ARGV[2], KEYS[10])
if #r == 0 then return r end
r[8] = id
return r
