-- deps: flows, jobs that wait for other jobs of the same key set (docs/flows.md).
--
-- A child enqueued with parents that have not all finished is written WAITING (record state 6, its due field the due
-- time it asked for) and is in no due set; the links live beside it, all in the queue's slot:
--   deps hash      'n' NUL child -> its counters "pending:done:dead:policy:when" (policy 1: a dead parent counts as
--                  finished (IGNORE), 0: it makes the child dead; when: its enqueue due argument, "d<ms>" or "a<ms>",
--                  read again at its release: a delay counts from the release, an absolute time is kept)
--                  'p' NUL child -> its pending parents' ids at enqueue, each behind a \1 byte (to unlink it)
--   waiting zset   child id, score = its enqueue ms (what list pages; meta field `waiting` counts it for stats)
--   children:<parent> SET the members (6-byte seq .. id, as in the due set) of the children waiting for it
-- A parent with children carries record bit X_PARENT (record.lua): a record without it (every job of a queue that has
-- no flows) takes the fast paths as before and its end looks nothing up. The end of a parent (done, dead, cancelled,
-- deleted) reads its children set once and deletes it, so each child counts each parent once: O(1) per child.
-- A children set may also hold children of other key sets (members "\255\0" .. key set .. "\0" .. child .. "\0" .. link
-- id .. "\0" .. ref: remote.lua; a local member's first byte, the top byte of its sequence, is 0): the end of the parent
-- writes one notice each into the outbox, the zset named by the children prefix itself (no job id is empty), and one
-- "n" on the wake channel for them all.
-- d: a table of keys (jobs, due, prio, dead, meta, dedupe, holds, events, deps, waiting, children) with the flow
-- configuration (cfg) and the wake channel (channel).
local DEPS_MAX = {{MAX_PARENTS}} -- parents of one job

-- The tagged option fields (after the nine positional ones, see enqueue.lua) this version knows; nil and what was
-- wrong on any other. after: parent ids separated by \1; remote: parents in other key sets (remote.lua); opd: 'ignore'; mode: 'debounce' or 'throttle' (debounce.lua); group: a group key (groups.lua).
local function option_tags(f, from)
  local t = {}
  for i = from, #f do
    local tag, v = string.match(f[i], '^(%l+)=(.*)$')
    if not tag or t[tag] or (tag ~= 'after' and tag ~= 'opd' and tag ~= 'mode' and tag ~= 'group' and tag ~= 'remote') then
      return nil, 'unknown option field'
    end
    t[tag] = v
  end
  if t.mode and t.mode ~= 'debounce' and t.mode ~= 'throttle' then return nil, 'malformed dedupe mode' end
  if t.opd and t.opd ~= 'ignore' then return nil, 'malformed on-parent-dead policy' end
  if t.group and not group_valid(t.group) then return nil, 'malformed group' end
  if t.opd and not (t.after or t.remote) then return nil, 'on-parent-dead without parents' end
  if (t.after or t.remote) and t.mode == 'debounce' then return nil, 'parents with debounce' end
  if t.after then
    local ps, seen = {}, {}
    for p in string.gmatch(t.after, '[^\1]+') do
      if seen[p] or #p > 512 then return nil, 'malformed parents' end
      seen[p] = true
      ps[#ps + 1] = p
    end
    if #ps == 0 or #ps > DEPS_MAX or #t.after ~= #table.concat(ps, '\1') then return nil, 'malformed parents' end
    t.after = ps
  end
  return t
end

-- The first of ids that names no job, or nil.
local function deps_unknown(k_jobs, ids)
  local got = redis.call('HMGET', k_jobs, unpack(ids))
  for i = 1, #ids do
    if not got[i] then return ids[i] end
  end
  return nil
end

local function deps_node(d, child)
  local v = redis.call('HGET', d.deps, 'n\0' .. child)
  if not v then return nil end
  local p, dn, dd, pol, when = string.match(v, '^(%d+):(%d+):(%d+):([01]):(.*)$')
  if not p then return nil end
  return { pending = tonumber(p), done = tonumber(dn), dead = tonumber(dd), ignore = pol == '1', when = when }
end

local function deps_node_value(n)
  return int(n.pending) .. ':' .. int(n.done) .. ':' .. int(n.dead) .. ':' .. (n.ignore and '1' or '0') .. ':' .. n.when
end

-- Removes the links of a waiting child (its counters, its parents list, its entry in each parent's children set and in
-- the waiting index). ended: every parent has ended, so no children set holds it any more (they are deleted as read).
local function deps_unlink(d, child, seq, ended)
  local ps = not ended and redis.call('HGET', d.deps, 'p\0' .. child)
  if ps then
    local m = member(seq, child)
    for p in string.gmatch(ps, '[^\1]+') do redis.call('SREM', d.children .. p, m) end
  end
  redis.call('HDEL', d.deps, 'n\0' .. child, 'p\0' .. child, 'r\0' .. child)
  redis.call('ZREM', d.waiting, child)
  redis.call('HINCRBY', d.meta, 'waiting', '-1')
end

-- The child's fate from its parents' records: 'dead' (and the dead parent) when a dead parent makes it dead, 'run'
-- when every parent has finished, else 'wait'; with the node to keep and the parents still pending.
local function deps_fate(k_jobs, parents, ignore, when)
  local raws = records_of(k_jobs, parents)
  local n = { pending = 0, done = 0, dead = 0, ignore = ignore, when = when }
  local pending = {}
  for i = 1, #parents do
    local r = safe_decode(raws[i])
    local s = r and r.state or DEAD -- a parent that cannot be decoded will not finish: as dead
    if s == DONE then
      n.done = n.done + 1
    elseif s == DEAD then
      if not ignore then return 'dead', n, parents[i] end
      n.dead = n.dead + 1
    else
      n.pending = n.pending + 1
      pending[#pending + 1] = r
      pending[#pending + 1] = parents[i]
    end
  end
  if n.pending == 0 then return 'run', n end
  return 'wait', n, pending
end

-- Links a child just written WAITING to its pending parents (r1, id1, r2, id2, ...: their decoded records), marking
-- each parent's record with X_PARENT once.
local function deps_link(d, child, seq, n, pending, now)
  local m, ids = member(seq, child), {}
  for i = 1, #pending, 2 do
    local r, p = pending[i], pending[i + 1]
    redis.call('SADD', d.children .. p, m)
    ids[#ids + 1] = p
    if not r.parent then
      r.parent = true
      redis.call('HSET', d.jobs, p, encode(r))
      drop_overlays(d.jobs, { p }) -- the lease, if under an overlay, is now in the record
    end
  end
  redis.call('HSET', d.deps, 'n\0' .. child, deps_node_value(n), 'p\0' .. child, table.concat(ids, '\1'))
  redis.call('ZADD', d.waiting, int(now), child)
  redis.call('HINCRBY', d.meta, 'waiting', '1')
end

-- The record of a new child whose fate is 'wait' (WAITING, its due time kept) or 'dead' (x: the dead parent); o holds
-- its optional fields as for fresh_record.
local function deps_record(payload, seq, created, o, fate, due, x)
  local r = { state = fate == 'dead' and DEAD or WAITING, seq = seq, created = created, due = due, attempt = 0,
    max = o.max or 0, stalls = 0, name = o.name, dedupe = o.dedupe, hold = o.hold, priority = o.priority or 0,
    timeout = o.timeout, trace = o.trace, group = o.group, err = fate == 'dead' and ('parent ' .. x .. ' is dead') or nil }
  return encode_with_body(r, payload)
end

-- The indexes of a child enqueue has just written by deps_record.
local function deps_created(d, child, seq, fate, n, pending, now)
  if fate == 'wait' then
    deps_link(d, child, seq, n, pending, now)
  else
    redis.call('ZADD', d.dead, int(now), child)
    count(d.meta, 'dead', 1)
  end
end

-- Writes the waiting child r (id child) dead because parent is: dead index, dedupe key, counters, links.
local function deps_kill(d, child, r, parent, now)
  deps_unlink(d, child, r.seq)
  r.state = DEAD
  r.due = r.due or now
  r.err = 'parent ' .. parent .. ' is dead'
  redis.call('HSET', d.jobs, child, encode(r))
  redis.call('ZADD', d.dead, int(now), child)
  if r.dedupe then dedupe_release(d.dedupe, d.holds, r, child, now, false) end
  count(d.meta, 'dead', 1)
  emit(d.events, d.cfg, 'dead', child, 'parent', parent)
end

-- Schedules the waiting child r (id child): its due time from its node's enqueue argument, counted from now.
local function deps_release(d, child, r, n, now_micros)
  deps_unlink(d, child, r.seq, true)
  local due = due_from(n.when, now_micros) or math.floor(now_micros / 1000)
  r.state = SCHEDULED
  r.due = nil
  redis.call('HSET', d.jobs, child, encode(r))
  local key, score = due_entry(d.due, d.prio, r, due)
  local m = member(r.seq, child)
  redis.call('ZADD', key, int(score), m)
  if r.group then group_add(d.due, r, m, due, math.floor(now_micros / 1000)) end -- into its lane (groups.lua)
  count(d.meta, 'released', 1)
  emit(d.events, d.cfg, 'released', child, 'at', int(due))
end

-- The parents `ended` (a list of ids) have ended (dead: dead, cancelled or deleted; else done): each child waiting for
-- one counts it, and is released when it was its last pending parent, or made dead (policy DEAD), which ends its own
-- children in turn. One wake-up notice for them all, when a released child became the earliest job.
local function deps_ended(d, ended, dead, now_micros)
  local now = math.floor(now_micros / 1000)
  local head_before = earliest_due(d.due, d.prio, d.cfg.prios)
  local stack, sp = {}, 0
  for i = 1, #ended do
    stack[sp + 1], stack[sp + 2] = ended[i], dead
    sp = sp + 2
  end
  local released, noticed = false, false
  while sp > 0 do
    local parent, parent_dead = stack[sp - 1], stack[sp]
    sp = sp - 2
    local key = d.children .. parent
    local kids = redis.call('SMEMBERS', key)
    if #kids > 0 then redis.call('DEL', key) end
    for _, m in ipairs(kids) do
      local child = member_id(m)
      local n = string.byte(m) ~= 255 and deps_node(d, child)
      local r = n and safe_decode(record_of(d.jobs, child))
      if string.byte(m) == 255 then
        -- A child in another key set (remote.lua): a notice in this key set's outbox, relayed by a worker.
        redis.call('ZADD', d.children, int(now), (parent_dead and 'x' or 'd') .. '\0' .. int(now) .. '\0' .. parent
          .. string.sub(m, 2))
        noticed = true
      elseif r and r.state == WAITING and member(r.seq, child) == m then
        n.pending = n.pending - 1
        if parent_dead then n.dead = n.dead + 1 else n.done = n.done + 1 end
        if parent_dead and not n.ignore then
          deps_kill(d, child, r, parent, now)
          if r.parent then
            stack[sp + 1], stack[sp + 2] = child, true
            sp = sp + 2
          end
        elseif n.pending <= 0 then
          deps_release(d, child, r, n, now_micros)
          released = true
        else
          redis.call('HSET', d.deps, 'n\0' .. child, deps_node_value(n))
        end
      end
    end
  end
  if released then publish_if_earlier(d.channel, head_before, earliest_due(d.due, d.prio, d.cfg.prios)) end
  if noticed then redis.call('PUBLISH', d.channel, 'n') end -- wakes the workers' relay (NoticeRelay)
end
