-- notify: wake sleeping workers when a script makes an earlier job the head of the queue.
-- Workers sleep until the head's due time; they only need to hear of a head that is EARLIER than the one they
-- last saw. A job added behind the head, or at the head's own ms, needs no message. (With priorities, the head is
-- the earliest due time over every priority: see flow.lua, earliest_due.)
-- The lowest score of the sorted set key (the due set's head; recover_expired's earliest lease), or nil when empty.
local function head_score(key)
  local h = redis.call('ZRANGE', key, '0', '0', 'WITHSCORES')
  if h[2] then return tonumber(h[2]) end
  return nil
end

-- Publishes the new head when it is earlier than the head before the script's change.
local function publish_if_earlier(channel, before, after)
  if after and (before == nil or after < before) then
    redis.call('PUBLISH', channel, int(after))
  end
end
