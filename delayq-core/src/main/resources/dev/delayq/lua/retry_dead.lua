-- retry_dead: put one dead job back in the due set, due now, with a fresh budget of attempts and stalls (see
-- includes/revive.lua). Its dedupe key holds again, unless another job has taken it meanwhile.
-- KEYS[1] dead zset   KEYS[2] due zset   KEYS[3] jobs hash   KEYS[4] meta hash   KEYS[5] dedupe hash
-- KEYS[6] dedupe holds zset   KEYS[7] priority due zset   KEYS[8] events stream
-- ARGV[1] wake channel   ARGV[2] id
-- Returns { code, due }: code 1 moved (due: now); { -1 } no such job; { -3, state } not dead; { -7 } the record
--   cannot be decoded (left where it is).
-- @include record
-- @include notify
-- @include flow
-- @include groups
-- @include jobs
-- @include revive
redis.replicate_commands()
local raw = record_of(KEYS[3], ARGV[2])
if not raw then return { -1 } end
local r = safe_decode(raw)
if not r then return { -7 } end
if r.state ~= DEAD then return { -3, r.state } end
local _, _, now = revive({ ARGV[2] }, { raw }, ARGV[1])
return { 1, now }
