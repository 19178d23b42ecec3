-- progress: what a running job's handler reports about its progress (a percentage or a small JSON text), kept while
-- the job runs (complete, fail, release and recovery delete it) and shown by get.
-- KEYS[1] jobs hash   KEYS[2] progress hash   KEYS[3] meta hash   KEYS[4] events stream
-- ARGV[1] id   ARGV[2] token of the lease   ARGV[3] progress (at most {{MAX_PROGRESS_BYTES}} bytes)
-- Returns { code }: 1 recorded; { -1 } no such job; { -2 } stale: the token is not the job's current lease.
-- @include record
-- @include notify
-- @include flow
local id, token = ARGV[1], whole(ARGV[2], 0, 2 ^ 53)
if not token or #ARGV[3] > {{MAX_PROGRESS_BYTES}} then return { -6, 'malformed progress arguments' } end
local raw = record_of(KEYS[1], id)
if not raw then return { -1 } end
local r = safe_decode(raw)
if not r or r.state ~= PROCESSING or r.token ~= token then return { -2 } end
redis.call('HSET', KEYS[2], id, ARGV[3])
local cfg = flow_config(KEYS[3])
if not cfg.progress then redis.call('HSET', KEYS[3], 'progress', 1) end -- from now on, complete clears progress
emit(KEYS[4], cfg, 'progress', id, 'progress', ARGV[3])
return { 1 }
