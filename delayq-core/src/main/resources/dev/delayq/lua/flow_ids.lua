-- flow_ids: the jobs behind a job's flow links (docs/flows.md, includes/deps.lua), read atomically, for the pages that
-- link a job to its parents and children. Reads only.
-- KEYS[1] jobs hash   KEYS[2] deps hash   KEYS[3] children key prefix
-- ARGV[1] id   ARGV[2] most children to list (0 to 1000)
-- Returns { exists, parents, children, id_1, state_1, ... }: exists 0 when there is no such job (and nothing else);
--   parents: how many of the items are its parents (the first ones: the parents it waited for at its enqueue, in that
--   order, while it still waits; none once released or ended); children: how many jobs wait for it; the items after
--   the parents are the first of those children (at most ARGV[2], by enqueue order among those read: all of them when
--   they are at most 1000, else the ones one bounded scan met). state: the job's record state code (0: no such job).
-- @include record
local most = whole(ARGV[2], 0, 1000)
if not most then return { -6, 'malformed flow_ids arguments' } end
local id = ARGV[1]
if redis.call('HEXISTS', KEYS[1], id) == 0 then return { 0 } end
local ids = {}
local listed = redis.call('HGET', KEYS[2], 'p\0' .. id)
if listed then
  for p in string.gmatch(listed, '[^\1]+') do ids[#ids + 1] = p end
end
local parents = #ids
local k_children = KEYS[3] .. id
local children = redis.call('SCARD', k_children)
if children > 0 and most > 0 then
  local got
  if children <= 1000 then
    got = redis.call('SMEMBERS', k_children)
  else
    -- A large set: a bounded scan (each step visits a bounded number of buckets), not the whole set.
    got = {}
    local cursor = '0'
    repeat
      local r = redis.call('SSCAN', k_children, cursor, 'COUNT', int(most))
      cursor = r[1]
      for i = 1, #r[2] do got[#got + 1] = r[2][i] end
    until cursor == '0' or #got >= most
  end
  table.sort(got) -- members start with the 6-byte enqueue sequence: enqueue order
  for i = 1, math.min(most, #got) do ids[#ids + 1] = member_id(got[i]) end
end
local out = { 1, parents, children }
if #ids > 0 then
  local raws = records_of(KEYS[1], ids)
  for i = 1, #ids do
    local state = 0
    if raws[i] then
      state = string.byte(raws[i], 1) % 8
      if state == DONE_AT then state = DONE end
    end
    out[#out + 1] = ids[i]
    out[#out + 1] = state
  end
end
return out
