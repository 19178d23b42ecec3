-- enqueue: create a batch of jobs, each with an optional dedupe key, in one atomic step.
-- KEYS[1] jobs hash   KEYS[2] due zset   KEYS[3] meta hash   KEYS[4] dedupe hash   KEYS[5] dedupe holds zset
-- KEYS[6] history hash   KEYS[7] priority due zset   KEYS[8] events stream   KEYS[9] dead zset   KEYS[10] deps hash
-- KEYS[11] waiting zset   KEYS[12] children key prefix   KEYS[13] results hash
-- ARGV[1] wake channel   ARGV[2] n (jobs in this call)
-- ARGV[3..] per job: id, payload, when, options
--   when: "d<ms>" delay on Redis's clock, "a<ms>" absolute due ms; options: "" (none), "g" (none, and the client made the id up), or fields separated by NUL bytes:
--     generated ("1"/"0") NUL max attempts NUL name NUL dedupe key NUL dedupe ttl ms NUL priority NUL timeout ms
--     [NUL traceparent NUL tracestate [NUL tag=value ...]] (empty field = absent; the trace fields for a job carrying
--     a W3C trace context: traceparent 55 characters, tracestate at most 512, both empty for a job with none and
--     tagged fields; tags (read by option_tags, deps.lua): after = parent ids separated by \1 (see deps.lua), remote =
--     parents in other key sets, linked there first (see remote.lua), opd =
--     ignore, mode = debounce or throttle (see includes/debounce.lua; debounce allows a dedupe key without TTL),
--     group = the job's group key (see groups.lua)).
--     A generated id found again can only be this very call
--     replayed after a lost reply (71 random bits do not collide), so it counts as created, as the first execution did.
-- Returns the duplicates and replaced jobs only, as { i_1, owner_id_1, hold_until_1, owner_state_1, ... } (every job
--   not listed was created; hold until ms, -1: the owner is scheduled or running, -2: job i replaced the owner
--   (debounce); owner state 0: gone); or, with nothing written:
--   { -5, i } when job i's due time would fall beyond year 9999, { -6, what } when an argument is malformed,
--   { -20, i, parent } when job i names a parent that does not exist.
-- A dedupe key holds while its job is scheduled or running; after the job ends, until enqueue time + TTL if that
-- is later (see jobs.lua). Every argument is checked before the first write: the batch is all or nothing.
-- @include record
-- @include notify
-- @include flow
-- @include groups
-- @include jobs
-- @include deps
-- @include remote
-- @include debounce
-- @include results
redis.replicate_commands()
local k_jobs, k_due, k_meta, k_dedupe, k_holds, k_history = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local k_prio, k_events = KEYS[7], KEYS[8]
local channel, n = ARGV[1], whole(ARGV[2], 1, {{MAX_BATCH}})
if not n or #ARGV ~= 2 + 4 * n then return { -6, 'malformed enqueue arguments' } end
local now_micros = now_us()
local now = math.floor(now_micros / 1000)
local MAX_TTL = 315576000000 -- 10 years
local HEX = '[0-9a-f]'
local TRACEPARENT = '^00%-' .. string.rep(HEX, 32) .. '%-' .. string.rep(HEX, 16) .. '%-' .. HEX .. HEX .. '$'

local function split(s)
  local t, start = {}, 1
  while true do
    local i = string.find(s, '\0', start, true)
    if not i then
      t[#t + 1] = string.sub(s, start)
      return t
    end
    t[#t + 1] = string.sub(s, start, i - 1)
    start = i + 1
  end
end

local function optional(s, lo, hi)
  if s == '' then return true, nil end
  local v = whole(s, lo, hi)
  return v ~= nil, v
end

-- Validate every job before writing anything.
local dues, opts = {}, {}
for i = 1, n do
  local a = 3 + 4 * (i - 1)
  local due = due_from(ARGV[a + 2], now_micros)
  if not due then
    if string.match(ARGV[a + 2], '^[da]%d+$') then return { -5, i } end
    return { -6, 'job ' .. i .. ': malformed due time' }
  end
  dues[i] = due
  local o = ARGV[a + 3]
  if o == '' or o == 'g' then
    opts[i] = o == 'g' and 'g' or false
  else
    local f = split(o)
    if (#f ~= 7 and #f < 9) or (f[1] ~= '0' and f[1] ~= '1') then return { -6, 'job ' .. i .. ': malformed options' } end
    local trace, tags, bad = nil, nil, nil
    if #f > 9 then
      tags, bad = option_tags(f, 10)
      if not tags then return { -6, 'job ' .. i .. ': ' .. bad } end
    end
    if #f >= 9 and (f[8] ~= '' or f[9] ~= '') then
      if not string.match(f[8], TRACEPARENT) or #f[9] > 512 then return { -6, 'job ' .. i .. ': malformed trace context' } end
      trace = f[9] ~= '' and f[8] .. '\0' .. f[9] or f[8]
    end
    local ok1, max = optional(f[2], 1, {{MAX_ATTEMPTS}})
    local ok2, ttl = optional(f[5], 1, MAX_TTL)
    local ok3, priority = optional(f[6], 0, 9)
    local ok4, timeout = optional(f[7], 1, 2 ^ 40)
    if not (ok1 and ok2 and ok3 and ok4) or #f[3] > 512 or #f[4] > 512
        or (f[4] == '' and (ttl or (tags and tags.mode))) or (f[4] ~= '' and not ttl and not (tags and tags.mode == 'debounce')) then
      return { -6, 'job ' .. i .. ': malformed options' }
    end
    opts[i] = { generated = f[1] == '1', max = max, name = f[3] ~= '' and f[3] or nil,
      dedupe = f[4] ~= '' and f[4] or nil, hold = ttl and now + ttl or (f[4] ~= '' and 0 or nil), priority = priority,
      timeout = timeout, trace = trace, debounce = tags and tags.mode == 'debounce',
      after = tags and tags.after, ignore = tags and tags.opd == 'ignore', group = tags and tags.group }
    if tags and tags.remote then
      opts[i].link, opts[i].remote = remote_parse(tags.remote)
      if not opts[i].link or #opts[i].remote + (opts[i].after and #opts[i].after or 0) > DEPS_MAX then
        return { -6, 'job ' .. i .. ': malformed remote parents' }
      end
    end
    if opts[i].after then
      local unknown = deps_unknown(k_jobs, opts[i].after)
      if unknown then return { -20, i, unknown } end
    end
  end
end
local d = nil -- the keys of flows (deps.lua), made for the first job with parents

local function state_of(id)
  local r = safe_decode(record_of(k_jobs, id))
  return r and r.state or 0
end

local cfg = flow_config(k_meta)
local prios = cfg.prios
for i = 1, n do
  if opts[i] and opts[i] ~= 'g' and opts[i].priority and opts[i].priority > 0 then
    if not has_prio(prios, opts[i].priority) then prios = prios + 2 ^ opts[i].priority end
  end
  if opts[i] and opts[i] ~= 'g' and opts[i].group and prios % 2 == 0 then prios = prios + 1 end
end
if prios ~= cfg.prios then redis.call('HSET', k_meta, 'prios', int(prios)) end

local out = {}
local members, prio_members = {}, {}
local taken = {}
local grouped = {} -- the groups that got jobs
local created, replaced = 0, 0
local seq = next_seqs(k_meta, n)
local head_before = earliest_due(k_due, k_prio, prios)
local created_at = created_now(now_micros)
for i = 1, n do
  local a = 3 + 4 * (i - 1)
  local id, o = ARGV[a], opts[i]
  local dk = o and o ~= 'g' and o.dedupe
  local owner, hold = nil, nil
  if dk then
    if taken[dk] then
      owner, hold = taken[dk], -1
    else
      owner, hold = dedupe_owner(k_dedupe, k_holds, dk, now)
    end
  end
  local s = seq + i - 1
  -- HSETNX both checks that the id is free and writes the record, in one call.
  local fate, node, pending -- a child's ('run', 'wait' or 'dead', see deps.lua)
  if not owner then
    local rec
    if o and o ~= 'g' and (o.after or o.remote) then
      fate, node, pending = remote_fate(k_jobs, o, ARGV[a + 2])
      rec = fate ~= 'run' and deps_record(ARGV[a + 1], s, created_at, o, fate, dues[i], pending) or nil
    end
    rec = rec or fresh_record(ARGV[a + 1], s, created_at, (o and o ~= 'g') and o or nil)
    if redis.call('HSETNX', k_jobs, id, rec) == 0 then
      owner, hold, dk = id, -1, nil -- the id is taken: never a replace
    end
  end
  if owner and dk and o.debounce and hold == -1 and not (o.generated and owner == id) then
    if debounce_replace(k_jobs, k_due, k_prio, owner, ARGV[a + 1], dues[i], o, s, created_at, members, prio_members,
        grouped) then
      local o_n = #out
      out[o_n + 1], out[o_n + 2], out[o_n + 3], out[o_n + 4] = i, owner, -2, SCHEDULED
      if cfg.events then emit(k_events, cfg, 'replaced', owner, 'at', int(dues[i])) end
      replaced, hold = replaced + 1, -2
    elseif redis.call('HSETNX', k_jobs, id, fresh_record(ARGV[a + 1], s, created_at, o)) == 1 then
      owner = nil -- the holder has started: the new job is created beside it and takes the key (debounce.lua)
    else
      owner, hold = id, -1
    end
  end
  if owner then
    local generated = o == 'g' or (o and o.generated)
    if hold ~= -2 and not (generated and owner == id) then -- -2: replaced, listed above
      out[#out + 1] = i
      out[#out + 1] = owner
      out[#out + 1] = hold
      out[#out + 1] = state_of(owner)
    end
  elseif fate and fate ~= 'run' then
    d = d or { jobs = k_jobs, due = k_due, prio = k_prio, dead = KEYS[9], meta = k_meta, dedupe = k_dedupe,
      holds = k_holds, events = k_events, deps = KEYS[10], waiting = KEYS[11], children = KEYS[12], channel = channel }
    deps_created(d, id, s, fate, node, pending, now)
    results_parents(KEYS[13], k_meta, id, o.after, o.remote)
    if o.remote and fate == 'wait' then remote_linked(d, id, o) end
    if dk and fate == 'wait' then
      dedupe_take(k_dedupe, k_holds, dk, id)
      taken[dk] = id
    end
    created = created + 1
  else
    local p = (o and o ~= 'g' and o.priority) or 0
    if o and o ~= 'g' and o.group then
      prio_members[#prio_members + 1] = int((19 - p) * PRIO_BAND + dues[i])
      prio_members[#prio_members + 1] = member(s, id)
      redis.call('ZADD', group_key(k_due, o.group), int((9 - p) * PRIO_BAND + dues[i]), member(s, id))
      grouped[o.group] = true
    elseif p > 0 then
      prio_members[#prio_members + 1] = int((9 - p) * PRIO_BAND + dues[i])
      prio_members[#prio_members + 1] = member(s, id)
    else
      members[#members + 1] = int(dues[i])
      members[#members + 1] = member(s, id)
    end
    if cfg.events then emit(k_events, cfg, 'enqueued', id, 'at', int(dues[i])) end
    if fate then results_parents(KEYS[13], k_meta, id, o.after, o.remote) end -- its parents had all finished
    if dk then
      dedupe_take(k_dedupe, k_holds, dk, id)
      taken[dk] = id
    end
    created = created + 1
  end
end
if created > 0 or replaced > 0 then
  if #members > 0 then redis.call('ZADD', k_due, unpack(members)) end
  if #prio_members > 0 then redis.call('ZADD', k_prio, unpack(prio_members)) end
  if next(grouped) then for g in pairs(grouped) do group_sync(k_due, g, now) end end
  if created > 0 then
    count(k_meta, 'enqueued', created)
    history_add(k_history, now, 'e', created)
  end
  publish_if_earlier(channel, head_before, earliest_due(k_due, k_prio, prios))
end
return out
