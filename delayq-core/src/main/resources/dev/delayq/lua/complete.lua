-- complete: acknowledge finished jobs (a batch), each fenced by the token of its lease.
-- KEYS[1] leases zset   KEYS[2] jobs hash   KEYS[3] done batches zset   KEYS[4] meta hash   KEYS[5] dedupe hash
-- KEYS[6] dedupe holds zset   KEYS[7] history hash   KEYS[8] dead zset   KEYS[9] events stream
-- KEYS[10] progress hash   KEYS[11] errors hash   KEYS[12] due zset   KEYS[13] priority due zset   KEYS[14] deps hash
-- KEYS[15] waiting zset   KEYS[16] children key prefix   KEYS[17] results hash
-- ARGV[1] done retention ms (0: delete the record at once)   ARGV[2] wake channel   ARGV[3..] per lease: id, token
--   (a lease whose handler left a result sends its token followed by 'r', then the result as a third argument:
--   kept with the done job, results.lua; a job without one sends nothing more)
-- Returns { code_1, ... }: one code per job, 1 completed; 2 already completed with this token (a replayed call);
--   -1 no such job; -2 stale: the token is not the job's current lease (it was recovered, re-leased
--   or finished by someone else), nothing changed; -7 the record cannot be decoded (moved to dead).
--   { -6, what } (BAD_ARGUMENT, nothing written) when an argument is malformed.
-- Each lease once a call: the records are read once, so a pair named twice would finish its job twice (two entries in
-- the done batch, two completions counted); Complete.java sends each once (a set here would cost each call more).
-- With retention, the jobs this call completes go to the done index as one done batch entry (record.lua), each
-- record, or the lease overlay of a job leased under one, rewritten as done with the finish time.
-- A completed job's dedupe key keeps holding until the job's enqueue time + TTL if that is ahead, else it is
-- released. When the queue has a concurrency limit and this frees leases it was held at, a "0" notice wakes the
-- workers it refused. Without retention, a job that ever failed (its record holds an error: read from its first byte)
-- leaves its error history too (fail.lua); a job that never failed costs nothing more. A job with children waiting
-- for it (record bit X_PARENT: never on the fast paths) releases them here (deps.lua).
-- @include record
-- @include notify
-- @include flow
-- @include groups
-- @include jobs
-- @include deps
-- @include results
redis.replicate_commands()
local k_leases, k_jobs, k_batches, k_meta = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local k_dedupe, k_holds, k_history = KEYS[5], KEYS[6], KEYS[7]
local k_events, k_progress = KEYS[9], KEYS[10]
local retention = whole(ARGV[1], 0, 2 ^ 50)
if not retention then return { -6, 'malformed complete arguments' } end
local n = (#ARGV - 2) / 2
local ids, tokens = {}, {}
local results -- results[i]: the result of job i, when the call sent any (results.lua)
local plain = n == math.floor(n)
if plain then
  for i = 1, n do
    ids[i] = ARGV[2 * i + 1]
    tokens[i] = whole(ARGV[2 * i + 2], 0, 2 ^ 53)
    if not tokens[i] then
      plain = false
      break
    end
  end
end
if not plain then -- a call with results, or malformed: read lease by lease
  ids, tokens, results = results_args(3)
  if not ids then return { -6, tokens } end
  n = #ids
end
if n == 0 then return {} end
local now = now_ms()
-- A done record is its leased record with byte 1 replaced by the state byte and the finish time (one gsub: one
-- string made); '%' is gsub's escape in a replacement. A done overlay is made the same way.
local fin = finish_bytes(now)
local done_rep = string.gsub(string.char(LEASED - PROCESSING + DONE_AT) .. fin, '%%', '%%%%')
local done_ov_rep = string.gsub(string.char(DONE_AT) .. fin, '%%', '%%%%')
-- Without retention, the parent lists of finished children go with their records (results.lua): meta says if any exist.
local cfg, lists
if retention > 0 then cfg = flow_config(k_meta) else cfg, lists = flow_config(k_meta, 'results') end
history_known(k_meta, cfg)
-- The lease overlays first (see record.lua), on a queue where claim has written any: a job claim leased without
-- rewriting its record is judged by its overlay alone, and its payload is never read.
local ofields, ovs = {}, {}
if cfg.overlays then
  for i = 1, n do ofields[i] = OVERLAY .. ids[i] end
  ovs = redis.call('HMGET', k_jobs, unpack(ofields))
end
local out, fields, finished, dels, overlaid, erred = {}, {}, {}, {}, {}, {}
local nf, nh = 0, 0 -- jobs finished so far, and entries in fields (own counts: # on a table is a search)
local parents = nil -- finished jobs with children (deps.lua)
local tag -- the done batch entry's tag: the token of its first job, as the worker sent it
-- done_record: the job's record or overlay as done, written when retention > 0; field: where it goes (the job's own
-- field, or its overlay's); i: the job's place in the call.
local function finish(i, field, done_record)
  local id = ids[i]
  nf = nf + 1
  finished[nf] = id
  if retention > 0 then
    fields[nh + 1] = field
    fields[nh + 2] = done_record
    nh = nh + 2
    if nf == 1 then tag = results and int(tokens[i]) or ARGV[2 * i + 2] end
  else
    dels[nf] = id
  end
end
-- The usual job (no dedupe key, no events wanted) is judged by its token's bytes, without decoding its record.
local fast = not cfg.events
local todo, at = ids, nil -- the jobs judged by their record, and (when some were judged by overlays) their positions
if cfg.overlays then
  todo, at = {}, {}
  for i = 1, n do
    local ov = ovs[i]
    if fast and ov and overlay_token_is(ov, varint_string(tokens[i])) then
      out[i] = 1
      overlaid[#overlaid + 1] = ids[i]
      finish(i, ofields[i], retention > 0 and (string.gsub(ov, '^.', done_ov_rep)))
    else
      at[#at + 1] = i
      todo[#todo + 1] = ids[i]
    end
  end
end
local raws = #todo > 0 and redis.call('HMGET', k_jobs, unpack(todo)) or {}
for j = 1, #todo do
  local i = at and at[j] or j
  local raw, id, ov = raws[j], ids[i], ovs[i]
  if fast and raw and not ov and leased_with_token(raw, tokens[i]) then
    out[i] = 1
    -- The record with its first byte (the state) replaced by done_rep: gsub copies it once, where sub and '..' made
    -- two strings of its length (Redis 7 hashes every byte of each).
    finish(i, id, retention > 0 and (string.gsub(raw, '^.', done_rep)))
    if retention == 0 and string.byte(raw, 1) % 64 >= F_ERROR then erred[#erred + 1] = id end
  else
    if raw and ov then raw = with_overlay(raw, ov) end -- judged on the record as if rewritten
    local r = safe_decode(raw)
    if not raw then
      out[i] = -1
    elseif not r then
      out[i] = -7
      redis.call('ZREM', k_leases, id)
      quarantine(k_jobs, KEYS[8], k_meta, id, raw, now)
    elseif r.token ~= tokens[i] then
      out[i] = -2
    elseif r.state == DONE then
      out[i] = 2
    elseif r.state ~= PROCESSING then
      out[i] = -2
    else
      out[i] = 1
      if r.dedupe then dedupe_release(k_dedupe, k_holds, r, id, now, false) end
      if r.group then group_ended(due_of(k_jobs), r.group, ARGV[2], now) end
      if cfg.events then emit(k_events, cfg, 'completed', id, 'attempt', r.attempt, 'token', r.token) end
      if r.parent then
        parents = parents or {}
        parents[#parents + 1] = id
      end
      if ov then
        -- The overlay, done, stays beside the record as it was (retention); events and dedupe keys only took the
        -- general path for their own sake.
        overlaid[#overlaid + 1] = id
        finish(i, ofields[i], retention > 0 and string.char(string.byte(ov, 1) - PROCESSING + DONE_AT) .. fin
          .. string.sub(ov, 2))
      else
        finish(i, id, retention > 0 and string.char(string.byte(raw, 1) - PROCESSING + DONE_AT) .. fin .. string.sub(raw, 2))
        if retention == 0 and r.err then erred[#erred + 1] = id end
      end
    end
  end
end
if nf > 0 then
  local held = cfg.concurrency and redis.call('ZCARD', k_leases)
  redis.call('ZREM', k_leases, unpack(finished))
  if cfg.progress then redis.call('HDEL', k_progress, unpack(finished)) end
  if held and held >= cfg.concurrency then redis.call('PUBLISH', ARGV[2], '0') end
  if retention > 0 then
    redis.call('HSET', k_jobs, unpack(fields))
    redis.call('ZADD', k_batches, int(now), tag .. '\0' .. table.concat(finished, '\0'))
    redis.call('HINCRBY', k_meta, 'done_batched', int(nf))
    if results then results_keep(KEYS[17], ids, results, out) end
  end
  if retention == 0 then
    redis.call('HDEL', k_jobs, unpack(dels))
    drop_overlays(k_jobs, overlaid)
    if #erred > 0 then redis.call('HDEL', KEYS[11], unpack(erred)) end
    if lists then results_drop(KEYS[17], dels) end
  end
  count(k_meta, 'completed', nf)
  history_add(k_history, now, 'c', nf)
  if parents then
    local d = { jobs = k_jobs, due = KEYS[12], prio = KEYS[13], dead = KEYS[8], meta = k_meta, dedupe = k_dedupe,
      holds = k_holds, events = k_events, deps = KEYS[14], waiting = KEYS[15], children = KEYS[16], cfg = cfg,
      channel = ARGV[2] }
    deps_ended(d, parents, false, now * 1000)
  end
end
return out
