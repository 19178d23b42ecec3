-- stats: one queue partition's counts per state, running totals and switches (stats.lua's reply, documented there),
-- shared by the scripts that read them. Uses now_ms and int (record/notify) and flow_config, earliest_due, has_prio,
-- PRIO_BAND (flow) and group_count (groups): a script lists those includes before this one.

-- The stats of the partition whose keys are given: { scheduled, processing, done, dead, now_ms, head_due_ms,
-- past_retention, ready, delayed, retrying, meta_field_1, value_1, ... } (see stats.lua).
local function queue_stats(k_due, k_leases, k_done, k_dead, k_meta, k_prio, k_batches, k_retrying)
  local now = now_ms()
  local prios = flow_config(k_meta).prios
  local out = {
    redis.call('ZCARD', k_due) + redis.call('ZCARD', k_prio), redis.call('ZCARD', k_leases),
    redis.call('ZCARD', k_done), redis.call('ZCARD', k_dead),
    now, earliest_due(k_due, k_prio, prios) or -1, -1, 0, 0, 0,
  }
  local cut = int(now)
  local ready = redis.call('ZCOUNT', k_due, '-inf', cut)
  if prios > 0 then
    for q = 1, prios % 2 == 1 and 19 or 9 do -- as earliest_due's bands (flow.lua): the grouped ones too
      local p = q < 10 and q or 19 - q
      if (q >= 10 and p == 0) or has_prio(prios, p) then
        local low = (q < 10 and 9 - p or q) * PRIO_BAND
        ready = ready + redis.call('ZCOUNT', k_prio, int(low), int(low + now))
      end
    end
  end
  local retrying = redis.call('ZCOUNT', k_retrying, '(' .. cut, '+inf')
  out[8], out[9], out[10] = ready, math.max(0, out[1] - ready - retrying), retrying
  local meta = redis.call('HGETALL', k_meta)
  local batched, keep_done, keep_dead = 0, nil, nil
  for i = 1, #meta, 2 do
    out[#out + 1] = meta[i]
    out[#out + 1] = meta[i + 1]
    if meta[i] == 'done_batched' then batched = tonumber(meta[i + 1]) or 0 end
    if meta[i] == 'keep_done' then keep_done = tonumber(meta[i + 1]) end
    if meta[i] == 'keep_dead' then keep_dead = tonumber(meta[i + 1]) end
  end
  out[3] = out[3] + batched
  if prios % 2 == 1 then -- a queue that has had grouped jobs: the groups with scheduled jobs, as a field of its own
    out[#out + 1] = 'groups'
    out[#out + 1] = int(group_count(k_due))
  end
  if keep_done and keep_dead then
    local past = 0
    if keep_done >= 0 then
      local cut = int(now - keep_done)
      past = past + redis.call('ZCOUNT', k_done, '-inf', cut)
      local entries = redis.call('ZCARD', k_batches)
      if entries > 0 then
        local old = redis.call('ZCOUNT', k_batches, '-inf', cut)
        past = past + (old == entries and batched or math.floor(batched * old / entries + 0.5))
      end
    end
    if keep_dead >= 0 then past = past + redis.call('ZCOUNT', k_dead, '-inf', int(now - keep_dead)) end
    out[7] = past
  end
  return out
end
