-- results: what handlers return, for the job's own done record and for its children (docs/flows.md, "Results").
--
-- The results hash of the queue (all in its slot) holds two kinds of fields:
--   job id            -> the result of a done job (at most RESULT_MAX bytes), written by complete.lua in the same step
--                        that writes the job done, only while done jobs are kept (done retention > 0); deleted with
--                        the done record (purge, delete). A job without a result writes nothing.
--   NUL child id      -> the ids of every parent the child named (separated by byte 1; one in another key set as byte
--                        2 and its "queue/id"), written by enqueue.lua for a job with parents (the deps hash forgets them at the release); read by parent_results.lua,
--                        deleted with the child's record (purge, delete, cancel, completion without retention).
-- Meta field `results` is present once a parent list was written: a completion without retention deletes the lists
-- of the jobs it finishes only then (it reads the field with the flow configuration, in the meta read it makes
-- anyway). A completion call without results parses its leases as before, and purge pays one EXISTS per call.
local RESULT_MAX = {{MAX_RESULT_BYTES}}

-- complete.lua's leases from ARGV[first] on, where a lease whose handler left a result sends its token followed by 'r'
-- and then the result: the ids, tokens and results (by position), or nil and what is malformed.
local function results_args(first)
  local ids, tokens, results = {}, {}, {}
  local n, a, argc = 0, first, #ARGV
  while a <= argc do
    n = n + 1
    ids[n] = ARGV[a]
    local t = ARGV[a + 1]
    if not t then return nil, 'malformed complete arguments' end
    tokens[n] = whole(t, 0, 2 ^ 53)
    if not tokens[n] then
      t = string.match(t, '^(%d+)r$')
      tokens[n] = t and whole(t, 0, 2 ^ 53)
      if not tokens[n] or not ARGV[a + 2] or #ARGV[a + 2] > RESULT_MAX then return nil, 'malformed token of job ' .. n end
      results[n] = ARGV[a + 2]
      a = a + 1
    end
    a = a + 2
  end
  return ids, tokens, results
end

-- Writes the results of the jobs complete.lua has just written done (out[i] == 1) with retention.
local function results_keep(k_results, ids, results, out)
  local f, n = {}, 0
  for i, v in pairs(results) do
    if out[i] == 1 then
      f[n + 1], f[n + 2] = ids[i], v
      n = n + 2
    end
  end
  if n > 0 then redis.call('HSET', k_results, unpack(f)) end
end

-- Records the parents of the child just created: the ids of those of this key set (parents), then, each behind byte 2,
-- the refs ("queue/id") of those in other key sets (remote: { status, ref } as remote.lua parses them), whose results
-- the client reads from their own key sets.
local function results_parents(k_results, k_meta, child, parents, remote)
  local all = {}
  for i = 1, parents and #parents or 0 do all[i] = parents[i] end
  if remote then
    for _, e in ipairs(remote) do all[#all + 1] = '\2' .. e[2] end
  end
  redis.call('HSET', k_results, '\0' .. child, table.concat(all, '\1'))
  redis.call('HSET', k_meta, 'results', '1')
end

-- Deletes the results and parent lists of ids (jobs whose records are deleted).
local function results_drop(k_results, ids)
  local f, n = {}, 0
  for i = 1, #ids do
    f[n + 1], f[n + 2] = ids[i], '\0' .. ids[i]
    n = n + 2
  end
  if n > 0 then redis.call('HDEL', k_results, unpack(f)) end
end

-- The results of the parents of child that are still kept: { parent_1, result_1, ... } in the order it named them; a
-- parent in another key set as its byte 2 and ref with false (nil in the reply): the client reads it there.
local function results_of_parents(k_results, child)
  local list = redis.call('HGET', k_results, '\0' .. child)
  if not list then return {} end
  local ps, own = {}, {}
  for p in string.gmatch(list, '[^\1]+') do
    ps[#ps + 1] = p
    if string.byte(p, 1) ~= 2 then own[#own + 1] = p end
  end
  local got = #own > 0 and redis.call('HMGET', k_results, unpack(own)) or {}
  local out, j = {}, 0
  for i = 1, #ps do
    if string.byte(ps[i], 1) == 2 then
      out[#out + 1] = ps[i]
      out[#out + 1] = false
    else
      j = j + 1
      if got[j] then
        out[#out + 1] = ps[i]
        out[#out + 1] = got[j]
      end
    end
  end
  return out
end
