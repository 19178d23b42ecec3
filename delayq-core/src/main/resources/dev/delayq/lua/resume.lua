-- resume: hand out the queue's jobs again after pause.lua, and wake idle workers (a notice on the wake channel).
-- KEYS[1] meta hash
-- ARGV[1] wake channel
-- Returns { changed }: 1 when the queue was paused, else 0.
local changed = redis.call('HDEL', KEYS[1], 'paused')
if changed == 1 then redis.call('PUBLISH', ARGV[1], '0') end
return { changed }
