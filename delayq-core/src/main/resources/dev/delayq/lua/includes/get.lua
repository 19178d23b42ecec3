-- get: one job with its full state, for get and get_by_dedupe (one script per operation, this their common part).
-- KEYS as theirs: KEYS[1] jobs hash   KEYS[2] due zset   KEYS[3] leases zset   KEYS[4] done zset   KEYS[5] dead zset
-- KEYS[6] dedupe holds zset   KEYS[7] priority due zset   KEYS[8] progress hash; most: most payload bytes (-1: whole);
-- k_results: the results hash (results.lua).

-- The reply of get.lua (see there) for job id.
local function get_job(id, most, k_results)
  local raw = record_of(KEYS[1], id)
  if not raw then return {} end
  local r = safe_decode(raw)
  local index = { [PROCESSING] = KEYS[3], [DONE] = KEYS[4], [DEAD] = KEYS[5] }
  local state, score = 0, nil
  if r and r.state == SCHEDULED then
    state = SCHEDULED
    if r.priority > 0 or r.group then
      score = redis.call('ZSCORE', KEYS[7], member(r.seq, id))
      if score then score = tonumber(score) % 281474976710656 end
    else
      score = redis.call('ZSCORE', KEYS[2], member(r.seq, id))
    end
  elseif r and r.state == WAITING then
    state, score = WAITING, r.due
  elseif r and r.finished then
    state, score = DONE, r.finished
  elseif r then
    state, score = r.state, redis.call('ZSCORE', index[r.state], id)
  else
    -- A record that cannot be decoded: done with a finish time if its lease overlay or its own first bytes say so, else
    -- the state of the index it is in.
    score = finish_in(redis.call('HGET', KEYS[1], OVERLAY .. id)) or finish_in(raw)
    if score then state = DONE end
    for s = PROCESSING, DEAD do
      if state ~= 0 then break end
      score = redis.call('ZSCORE', index[s], id)
      if score then state = s end
    end
  end
  local hold = -1
  if r and r.dedupe then hold = tonumber(redis.call('ZSCORE', KEYS[6], r.dedupe)) or -1 end
  local cut, size = preview_cut(raw, tonumber(most) or -1)
  local result = state == DONE and redis.call('HGET', k_results, id)
  return { cut, score and tonumber(score) or -1, state, hold, redis.call('HGET', KEYS[8], id), size, result }
end
