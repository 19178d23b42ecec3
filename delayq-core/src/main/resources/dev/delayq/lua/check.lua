-- check: one page of the consistency check; each job is judged in one atomic read of its record and
-- of every index, so concurrent work cannot produce false reports.
-- KEYS[1] jobs hash   KEYS[2] due zset   KEYS[3] leases zset   KEYS[4] done zset   KEYS[5] dead zset
-- ARGV[1] what to scan: "jobs" (every record against the indexes) or "due", "leases", "done", "dead"
--   (every index entry against its record)   ARGV[2] scan cursor   ARGV[3] scan count
-- Returns { next_cursor, scanned, problem, ... } with each problem as "<id>: <what is wrong>".
-- @include record
local k_jobs, k_due, k_leases, k_done, k_dead = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local phase = ARGV[1]
local names = { 'scheduled', 'processing', 'done', 'dead' }
local problems = {}
local function problem(id, text) problems[#problems + 1] = id .. ': ' .. text end

local function safe_decode(id, raw)
  local ok, r = pcall(decode, raw)
  if not ok or r.state < 1 or r.state > 4 then
    problem(id, 'record cannot be decoded')
    return nil
  end
  return r
end

local scanned = 0
local reply
if phase == 'jobs' then
  reply = redis.call('HSCAN', k_jobs, ARGV[2], 'COUNT', ARGV[3])
  local kv = reply[2]
  for i = 1, #kv, 2 do
    local id = kv[i]
    scanned = scanned + 1
    local r = safe_decode(id, kv[i + 1])
    if r then
      local in_due = redis.call('ZSCORE', k_due, member(r.seq, id)) ~= false
      local in_lease = redis.call('ZSCORE', k_leases, id) ~= false
      local in_done = redis.call('ZSCORE', k_done, id) ~= false
      local in_dead = redis.call('ZSCORE', k_dead, id) ~= false
      local want = { r.state == SCHEDULED, r.state == PROCESSING, r.state == DONE, r.state == DEAD }
      local have = { in_due, in_lease, in_done, in_dead }
      for s = 1, 4 do
        if want[s] and not have[s] then
          problem(id, 'state ' .. names[r.state] .. ' but missing from the ' .. names[s] .. ' index')
        elseif have[s] and not want[s] then
          problem(id, 'state ' .. names[r.state] .. ' but present in the ' .. names[s] .. ' index')
        end
      end
      if r.state == PROCESSING and not r.token then problem(id, 'processing without a token') end
      if r.max > 0 and r.attempt > r.max then problem(id, 'attempt ' .. r.attempt .. ' exceeds max ' .. r.max) end
    end
  end
else
  local index = { due = k_due, leases = k_leases, done = k_done, dead = k_dead }
  local state = { due = SCHEDULED, leases = PROCESSING, done = DONE, dead = DEAD }
  reply = redis.call('ZSCAN', index[phase], ARGV[2], 'COUNT', ARGV[3])
  local ms = reply[2]
  for i = 1, #ms, 2 do
    local id = phase == 'due' and member_id(ms[i]) or ms[i]
    scanned = scanned + 1
    local raw = redis.call('HGET', k_jobs, id)
    if not raw then
      problem(id, 'in the ' .. phase .. ' index without a record')
    else
      local r = safe_decode(id, raw)
      if r and r.state ~= state[phase] then
        problem(id, 'in the ' .. phase .. ' index but its state is ' .. names[r.state])
      elseif r and phase == 'due' and member(r.seq, id) ~= ms[i] then
        problem(id, 'stale due-set entry (its record names another sequence)')
      end
    end
  end
end
local out = { reply[1], scanned }
for i = 1, #problems do out[#out + 1] = problems[i] end
return out
