-- notice_apply: apply notices of parents in other key sets to their children in this one (includes/remote.lua); each
-- notice counts once, so a notice applied again (its acknowledgement lost) changes nothing.
-- KEYS[1] jobs hash   KEYS[2] due zset   KEYS[3] priority due zset   KEYS[4] dead zset   KEYS[5] meta hash
-- KEYS[6] dedupe hash   KEYS[7] dedupe holds zset   KEYS[8] events stream   KEYS[9] deps hash   KEYS[10] waiting zset
-- KEYS[11] children key prefix
-- ARGV[1] wake channel   ARGV[2..] per notice: outcome ("d" done, "x" dead), child id, link id, ref
-- Returns { code_1, ... }: 1 counted, 0 nothing to do, -1 no such job (not written yet, or gone): see remote_apply.
-- @include record
-- @include notify
-- @include flow
-- @include groups
-- @include jobs
-- @include deps
-- @include remote
redis.replicate_commands()
local n = (#ARGV - 1) / 4
if n < 1 or n ~= math.floor(n) then return { -6, 'malformed notice_apply arguments' } end
local d = { jobs = KEYS[1], due = KEYS[2], prio = KEYS[3], dead = KEYS[4], meta = KEYS[5], dedupe = KEYS[6],
  holds = KEYS[7], events = KEYS[8], deps = KEYS[9], waiting = KEYS[10], children = KEYS[11],
  cfg = flow_config(KEYS[5]), channel = ARGV[1] }
local now_micros = now_us()
local out = {}
for i = 1, n do
  local a = 2 + 4 * (i - 1)
  local o = ARGV[a]
  if o ~= 'd' and o ~= 'x' then return { -6, 'malformed notice outcome' } end
  out[i] = remote_apply(d, ARGV[a + 1], ARGV[a + 2], ARGV[a + 3], o == 'x', now_micros)
end
return out
