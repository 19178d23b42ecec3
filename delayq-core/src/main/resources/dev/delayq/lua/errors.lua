-- errors: a job's error history as fail.lua keeps it (its last {{MAX_ERRORS}} failures, newest first), one read.
-- KEYS[1] errors hash
-- ARGV[1] id
-- Returns { history }: the entries, each attempt ":" time ms ":" byte length ":" error summary ("" when the job never
--   failed, or there is no such job).
return { redis.call('HGET', KEYS[1], ARGV[1]) or '' }
