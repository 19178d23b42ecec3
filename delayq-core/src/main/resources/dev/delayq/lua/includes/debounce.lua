-- debounce: enqueue's dedupe mode `debounce` (option tag mode=debounce; throttle, the default, is the dedupe of
-- jobs.lua: the first job holds the key). In debounce mode an enqueue whose dedupe key is held by a job that is still
-- scheduled and has not started (no attempt, no stall: not running, not waiting for a retry) replaces that job:
-- same id, the new payload, options and due time, a new sequence (it goes behind jobs already due at its new time).
-- A holder that has started is not touched: the new job is created beside it and holds the key from then on (the
-- holder's end then leaves the key alone: dedupe_release only releases a key that still names its job). A key that
-- holds after its job ended (a TTL) makes the new job a duplicate, as in throttle mode. The mode is the new job's:
-- a throttle holder is replaced by a debounce enqueue. A job of either mode without TTL (debounce only) stores hold
-- 0, so its key goes when it ends. Groups: the replaced job leaves its lane and the new one enters its own.

-- Removes the pair (score, m) from a pending ZADD list l (a holder created earlier in the same call).
local function unlist(l, m)
  for j = 2, #l, 2 do
    if l[j] == m then
      table.remove(l, j)
      table.remove(l, j - 1)
      return
    end
  end
end

-- Replaces the scheduled job owner by a new payload (ARGV value), due time and options o, with sequence seq; its
-- new due entry goes on the pending lists (members, prio_members). Returns false (nothing done) when the holder is
-- not a scheduled job that has not started, or cannot be decoded. A grouped holder leaves its group's lane, and a
-- grouped replacement enters its own (groups.lua): grouped[g] = true for each group whose lane changed, for the
-- caller to sync once.
local function debounce_replace(k_jobs, k_due, k_prio, owner, payload, due, o, seq, created_at, members, prio_members,
                                grouped)
  local raw = record_of(k_jobs, owner)
  local r = raw and safe_decode(raw)
  if not r or r.state ~= SCHEDULED or r.attempt > 0 or r.stalls > 0 then return false end
  local key = due_entry(k_due, k_prio, r, 0)
  local m = member(r.seq, owner)
  if redis.call('ZREM', key, m) == 0 then unlist(key == k_prio and prio_members or members, m) end
  if r.group then
    redis.call('ZREM', group_key(k_due, r.group), m)
    grouped[r.group] = true
  end
  redis.call('HSET', k_jobs, owner, fresh_record(payload, seq, r.created or created_at, o))
  drop_overlays(k_jobs, { owner })
  local p = o.priority or 0
  if o.group then
    prio_members[#prio_members + 1] = int((19 - p) * PRIO_BAND + due)
    prio_members[#prio_members + 1] = member(seq, owner)
    redis.call('ZADD', group_key(k_due, o.group), int((9 - p) * PRIO_BAND + due), member(seq, owner))
    grouped[o.group] = true
  elseif p > 0 then
    prio_members[#prio_members + 1] = int((9 - p) * PRIO_BAND + due)
    prio_members[#prio_members + 1] = member(seq, owner)
  else
    members[#members + 1] = int(due)
    members[#members + 1] = member(seq, owner)
  end
  return true
end
