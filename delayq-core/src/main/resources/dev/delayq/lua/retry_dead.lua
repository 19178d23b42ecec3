-- retry_dead: put dead jobs back in the due set, due now, with a fresh budget of attempts.
-- KEYS[1] dead zset   KEYS[2] due zset   KEYS[3] jobs hash   KEYS[4] meta hash
-- ARGV[1] wake channel   ARGV[2] "id" or "all"   ARGV[3] the id, or the most to move in this call
-- Returns { moved, dead_left }; for "id": { -1 } no such job, { -3, state } not dead.
-- @include record
-- @include notify
redis.replicate_commands()
local k_dead, k_due, k_jobs, k_meta = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local ids
if ARGV[2] == 'id' then
  local raw = redis.call('HGET', k_jobs, ARGV[3])
  if not raw then return { -1 } end
  local st = decode(raw).state
  if st ~= DEAD then return { -3, st } end
  ids = { ARGV[3] }
else
  ids = redis.call('ZRANGE', k_dead, 0, tonumber(ARGV[3]) - 1)
end
local moved = 0
if #ids > 0 then
  local now = now_ms()
  local head_before = head_score(k_due)
  local seq = next_seqs(k_meta, #ids)
  for i = 1, #ids do
    local raw = redis.call('HGET', k_jobs, ids[i])
    redis.call('ZREM', k_dead, ids[i])
    if raw then
      local r = decode(raw)
      r.state = SCHEDULED
      r.attempt = 0
      r.seq = seq + i - 1
      r.token = nil
      redis.call('HSET', k_jobs, ids[i], encode(r))
      redis.call('ZADD', k_due, int(now), member(r.seq, ids[i]))
      moved = moved + 1
    end
  end
  publish_if_earlier(k_due, ARGV[1], head_before)
end
return { moved, redis.call('ZCARD', k_dead) }
