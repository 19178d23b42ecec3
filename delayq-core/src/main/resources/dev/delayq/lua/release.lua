-- release: hand leased jobs back unfinished (graceful shutdown), each fenced by its token.
-- The attempt is not counted and the job keeps its due time, so it is claimable again at once.
-- KEYS[1] leases zset   KEYS[2] jobs hash   KEYS[3] due zset   KEYS[4] meta hash
-- ARGV[1] wake channel   ARGV[2..] pairs: id, token
-- Returns one code per job: 1 handed back, -1 no such job, -2 stale token (nothing changed).
-- @include record
-- @include notify
redis.replicate_commands()
local k_leases, k_jobs, k_due, k_meta = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local n = (#ARGV - 1) / 2
local head_before = head_score(k_due)
local seq = next_seqs(k_meta, n)
local out, released = {}, 0
for i = 1, n do
  local id, token = ARGV[2 * i], tonumber(ARGV[2 * i + 1])
  local raw = redis.call('HGET', k_jobs, id)
  if not raw then
    out[i] = -1
  else
    local r = decode(raw)
    if r.state ~= PROCESSING or r.token ~= token then
      out[i] = -2
    else
      r.state = SCHEDULED
      r.attempt = math.max(r.attempt - 1, 0)
      r.seq = seq + i - 1
      r.token = nil
      redis.call('ZREM', k_leases, id)
      redis.call('HSET', k_jobs, id, encode(r))
      redis.call('ZADD', k_due, int(r.due), member(r.seq, id))
      released = released + 1
      out[i] = 1
    end
  end
end
if released > 0 then publish_if_earlier(k_due, ARGV[1], head_before) end
return out
