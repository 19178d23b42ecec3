-- reschedule: move a scheduled job to a new due time, for reschedule and reschedule_by_dedupe (one script per
-- operation, this their common part). KEYS as theirs: KEYS[1] due zset   KEYS[2] jobs hash   KEYS[3] meta hash
-- KEYS[4] priority due zset   KEYS[5] events stream   KEYS[6] retrying zset; when: "d<ms>" or "a<ms>"; channel: the
-- wake channel.
-- (a job waiting for its retry stays retrying, at the new time: its retrying entry moves with it, or goes when the new
--  time is now (the job is ready); an entry already past is left as it is, that job counted as ready before the move
--  and counts as delayed or ready after it)

-- Returns { 1, due } moved; { -1 } no such job; { -3, state } not scheduled; { -5 } due beyond year 9999; { -7 } the
-- record cannot be decoded (nothing changed).
local function reschedule_job(id, when, channel)
  local k_due, k_jobs, k_meta, k_prio = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
  local due = due_from(when, now_us())
  if not due then return { -5 } end
  local raw = record_of(k_jobs, id)
  if not raw then return { -1 } end
  local r = safe_decode(raw)
  if not r then return { -7 } end
  if r.state ~= SCHEDULED then return { -3, r.state } end
  local cfg = flow_config(k_meta)
  local head_before = earliest_due(k_due, k_prio, cfg.prios)
  local key, score = due_entry(k_due, k_prio, r, due)
  redis.call('ZREM', key, member(r.seq, id))
  if r.group then redis.call('ZREM', group_key(k_due, r.group), member(r.seq, id)) end
  r.seq = next_seqs(k_meta, 1)
  redis.call('HSET', k_jobs, id, encode(r))
  drop_overlays(k_jobs, { id })
  redis.call('ZADD', key, int(score), member(r.seq, id))
  local retry_at = tonumber(redis.call('ZSCORE', KEYS[6], id))
  local now = math.floor(now_us() / 1000)
  if r.group then group_add(k_due, r, member(r.seq, id), due, now) end
  if retry_at and retry_at > now then
    if due > now then redis.call('ZADD', KEYS[6], int(due), id) else redis.call('ZREM', KEYS[6], id) end
  end
  emit(KEYS[5], cfg, 'rescheduled', id, 'at', int(due))
  publish_if_earlier(channel, head_before, earliest_due(k_due, k_prio, cfg.prios))
  return { 1, due }
end
