-- list: one page of the jobs in one state, in index order (due time, lease expiry or finish time).
-- KEYS[1] the state's index zset (due, leases, done or dead)   KEYS[2] jobs hash
-- ARGV[1] "1" when the index is the due set (members carry the seq prefix)   ARGV[2] start rank
-- ARGV[3] page size
-- Returns { total, id_1, record_1 (false if gone), score_1, ... }
-- @include record
local page = redis.call('ZRANGE', KEYS[1], tonumber(ARGV[2]), tonumber(ARGV[2]) + tonumber(ARGV[3]) - 1, 'WITHSCORES')
local out = { redis.call('ZCARD', KEYS[1]) }
local n = #page / 2
if n == 0 then return out end
local ids = {}
for i = 1, n do
  ids[i] = ARGV[1] == '1' and member_id(page[2 * i - 1]) or page[2 * i - 1]
end
local raws = redis.call('HMGET', KEYS[2], unpack(ids))
for i = 1, n do
  out[#out + 1] = ids[i]
  out[#out + 1] = raws[i]
  out[#out + 1] = tonumber(page[2 * i])
end
return out
