-- remove: take a job that is not running out of the queue, for cancel, cancel_by_dedupe and delete (one script per
-- operation, this their common part). KEYS as theirs: KEYS[1] due zset   KEYS[2] jobs hash   KEYS[3] meta hash
-- KEYS[4] done zset   KEYS[5] dead zset   KEYS[6] dedupe hash   KEYS[7] dedupe holds zset   KEYS[8] leases zset
-- KEYS[9] priority due zset   KEYS[10] events stream   KEYS[11] done batches zset   KEYS[12] retrying zset
-- KEYS[13] errors hash   KEYS[14] deps hash   KEYS[15] waiting zset   KEYS[16] children key prefix   KEYS[17] results hash
-- ARGV[2] wake channel

-- The sequence of a record that cannot be decoded, when its first bytes still hold it (nil otherwise); a readable
-- record under an overlay that cannot be read comes behind a zero byte (record.lua's with_overlay).
local function salvaged_seq(v)
  if string.byte(v, 1) == 0 then v = string.sub(v, 2) end
  local state = (string.byte(v, 1) or 0) % 8
  if state < SCHEDULED or state > DONE_AT then return nil end
  local at = state == DONE_AT and 8 or 2
  return (window_varint({ string.byte(v, at, at + 8) }, 1))
end

-- Every index entry of the id goes with its record, whatever the state the record is in (an entry the record does
-- not account for, left by a bug or a hand, would otherwise outlive it and act on a job enqueued later with the same
-- id): its due entry (in either due set), its done, dead and lease entries, its done batch entry, its retrying entry
-- (one scored in the future would count the job as retrying in stats until that time), its error history, and its
-- result and parent list (results.lua).
local function drop_entries(id, seq, finished)
  if seq then
    local m = member(seq, id)
    redis.call('ZREM', KEYS[1], m)
    redis.call('ZREM', KEYS[9], m)
  end
  if finished then batch_remove(KEYS[11], KEYS[3], id, finished) end
  redis.call('ZREM', KEYS[4], id)
  redis.call('ZREM', KEYS[5], id)
  redis.call('ZREM', KEYS[8], id)
  redis.call('ZREM', KEYS[12], id)
  redis.call('HDEL', KEYS[13], id)
  redis.call('HDEL', KEYS[17], id, '\0' .. id)
end

-- Removes the job id: a scheduled or waiting one only (deleting false: cancel), or one scheduled, waiting, done or dead
-- (deleting true: delete). A waiting job's links go with it; a job with children that ends so (scheduled or waiting)
-- ends them as a dead parent does (deps.lua). A record that cannot be decoded is refused by cancel ({ -7 }) and deleted by delete unless it is
-- leased (its done or dead entry goes with it, its done batch entry too when its finish time can be read, from its
-- lease overlay or its record, and its due entry when the record's sequence can still be read; a due entry whose
-- member cannot be known is dropped by the next claim that reaches it, which leases only by an entry naming its
-- record's sequence; a done batch entry that still lists the id is read past by the readers, reported by check and
-- dropped by purge).
local function remove_job(id, deleting)
  local k_jobs = KEYS[2]
  local raw = record_of(k_jobs, id)
  if not raw then return { -1 } end
  local r = safe_decode(raw)
  if not r then
    if not deleting then return { -7 } end
    if redis.call('ZSCORE', KEYS[8], id) then return { -3, PROCESSING } end
    drop_entries(id, salvaged_seq(raw), finish_in(redis.call('HGET', k_jobs, OVERLAY .. id)) or finish_in(raw))
    redis.call('HDEL', k_jobs, id)
    drop_overlays(k_jobs, { id })
    return { 1, id }
  end
  if r.state == PROCESSING or (not deleting and r.state ~= SCHEDULED and r.state ~= WAITING) then return { -3, r.state } end
  local d = (r.state == WAITING or (r.parent and r.state == SCHEDULED)) and { jobs = k_jobs, due = KEYS[1],
    prio = KEYS[9], dead = KEYS[5], meta = KEYS[3], dedupe = KEYS[6], holds = KEYS[7], events = KEYS[10],
    deps = KEYS[14], waiting = KEYS[15], children = KEYS[16], cfg = flow_config(KEYS[3]), channel = ARGV[2] }
  if r.state == WAITING then deps_unlink(d, id, r.seq) end
  drop_entries(id, r.seq, r.finished)
  if r.group and r.state == SCHEDULED then group_remove(KEYS[1], r, member(r.seq, id), now_ms()) end
  redis.call('HDEL', k_jobs, id)
  drop_overlays(k_jobs, { id })
  dedupe_release(KEYS[6], KEYS[7], r, id, 0, true)
  local what = deleting and 'deleted' or 'cancelled'
  count(KEYS[3], what, 1)
  emit(KEYS[10], flow_config(KEYS[3]), what, id)
  if d and r.parent then deps_ended(d, { id }, true, now_us()) end
  return { 1, id }
end
