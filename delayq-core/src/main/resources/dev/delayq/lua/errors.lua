-- errors: a job's error history as fail.lua keeps it (its last {{MAX_ERRORS}} failures, newest first), one read.
-- KEYS[1] errors hash   KEYS[2] jobs hash
-- ARGV[1] id
-- Returns { history }: the entries, each attempt ":" time ms ":" byte length ":" error summary ("" when the job never
--   failed, or there is no such job: a history an earlier version left behind when it deleted the record is not shown;
--   the record itself is not read, only whether it exists).
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 0 then return { '' } end
return { redis.call('HGET', KEYS[1], ARGV[1]) or '' }
