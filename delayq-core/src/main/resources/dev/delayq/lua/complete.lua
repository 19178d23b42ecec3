-- complete: acknowledge finished jobs (a batch), each fenced by the token of its lease.
-- KEYS[1] leases zset   KEYS[2] jobs hash   KEYS[3] done zset   KEYS[4] meta hash
-- ARGV[1] done retention ms (0: delete the record at once)   ARGV[2..] pairs: id, token
-- Returns one code per job: 1 completed; 2 already completed with this token (a replayed call);
--   -1 no such job; -2 stale: the token is not the job's current lease (it was recovered, re-leased
--   or finished by someone else), nothing changed.
-- @include record
redis.replicate_commands()
local k_leases, k_jobs, k_done, k_meta = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local keep = tonumber(ARGV[1]) > 0
local n = (#ARGV - 1) / 2
local ids = {}
for i = 1, n do ids[i] = ARGV[2 * i] end
local raws = redis.call('HMGET', k_jobs, unpack(ids))
local now = now_ms()
local out, fields, finished, dels, dones = {}, {}, {}, {}, {}
for i = 1, n do
  local raw, token = raws[i], tonumber(ARGV[2 * i + 1])
  if not raw then
    out[i] = -1
  else
    local r = decode(raw)
    if r.token ~= token then
      out[i] = -2
    elseif r.state == DONE then
      out[i] = 2
    elseif r.state ~= PROCESSING then
      out[i] = -2
    else
      out[i] = 1
      finished[#finished + 1] = ids[i]
      if keep then
        fields[#fields + 1] = ids[i]
        fields[#fields + 1] = with_state(r, DONE)
        dones[#dones + 1] = now
        dones[#dones + 1] = ids[i]
      else
        dels[#dels + 1] = ids[i]
      end
    end
  end
end
if #finished > 0 then
  redis.call('ZREM', k_leases, unpack(finished))
  if #fields > 0 then
    redis.call('HSET', k_jobs, unpack(fields))
    redis.call('ZADD', k_done, unpack(dones))
  end
  if #dels > 0 then redis.call('HDEL', k_jobs, unpack(dels)) end
  count(k_meta, 'completed', #finished)
end
return out
