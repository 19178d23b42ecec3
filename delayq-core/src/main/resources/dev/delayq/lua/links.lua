-- links: a job's flow links (docs/flows.md, includes/deps.lua), read atomically.
-- KEYS[1] jobs hash   KEYS[2] deps hash   KEYS[3] children key prefix
-- ARGV[1] id
-- Returns { exists, pending, done, dead, policy, children }: exists 0 when there is no such job (the rest 0); pending,
--   done and dead count its parents while it waits for them (each -1 when it waits for none: never did, or was
--   released); policy 1 when a dead parent counts as finished (ignore), 0 otherwise; children: the jobs waiting for it.
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return { 0, 0, 0, 0, 0, 0 } end
local children = redis.call('SCARD', KEYS[3] .. ARGV[1])
local v = redis.call('HGET', KEYS[2], 'n\0' .. ARGV[1])
local p, dn, dd, pol = string.match(v or '', '^(%d+):(%d+):(%d+):([01]):')
if not p then return { 1, -1, -1, -1, 0, children } end
return { 1, tonumber(p), tonumber(dn), tonumber(dd), tonumber(pol), children }
