-- pause: stop handing out the queue's jobs. While paused, enqueues and every other operation work, claims return
-- nothing (and recover nothing), and idle workers sleep until the resume notice (resume.lua).
-- KEYS[1] meta hash
-- Returns { changed }: 1 when the queue was not paused already, else 0.
return { redis.call('HSET', KEYS[1], 'paused', '1') }
