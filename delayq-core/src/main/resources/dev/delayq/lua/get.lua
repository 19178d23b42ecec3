-- get: one job with its full state, read atomically.
-- KEYS[1] jobs hash   KEYS[2] due zset   KEYS[3] leases zset   KEYS[4] done zset   KEYS[5] dead zset
-- KEYS[6] dedupe holds zset   KEYS[7] priority due zset   KEYS[8] progress hash
-- ARGV[1] id   ARGV[2] most payload bytes (-1: whole; a preview: the rest is only counted)
-- Returns { record, time, state, hold, progress, payload_bytes }, or {} when there is no such job; time is the due ms
--   (scheduled), the lease expiry (processing) or the time it finished (done, dead: a done batch's job carries it
--   in its record), -1 when the index lacks it; state is the record's state, or for a record that cannot be
--   decoded the index it was found in (0: none);
--   hold is until when the job's dedupe key holds after it ended (-1: no hold); progress is what its handler last
--   reported (false: nothing); payload_bytes the whole payload's size when the record was cut to a preview, else -1.
-- @include record
-- @include page
local raw = record_of(KEYS[1], ARGV[1])
if not raw then return {} end
local r = safe_decode(raw)
local index = { [PROCESSING] = KEYS[3], [DONE] = KEYS[4], [DEAD] = KEYS[5] }
local state, score = 0, nil
if r and r.state == SCHEDULED then
  state = SCHEDULED
  if r.priority > 0 or r.group then
    score = redis.call('ZSCORE', KEYS[7], member(r.seq, ARGV[1]))
    if score then score = tonumber(score) % 281474976710656 end
  else
    score = redis.call('ZSCORE', KEYS[2], member(r.seq, ARGV[1]))
  end
elseif r and r.finished then
  state, score = DONE, r.finished
elseif r then
  state, score = r.state, redis.call('ZSCORE', index[r.state], ARGV[1])
else
  -- A record that cannot be decoded: done with a finish time if its lease overlay or its own first bytes say so, else
  -- the state of the index it is in.
  score = finish_in(redis.call('HGET', KEYS[1], OVERLAY .. ARGV[1])) or finish_in(raw)
  if score then state = DONE end
  for s = PROCESSING, DEAD do
    if state ~= 0 then break end
    score = redis.call('ZSCORE', index[s], ARGV[1])
    if score then state = s end
  end
end
local hold = -1
if r and r.dedupe then hold = tonumber(redis.call('ZSCORE', KEYS[6], r.dedupe)) or -1 end
local cut, size = preview_cut(raw, tonumber(ARGV[2]) or -1)
return { cut, score and tonumber(score) or -1, state, hold, redis.call('HGET', KEYS[8], ARGV[1]), size }
