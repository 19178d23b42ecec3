-- enqueue: create a batch of jobs, each with an optional dedupe key, in one atomic step.
-- KEYS[1]    jobs hash         KEYS[2] due zset        KEYS[3] meta hash
-- KEYS[4..]  dedupe keys (STRING holding the owning job id, with a TTL), indexed from the job arguments
-- ARGV[1]    wake channel      ARGV[2] n (jobs in this call)
-- ARGV[3 + 4(i-1) ...] per job i:
--   id | payload | when ("d<ms>" delay on Redis's clock, "a<ms>" absolute due ms)
--   | options: "" for none, else "<max attempts>,<dedupe key index into KEYS or 0>,<dedupe ttl ms>,<g>" where
--     g = 1 when the client made the id up (so an existing one can only be this call replayed)
-- Returns { -5, i } (nothing written) when job i's due time would fall beyond year 9999; otherwise the
--   duplicates only, as { i, owner id, ... } (every job not listed was created).
-- @include record
-- @include notify
redis.replicate_commands()
local k_jobs, k_due, k_meta = KEYS[1], KEYS[2], KEYS[3]
local channel, n = ARGV[1], tonumber(ARGV[2])
local now_micros = now_us()

-- Validate every job before writing anything: the batch is all or nothing.
local dues = {}
for i = 1, n do
  local due = due_from(ARGV[3 + 4 * (i - 1) + 2], now_micros)
  if not due then return { -5, i } end
  dues[i] = due
end

local out = {}
local members = {}
local taken_keys = {}
local created = 0
local seq = next_seqs(k_meta, n)
local head_before = head_score(k_due)
for i = 1, n do
  local a = 3 + 4 * (i - 1)
  local id = ARGV[a]
  local max, dk, ttl, generated = 0, 0, nil, false
  if ARGV[a + 3] ~= '' then
    local m, d, t, g = string.match(ARGV[a + 3], '^(%d+),(%d+),(%d+),(%d)$')
    max, dk, ttl, generated = tonumber(m), tonumber(d), t, g == '1'
  end
  local owner = nil
  if dk > 0 then
    owner = taken_keys[dk] or redis.call('GET', KEYS[dk])
  end
  local s = seq + i - 1
  -- HSETNX both checks that the id is free and writes the record, in one call.
  if not owner and redis.call('HSETNX', k_jobs, id, fresh_record(ARGV[a + 1], max, s)) == 0 then
    owner = id
  end
  if owner then
    -- A generated id found again is this very request replayed after a lost reply (random 71-bit ids do
    -- not collide in practice), so it counts as created, as the first execution did.
    if not (generated and owner == id) then
      out[#out + 1] = i
      out[#out + 1] = owner
    end
  else
    members[#members + 1] = dues[i]
    members[#members + 1] = member(s, id)
    if dk > 0 then
      redis.call('SET', KEYS[dk], id, 'PX', ttl)
      taken_keys[dk] = id
    end
    created = created + 1
  end
end
if created > 0 then
  redis.call('ZADD', k_due, unpack(members))
  count(k_meta, 'enqueued', created)
  publish_if_earlier(k_due, channel, head_before)
end
return out
