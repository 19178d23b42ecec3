-- workers: the live workers of a queue (heartbeat not expired by Redis's clock), read atomically.
-- KEYS[1] workers zset (member = worker id, score = expiry ms)
-- KEYS[2] workers info hash (worker id -> beat ms .. "\n" .. the worker's info)
-- ARGV[1] most workers returned
-- Returns { now (ms), id_1 (a worker's id), info_1, ... }, soonest expiry first (an id without info is left out).
local most = tonumber(ARGV[1])
if most == nil or most < 1 or most ~= math.floor(most) then
  return { -6, 'malformed workers arguments' }
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local out = { now }
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. string.format('%d', now), '+inf', 'LIMIT', 0, most)
for _, id in ipairs(ids) do
  local info = redis.call('HGET', KEYS[2], id)
  if info then
    out[#out + 1] = id
    out[#out + 1] = info
  end
end
return out
