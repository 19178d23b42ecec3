-- pause: stop or resume handing out the queue's jobs. While paused, enqueues and every other operation work,
-- claims return nothing (and recover nothing), and idle workers sleep until the resume notice.
-- KEYS[1] meta hash
-- ARGV[1] "1" pause, "0" resume   ARGV[2] wake channel
-- Returns { changed (1 when the queue was not already in that state) }.
if ARGV[1] == '1' then
  return { redis.call('HSET', KEYS[1], 'paused', '1') }
elseif ARGV[1] == '0' then
  local changed = redis.call('HDEL', KEYS[1], 'paused')
  if changed == 1 then redis.call('PUBLISH', ARGV[2], '0') end
  return { changed }
end
return { -6, 'malformed pause arguments' }
