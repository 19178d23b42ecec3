-- remote: parents in another key set (another queue; on a cluster, another slot): docs/flows.md, "Parents in another
-- queue: how it stays exactly once". No script can touch two slots, so a child and a remote parent are linked, and the
-- parent's end reaches the child, in steps, each one script on one key set, each safe to repeat:
--   1. remote_link.lua on the parent's key set: the parent must exist (else unknown parent); a done or dead parent is
--      answered as such; else the child is registered in the parent's children set (deps.lua) as the member
--      "\255\0" .. child key set .. "\0" .. child .. "\0" .. link id .. "\0" .. ref, and the parent marked X_PARENT.
--   2. enqueue.lua on the child's key set, tag remote = link id .. ("\1" .. status .. ref)... (status 'l' linked, 'd'
--      done, 'x' dead; ref: the parent as the child names it, "queue/id"). A waiting child keeps, beside its counters,
--      deps field 'r' NUL child = link id .. ("\1" .. ref)...: its remote parents not counted yet.
--   3. The end of a linked parent writes a notice into its key set's outbox in the same script (deps_ended); a worker of
--      the parent's queue reads it (notices.lua), applies it here (notice_apply.lua: remote_apply counts a ref once, and
--      only for the child linked under that link id) and then acknowledges it (notices.lua).
-- The link id (random, one per enqueue call) tells this child from another job enqueued later under the same id.

-- The link id and the parents { status, ref } of a remote tag, or nil when it is malformed.
local function remote_parse(v)
  local parts = {}
  for x in string.gmatch(v, '[^\1]+') do parts[#parts + 1] = x end
  if #parts < 2 or #parts > DEPS_MAX + 1 or #v ~= #table.concat(parts, '\1') or #parts[1] > 64 then return nil end
  local refs, seen = {}, {}
  for i = 2, #parts do
    local st, ref = string.sub(parts[i], 1, 1), string.sub(parts[i], 2)
    if (st ~= 'l' and st ~= 'd' and st ~= 'x') or ref == '' or #ref > 1024 or seen[ref] then return nil end
    seen[ref] = true
    refs[#refs + 1] = { st, ref }
  end
  return parts[1], refs
end

-- The parent's id in a ref ("queue/id": a queue name holds no '/'), as a dead parent's error names it.
local function remote_id(ref)
  return string.match(ref, '^[^/]*/(.*)$') or ref
end

-- The child's fate (as deps_fate) from its local parents' records and its remote parents' statuses (o.after, o.remote).
local function remote_fate(k_jobs, o, when)
  local fate, n, pending = 'run', { pending = 0, done = 0, dead = 0, ignore = o.ignore, when = when }, nil
  if o.after then fate, n, pending = deps_fate(k_jobs, o.after, o.ignore, when) end
  if fate == 'dead' or not o.remote then return fate, n, pending end
  for _, e in ipairs(o.remote) do
    if e[1] == 'd' then
      n.done = n.done + 1
    elseif e[1] == 'x' then
      if not o.ignore then return 'dead', n, remote_id(e[2]) end
      n.dead = n.dead + 1
    else
      n.pending = n.pending + 1
    end
  end
  if n.pending == 0 then return 'run', n end
  return 'wait', n, pending or {}
end

-- Records the remote parents a child just written WAITING still waits for.
local function remote_linked(d, child, o)
  local refs = { o.link }
  for _, e in ipairs(o.remote) do
    if e[1] == 'l' then refs[#refs + 1] = e[2] end
  end
  if #refs > 1 then redis.call('HSET', d.deps, 'r\0' .. child, table.concat(refs, '\1')) end
end

-- Applies one notice (the parent ref has ended: dead or done) to the child linked under link: 1 counted; 0 nothing to
-- do (counted before, or the child is not the one linked any more: ended, cancelled, deleted, enqueued again); -1 no such
-- job (its enqueue has not written it yet, or it is gone). The child is released, made dead or counted as deps_ended does.
local function remote_apply(d, child, link, ref, dead, now_micros)
  local raw = record_of(d.jobs, child)
  if not raw then return -1 end
  local r = safe_decode(raw)
  local v = r and r.state == WAITING and redis.call('HGET', d.deps, 'r\0' .. child)
  if not v then return 0 end
  local refs, hit = {}, false
  for x in string.gmatch(v, '[^\1]+') do
    if x == ref and #refs > 0 then hit = true else refs[#refs + 1] = x end
  end
  local n = refs[1] == link and hit and deps_node(d, child)
  if not n then return 0 end
  n.pending = n.pending - 1
  if dead then n.dead = n.dead + 1 else n.done = n.done + 1 end
  if dead and not n.ignore then
    deps_kill(d, child, r, remote_id(ref), math.floor(now_micros / 1000))
    if r.parent then deps_ended(d, { child }, true, now_micros) end
  elseif n.pending <= 0 then
    local head_before = earliest_due(d.due, d.prio, d.cfg.prios)
    deps_release(d, child, r, n, now_micros)
    publish_if_earlier(d.channel, head_before, earliest_due(d.due, d.prio, d.cfg.prios))
  else
    redis.call('HSET', d.deps, 'n\0' .. child, deps_node_value(n), 'r\0' .. child, table.concat(refs, '\1'))
  end
  return 1
end
