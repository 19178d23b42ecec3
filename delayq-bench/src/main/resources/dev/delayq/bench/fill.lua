-- fill: prefill the sorted set that claim_minimal.lua drains, inside Redis (no network per member).
-- KEYS[1] the sorted set
-- ARGV[1] number of the first member   ARGV[2] how many members
-- Member i is "m<i>" with score i (ms since the epoch: long due).
-- Returns the set's size afterwards.
local key, first, n = KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2])
local chunk = 500 -- members per ZADD: unpack() is bounded by Lua's C stack
local args = {}
for i = first, first + n - 1 do
  args[#args + 1] = i
  args[#args + 1] = 'm' .. i
  if #args == 2 * chunk then
    redis.call('ZADD', key, unpack(args))
    args = {}
  end
end
if #args > 0 then
  redis.call('ZADD', key, unpack(args))
end
return redis.call('ZCARD', key)
