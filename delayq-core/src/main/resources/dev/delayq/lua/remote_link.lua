-- remote_link: step 1 of a child's link to parents in this key set from another one (includes/remote.lua).
-- KEYS[1] jobs hash   KEYS[2] children key prefix   KEYS[3] config hash
-- ARGV[1] mode: "link", or "unlink" (take back the links of a call refused by another queue)
-- ARGV[2] child key set   ARGV[3] child id   ARGV[4] link id   ARGV[5..] per parent: id, ref (as the child names it)
-- Returns { ok, status_1, ... } (ok 1) with per parent its status: "l" linked (the child is registered: the parent's end will write a notice),
--   "d" done, "x" dead (or cancelled, deleted: gone); { -20, 0, id } when parent id names no job (nothing written);
--   { -6, what } when an argument is malformed or this queue has partitions.
-- Linking again under the same link id changes nothing (a set member); unlink removes the members only.
-- @include record
redis.replicate_commands()
local k_jobs, k_children = KEYS[1], KEYS[2]
local mode, set, child, link = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local n = (#ARGV - 4) / 2
if (mode ~= 'link' and mode ~= 'unlink') or n < 1 or n ~= math.floor(n) or n > {{MAX_PARENTS}} or set == ''
    or child == '' or link == '' then
  return { -6, 'malformed remote_link arguments' }
end
local parts = tonumber(redis.call('HGET', KEYS[3], 'partitions') or '1')
if parts and parts > 1 then
  return { -6, 'the parent queue has ' .. parts .. ' partitions: parents in another queue must be in a queue without'
    .. ' partitions (docs/flows.md)' }
end
local ids, refs = {}, {}
for i = 1, n do
  ids[i], refs[i] = ARGV[3 + 2 * i], ARGV[4 + 2 * i]
end
local function m(i) return '\255\0' .. set .. '\0' .. child .. '\0' .. link .. '\0' .. refs[i] end
if mode == 'unlink' then
  for i = 1, n do redis.call('SREM', k_children .. ids[i], m(i)) end
  return { 1 }
end
local raws = records_of(k_jobs, ids)
for i = 1, n do
  if not raws[i] then return { -20, 0, ids[i] } end
end
local out = { 1 }
for i = 1, n do
  local r = safe_decode(raws[i])
  local s = r and r.state or DEAD -- a parent that cannot be decoded will not finish: as dead
  if s == DONE then
    out[i + 1] = 'd'
  elseif s == DEAD then
    out[i + 1] = 'x'
  else
    out[i + 1] = 'l'
    redis.call('SADD', k_children .. ids[i], m(i))
    if not r.parent then
      r.parent = true
      redis.call('HSET', k_jobs, ids[i], encode(r))
      drop_overlays(k_jobs, { ids[i] }) -- the lease, if under an overlay, is now in the record
    end
  end
end
return out
