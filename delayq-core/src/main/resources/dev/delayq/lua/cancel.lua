-- cancel: delete a job that is not running: cancel (scheduled jobs only) or delete (scheduled, done or dead),
-- found by its id or by the dedupe key it holds. Its dedupe key is released at once.
-- KEYS[1] due zset   KEYS[2] jobs hash   KEYS[3] meta hash   KEYS[4] done zset   KEYS[5] dead zset
-- KEYS[6] dedupe hash   KEYS[7] dedupe holds zset   KEYS[8] leases zset   KEYS[9] priority due zset
-- KEYS[10] events stream   KEYS[11] done batches zset
-- ARGV[1] "cancel" or "delete"   ARGV[2] "id" or "dedupe"   ARGV[3] the id or the dedupe key
-- Returns { 1, id } removed; { -1 } no such job (or the dedupe key names none); { -3, state } the job's state
--   does not allow it (not changed); { -6, what } malformed arguments (nothing written).
-- Every index entry of the id goes with its record, whatever the state the record is in (an entry the record does not
-- account for, left by a bug or a hand, would otherwise outlive it and act on a job enqueued later with the same id):
-- its due entry (in either due set), its done, dead and lease entries, its done batch entry.
-- A record that cannot be decoded is refused by "cancel" ({ -7 }) and deleted by "delete" unless it is leased
-- (its done or dead entry goes with it, its done batch entry too when its finish time can be read, from its lease
-- overlay or its record, and its due entry when the record's sequence can still be read; a due entry whose member
-- cannot be known is dropped by the next claim that reaches it, which leases only by an entry naming its record's
-- sequence; a done batch entry that still lists the id is read past by the readers, reported by check and dropped by
-- purge).
-- @include record
-- @include notify
-- @include flow
-- @include jobs
local k_due, k_jobs, k_meta, k_done, k_dead, k_dedupe, k_holds = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7]
local mode, by = ARGV[1], ARGV[2]
if (mode ~= 'cancel' and mode ~= 'delete') or (by ~= 'id' and by ~= 'dedupe') then
  return { -6, 'malformed cancel arguments' }
end
local id = ARGV[3]
if by == 'dedupe' then
  id = redis.call('HGET', k_dedupe, ARGV[3])
  if not id then return { -1 } end
end
local raw = record_of(k_jobs, id)
if not raw then return { -1 } end
local r = safe_decode(raw)

-- The sequence of a record that cannot be decoded, when its first bytes still hold it (nil otherwise); a readable
-- record under an overlay that cannot be read comes behind a zero byte (record.lua's with_overlay).
local function salvaged_seq(v)
  if string.byte(v, 1) == 0 then v = string.sub(v, 2) end
  local state = (string.byte(v, 1) or 0) % 8
  if state < SCHEDULED or state > DONE_AT then return nil end
  local at = state == DONE_AT and 8 or 2
  return (window_varint({ string.byte(v, at, at + 8) }, 1))
end

local function drop_entries(seq, finished)
  if seq then
    local m = member(seq, id)
    redis.call('ZREM', k_due, m)
    redis.call('ZREM', KEYS[9], m)
  end
  if finished then batch_remove(KEYS[11], k_meta, id, finished) end
  redis.call('ZREM', k_done, id)
  redis.call('ZREM', k_dead, id)
  redis.call('ZREM', KEYS[8], id)
end

if not r then
  if mode ~= 'delete' then return { -7 } end
  if redis.call('ZSCORE', KEYS[8], id) then return { -3, PROCESSING } end
  drop_entries(salvaged_seq(raw), finish_in(redis.call('HGET', k_jobs, OVERLAY .. id)) or finish_in(raw))
  redis.call('HDEL', k_jobs, id)
  drop_overlays(k_jobs, { id })
  return { 1, id }
end
if r.state == PROCESSING or (mode == 'cancel' and r.state ~= SCHEDULED) then return { -3, r.state } end
drop_entries(r.seq, r.finished)
redis.call('HDEL', k_jobs, id)
drop_overlays(k_jobs, { id })
dedupe_release(k_dedupe, k_holds, r, id, 0, true)
count(k_meta, mode == 'cancel' and 'cancelled' or 'deleted', 1)
emit(KEYS[10], flow_config(k_meta), mode == 'cancel' and 'cancelled' or 'deleted', id)
return { 1, id }
