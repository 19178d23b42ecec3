-- worker_gone: remove one worker from its queue's worker registry at once (its graceful close), instead of waiting
-- for its heartbeat to expire.
-- KEYS[1] workers zset (member = worker id, score = expiry ms)
-- KEYS[2] workers info hash (worker id -> beat ms and info)
-- ARGV[1] worker id
-- Returns { removed (1 when the worker was registered, else 0) }, or { -6, message } for malformed arguments.
if ARGV[1] == nil or ARGV[1] == '' then
  return { -6, 'malformed worker_gone arguments' }
end
local removed = redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
return { removed }
