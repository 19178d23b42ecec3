-- cancel: delete a scheduled job (payload, record and due-set entry) before it runs.
-- A dedupe key the job was enqueued with keeps holding until its TTL ends, by design.
-- KEYS[1] due zset   KEYS[2] jobs hash   KEYS[3] meta hash
-- ARGV[1] id
-- Returns { 1 } cancelled; { -1 } no such job; { -3, state } the job is not scheduled (not changed).
-- @include record
local raw = redis.call('HGET', KEYS[2], ARGV[1])
if not raw then return { -1 } end
local r = decode(raw)
if r.state ~= SCHEDULED then return { -3, r.state } end
redis.call('ZREM', KEYS[1], member(r.seq, ARGV[1]))
redis.call('HDEL', KEYS[2], ARGV[1])
count(KEYS[3], 'cancelled', 1)
return { 1 }
