-- enqueue: create a batch of jobs, each with an optional dedupe key, in one atomic step.
-- KEYS[1]    jobs hash         KEYS[2] due zset        KEYS[3] meta hash
-- KEYS[4..]  dedupe keys (STRING holding the owning job id, with a TTL), indexed from the job arguments
-- ARGV[1]    wake channel      ARGV[2] n (jobs in this call)
-- ARGV[3 + 7(i-1) ...] per job i:
--   id | generated ("1": the client made the id up, so an existing one can only be this call replayed)
--   | payload | when ("d<ms>" delay on Redis's clock, "a<ms>" absolute due ms) | max attempts
--   | dedupe key index into KEYS (0 = none) | dedupe ttl ms
-- Returns { 1 | 0 (created | duplicate), id, ... } per job, the id being the existing job's on a duplicate;
--   { -5, i } (nothing written) when job i's due time would fall beyond year 9999.
-- @include record
-- @include notify
redis.replicate_commands()
local k_jobs, k_due, k_meta = KEYS[1], KEYS[2], KEYS[3]
local channel, n = ARGV[1], tonumber(ARGV[2])
local now = now_ms()

-- Validate every job before writing anything: the batch is all or nothing.
local dues = {}
for i = 1, n do
  local due = due_from(ARGV[3 + 7 * (i - 1) + 3], now)
  if not due then return { -5, i } end
  dues[i] = due
end

local out = {}
local fields, members = {}, {}
local taken_ids, taken_keys = {}, {}
local created = 0
local seq = next_seqs(k_meta, n)
local head_before = head_score(k_due)
for i = 1, n do
  local a = 3 + 7 * (i - 1)
  local id, generated, payload = ARGV[a], ARGV[a + 1] == '1', ARGV[a + 2]
  local max, dk, ttl = tonumber(ARGV[a + 4]), tonumber(ARGV[a + 5]), ARGV[a + 6]
  local owner = nil
  if dk > 0 then
    owner = taken_keys[dk] or redis.call('GET', KEYS[dk])
  end
  if not owner and (taken_ids[id] or redis.call('HEXISTS', k_jobs, id) == 1) then
    owner = id
  end
  if owner then
    -- A generated id found again is this very request replayed after a lost reply (random 71-bit ids do
    -- not collide in practice), so it reports created, as the first execution did.
    out[#out + 1] = (generated and owner == id) and 1 or 0
    out[#out + 1] = owner
  else
    local s = seq + i - 1
    fields[#fields + 1] = id
    fields[#fields + 1] = encode(fresh(payload, max, s))
    members[#members + 1] = int(dues[i])
    members[#members + 1] = member(s, id)
    taken_ids[id] = true
    if dk > 0 then
      redis.call('SET', KEYS[dk], id, 'PX', ttl)
      taken_keys[dk] = id
    end
    created = created + 1
    out[#out + 1] = 1
    out[#out + 1] = id
  end
end
if created > 0 then
  redis.call('HSET', k_jobs, unpack(fields))
  redis.call('ZADD', k_due, unpack(members))
  count(k_meta, 'enqueued', created)
  publish_if_earlier(k_due, channel, head_before)
end
return out
