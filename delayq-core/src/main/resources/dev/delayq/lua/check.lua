-- check: one page of the consistency check; each job is judged in one atomic read of its record and of every
-- index, so concurrent work cannot produce false reports.
-- KEYS[1] jobs hash   KEYS[2] due zset   KEYS[3] leases zset   KEYS[4] done zset   KEYS[5] dead zset
-- KEYS[6] dedupe hash   KEYS[7] dedupe holds zset   KEYS[8] priority due zset   KEYS[9] done batches zset
-- KEYS[10] retrying zset   KEYS[11] deps hash   KEYS[12] waiting zset   KEYS[13] children key prefix   KEYS[14] meta hash
-- ARGV[1] phase: what to scan (data, not a verb: every phase answers alike): "jobs" (every record against the indexes), "due", "prio", "leases", "done", "batches" (the
--   done batch entries, id by id), "dead" (every index entry against its record), "dedupe" (every dedupe key
--   against the job it names) or "retrying" (every retrying entry still to come against its job: scheduled, due at
--   that time; entries already past count for nothing and are left to fail.lua's trim) or "waiting" (every entry of
--   the waiting index against its job, waiting; and, on its first page, the index against meta's count). A waiting job
--   is judged by the "jobs" phase against its flow links (deps.lua): its counters, its entry in each pending parent's
--   children set, and that some parent is still pending. "ring" and "groups" (groups.lua): every member of the groups'
--   ring and of the waiting groups has scheduled jobs in its lane (the ring's member '' is the ungrouped jobs' lane);
--   the "prio" phase checks that each grouped job's group is in one of the two, so that claims reach it.
-- ARGV[2] scan cursor   ARGV[3] entries to scan   ARGV[4] most record bytes to read in this call
-- Returns { next_cursor, scanned, problem_1, ... } with each problem as "<id or key>: <what is wrong>".
-- @include record
-- @include deps
local k_jobs, k_due, k_leases, k_done, k_dead, k_dedupe, k_holds = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7]
local phase, cursor = ARGV[1], ARGV[2]
local want, max_bytes = whole(ARGV[3], 1, 100000), whole(ARGV[4], 1, 2 ^ 40)
if not (want and max_bytes) then return { -6, 'malformed check arguments' } end
local names = { 'scheduled', 'processing', 'done', 'dead', 'done', 'waiting' }
local problems = {}
local function problem(id, text) problems[#problems + 1] = id .. ': ' .. text end

local scanned, bytes = 0, 0
-- A waiting job (deps.lua): in the waiting index, with counters that name as many pending parents as still wait on it
-- (a parent not finished whose children set holds it, or a remote parent it lists), at least one.
local function judge_waiting(id, r)
  local d = { deps = KEYS[11] }
  local n = deps_node(d, id)
  if not redis.call('ZSCORE', KEYS[12], id) then problem(id, 'waiting but missing from the waiting index') end
  if not n then
    problem(id, 'waiting without its parent counters')
    return
  end
  local ps, m, pending = redis.call('HGET', KEYS[11], 'p\0' .. id) or '', member(r.seq, id), 0
  for p in string.gmatch(ps, '[^\1]+') do
    local pr = safe_decode(record_of(k_jobs, p))
    if pr and (pr.state == SCHEDULED or pr.state == PROCESSING or pr.state == WAITING)
        and redis.call('SISMEMBER', KEYS[13] .. p, m) == 1 then
      pending = pending + 1
    end
  end
  -- Its remote parents (remote.lua) are in other slots, which this script cannot read: each one listed counts.
  local rv = redis.call('HGET', KEYS[11], 'r\0' .. id)
  if rv then
    for _ in string.gmatch(rv, '[^\1]+') do pending = pending + 1 end
    pending = pending - 1 -- the link id
  end
  if pending == 0 then
    problem(id, 'waiting but all its parents have finished')
  elseif pending ~= n.pending then
    problem(id, 'counts ' .. n.pending .. ' pending parents but ' .. pending .. ' are')
  end
end

local function judge_record(id, raw)
  scanned = scanned + 1
  bytes = bytes + #raw
  local r = safe_decode(raw)
  if not r then
    problem(id, 'record cannot be decoded')
    return
  end
  local in_due = redis.call('ZSCORE', (r.priority > 0 or r.group) and KEYS[8] or k_due, member(r.seq, id)) ~= false
  local in_lease = redis.call('ZSCORE', k_leases, id) ~= false
  local in_done = redis.call('ZSCORE', k_done, id) ~= false
  if r.finished then
    local listed = 0
    for _, m in ipairs(redis.call('ZRANGEBYSCORE', KEYS[9], int(r.finished), int(r.finished))) do
      if batch_find(m, id) then listed = listed + 1 end
    end
    if in_done or listed > 1 then problem(id, 'listed ' .. listed + (in_done and 1 or 0) .. ' times in the done index') end
    in_done = listed > 0
  end
  local in_dead = redis.call('ZSCORE', k_dead, id) ~= false
  local want_in = { r.state == SCHEDULED, r.state == PROCESSING, r.state == DONE, r.state == DEAD }
  local have = { in_due, in_lease, in_done, in_dead }
  for s = 1, 4 do
    if want_in[s] and not have[s] then
      problem(id, 'state ' .. names[r.state] .. ' but missing from the ' .. names[s] .. ' index')
    elseif have[s] and not want_in[s] then
      problem(id, 'state ' .. names[r.state] .. ' but present in the ' .. names[s] .. ' index')
    end
  end
  if r.state == WAITING then judge_waiting(id, r) end
  if r.state == PROCESSING and not r.token then problem(id, 'processing without a token') end
  if r.max > 0 and r.attempt > r.max then problem(id, 'attempt ' .. r.attempt .. ' exceeds max ' .. r.max) end
  if r.dedupe and (r.state == SCHEDULED or r.state == PROCESSING)
      and redis.call('HGET', k_dedupe, r.dedupe) == id and redis.call('ZSCORE', k_holds, r.dedupe) then
    problem(id, 'active, but its dedupe key has a hold as if it had ended')
  end
end

if phase == 'jobs' then
  -- HSCAN returns whole records: small steps, so that a page of large payloads stays within max_bytes.
  repeat
    local reply = redis.call('HSCAN', k_jobs, cursor, 'COUNT', 10)
    cursor = reply[1]
    local kv = reply[2]
    for i = 1, #kv, 2 do
      local field, raw = kv[i], kv[i + 1]
      if string.sub(field, 1, 1) == OVERLAY then -- a lease overlay (record.lua): judged with its record
        if redis.call('HEXISTS', k_jobs, string.sub(field, 2)) == 0 then
          problem(string.sub(field, 2), 'lease overlay without a record')
        end
      else
        local ov = redis.call('HGET', k_jobs, OVERLAY .. field)
        local own = ov and safe_decode(raw)
        if own and (own.state ~= SCHEDULED or own.token) then -- only a fresh record carries an overlay
          problem(field, 'lease overlay beside a record that was rewritten (' .. names[own.state] .. ')')
        end
        judge_record(field, ov and with_overlay(raw, ov) or raw)
      end
    end
  until cursor == '0' or scanned >= want or bytes >= max_bytes
elseif phase == 'batches' then
  -- An entry at a time (COUNT is a hint; a set small enough to be one listpack comes whole): an entry holds up to a
  -- complete call's jobs, whose records are read.
  local reply = redis.call('ZSCAN', KEYS[9], cursor, 'COUNT', 1)
  cursor = reply[1]
  local ms = reply[2]
  for i = 1, #ms, 2 do
    local score = tonumber(ms[i + 1])
    for _, id in ipairs(batch_ids(ms[i])) do
      scanned = scanned + 1
      local raw = record_of(k_jobs, id)
      if not raw then
        problem(id, 'in a done batch entry without a record')
      elseif finish_in(raw) ~= score then
        local r = safe_decode(raw)
        if r then -- (one that cannot be decoded is reported once, by the "jobs" phase)
          problem(id, 'in a done batch entry but its record is ' .. names[r.state] .. (r.finished and ' at another finish time' or ''))
        end
      end
    end
  end
elseif phase == 'retrying' then
  local now = now_ms()
  local reply = redis.call('ZSCAN', KEYS[10], cursor, 'COUNT', want)
  cursor = reply[1]
  local ms = reply[2]
  for i = 1, #ms, 2 do
    local id, at = ms[i], tonumber(ms[i + 1])
    scanned = scanned + 1
    if at > now then
      local r = safe_decode(record_of(k_jobs, id))
      if not r then
        problem(id, 'in the retrying index without a (readable) record')
      elseif r.state ~= SCHEDULED then
        problem(id, 'in the retrying index but its state is ' .. names[r.state])
      else
        local score = tonumber(redis.call('ZSCORE', (r.priority > 0 or r.group) and KEYS[8] or k_due, member(r.seq, id)))
        local due = score and score % 2 ^ 48
        if due and due ~= at then -- (a job missing from the due set is reported by the "jobs" phase)
          problem(id, 'in the retrying index at ' .. int(at) .. ' but due at ' .. int(due))
        end
      end
    end
  end
elseif phase == 'dedupe' then
  local reply = redis.call('HSCAN', k_dedupe, cursor, 'COUNT', want)
  cursor = reply[1]
  local kv = reply[2]
  for i = 1, #kv, 2 do
    scanned = scanned + 1
    local key, id = kv[i], kv[i + 1]
    local held = redis.call('ZSCORE', k_holds, key)
    local r = safe_decode(record_of(k_jobs, id))
    if not held and not r then
      problem(key, 'dedupe key names job ' .. id .. ', which does not exist, and holds without an end')
    elseif not held and r and r.state ~= SCHEDULED and r.state ~= PROCESSING then
      problem(key, 'dedupe key names job ' .. id .. ', which has ended (' .. names[r.state] .. '), and holds without an end')
    end
  end
elseif phase == 'ring' or phase == 'groups' then
  -- groups.lua's keys, named after the due set's (same hash tag)
  local reply = redis.call('ZSCAN', k_due .. (phase == 'ring' and ':groups:ring' or ':groups'), cursor, 'COUNT', want)
  cursor = reply[1]
  local ms = reply[2]
  for i = 1, #ms, 2 do
    scanned = scanned + 1
    local g = ms[i]
    if g ~= '' and redis.call('EXISTS', k_due .. ':g:' .. g) == 0 then
      problem('group ' .. g, (phase == 'ring' and 'in the ring' or 'among the waiting groups') .. ' without a scheduled job')
    end
  end
else
  local index = { due = k_due, prio = KEYS[8], leases = k_leases, done = k_done, dead = k_dead, waiting = KEYS[12] }
  local state = { due = SCHEDULED, prio = SCHEDULED, leases = PROCESSING, done = DONE, dead = DEAD, waiting = WAITING }
  if phase == 'waiting' and cursor == '0' then
    local counted, listed = tonumber(redis.call('HGET', KEYS[14], 'waiting') or '0'), redis.call('ZCARD', KEYS[12])
    if counted ~= listed then problem('waiting', 'meta counts ' .. counted .. ' waiting jobs but the index holds ' .. listed) end
  end
  if not index[phase] then return { -6, 'unknown check phase' } end
  local reply = redis.call('ZSCAN', index[phase], cursor, 'COUNT', want)
  cursor = reply[1]
  local ms = reply[2]
  for i = 1, #ms, 2 do
    local id = (phase == 'due' or phase == 'prio') and member_id(ms[i]) or ms[i]
    scanned = scanned + 1
    local raw = record_of(k_jobs, id)
    if not raw then
      problem(id, 'in the ' .. phase .. ' index without a record')
    else
      local r = safe_decode(raw)
      if not r then
        -- reported once, by the "jobs" phase
      elseif r.state ~= state[phase] then
        problem(id, 'in the ' .. phase .. ' index but its state is ' .. names[r.state])
      elseif (phase == 'due' or phase == 'prio') and member(r.seq, id) ~= ms[i] then
        problem(id, 'stale due-set entry (its record names another sequence)')
      elseif (phase == 'due' or phase == 'prio') and (phase == 'prio') ~= (r.priority > 0 or r.group ~= nil) then
        problem(id, 'priority ' .. r.priority .. ' but in the ' .. phase .. ' index')
      elseif phase == 'prio' and r.group and not redis.call('ZSCORE', k_due .. ':g:' .. r.group, ms[i]) then -- groups.lua's lane
        problem(id, 'of group ' .. r.group .. ' but not in its lane')
      elseif phase == 'prio' and r.group and not redis.call('ZSCORE', k_due .. ':groups:ring', r.group)
          and not redis.call('ZSCORE', k_due .. ':groups', r.group) then
        problem(id, 'of group ' .. r.group .. ', which is neither in the ring nor among the waiting groups: claims never reach it')
      end
    end
  end
end
local out = { cursor, scanned }
for i = 1, #problems do out[#out + 1] = problems[i] end
return out
