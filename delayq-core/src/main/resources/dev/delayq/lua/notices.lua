-- notices: the outbox of this key set's notices to children in other key sets (includes/remote.lua): acknowledge the
-- ones applied, put back the ones to try again later, and read the next ones due.
-- KEYS[1] children key prefix (the outbox is the zset named by the prefix itself: score = when to try it next, ms)
-- ARGV[1] max notices to return   ARGV[2] retry ms: when a notice put back is tried again
-- ARGV[3] acks: how many notices to acknowledge (a), then the a notices to acknowledge (remove), then those to put back
-- Returns { now ms, notice_1, ... }: the notices due, oldest first. A notice is
--   outcome ("d" done, "x" dead) NUL written ms NUL parent id NUL child key set NUL child id NUL link id NUL ref.
-- @include record
redis.replicate_commands()
local k = KEYS[1]
local max, later, a = whole(ARGV[1], 1, 10000), whole(ARGV[2], 0, 2 ^ 40), whole(ARGV[3], 0, 10000)
if not (max and later and a) or #ARGV < 3 + a then return { -6, 'malformed notices arguments' } end
local now = now_ms()
if a > 0 then redis.call('ZREM', k, unpack(ARGV, 4, 3 + a)) end
for i = 4 + a, #ARGV do redis.call('ZADD', k, 'XX', int(now + later), ARGV[i]) end
local out = redis.call('ZRANGEBYSCORE', k, '-inf', int(now), 'LIMIT', '0', int(max))
table.insert(out, 1, now)
return out
