-- notify: wake sleeping workers when a script makes an earlier job the head of the due set.
-- Workers sleep until the head's due time; they only need to hear of a head that is EARLIER than the
-- one they last saw. A job added behind the head, or at the head's own ms, needs no message.
local function head_score(due_key)
  local h = redis.call('ZRANGE', due_key, 0, 0, 'WITHSCORES')
  if h[2] then return tonumber(h[2]) end
  return nil
end

local function publish_if_earlier(due_key, channel, before)
  local after = head_score(due_key)
  if after and (before == nil or after < before) then
    redis.call('PUBLISH', channel, int(after))
  end
end
