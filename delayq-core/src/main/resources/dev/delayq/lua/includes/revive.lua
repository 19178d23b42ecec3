-- revive: put dead jobs back in the due set, for retry_dead and retry_dead_all (one script per operation, this their
-- common part). KEYS as theirs: KEYS[1] dead zset   KEYS[2] due zset   KEYS[3] jobs hash   KEYS[4] meta hash
-- KEYS[5] dedupe hash   KEYS[6] dedupe holds zset   KEYS[7] priority due zset   KEYS[8] events stream

-- Moves the dead jobs ids (raws: their records, read beforehand) to the due set, due now, with a fresh budget of
-- attempts and stalls; a job's dedupe key holds again, unless another job has taken it meanwhile. A dead entry
-- without a record is dropped; a record that cannot be decoded, or is not dead, is left where it is (skipped).
-- Returns moved, skipped, now.
local function revive(ids, raws, channel)
  local k_dead, k_due, k_jobs, k_meta, k_prio = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[7]
  local now = now_ms()
  local moved, skipped = 0, 0
  local cfg = flow_config(k_meta)
  if #ids > 0 then
    local head_before = earliest_due(k_due, k_prio, cfg.prios)
    local seq = next_seqs(k_meta, #ids)
    for i = 1, #ids do
      local r = safe_decode(raws[i])
      if not raws[i] then
        redis.call('ZREM', k_dead, ids[i]) -- a dead entry without a record: drop it
      elseif not r or r.state ~= DEAD then
        skipped = skipped + 1
      else
        redis.call('ZREM', k_dead, ids[i])
        r.state = SCHEDULED
        r.attempt = 0
        r.stalls = 0
        r.seq = seq + i - 1
        r.token = nil
        redis.call('HSET', k_jobs, ids[i], encode(r))
        drop_overlays(k_jobs, { ids[i] })
        local key, score = due_entry(k_due, k_prio, r, now)
        redis.call('ZADD', key, int(score), member(r.seq, ids[i]))
        if r.group then group_add(k_due, r, member(r.seq, ids[i]), now, now) end
        dedupe_retake(KEYS[5], KEYS[6], r, ids[i], now)
        emit(KEYS[8], cfg, 'revived', ids[i], 'at', int(now))
        moved = moved + 1
      end
    end
    publish_if_earlier(channel, head_before, earliest_due(k_due, k_prio, cfg.prios))
  end
  return moved, skipped, now
end
