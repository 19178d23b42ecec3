-- claim_minimal: the least a claim can do, to measure what Redis allows: take up to N due members of a
-- sorted set and remove them, in one atomic step. No job records, leases or tokens, so it bounds
-- delayq's claim.lua from above.
-- KEYS[1] the sorted set
-- ARGV[1] now (ms): members scored at or before it are due   ARGV[2] most members to take
-- Returns the members taken (an empty list when none is due).
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
if #due > 0 then
  redis.call('ZREM', KEYS[1], unpack(due))
end
return due
