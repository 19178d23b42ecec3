-- page: one page of an index of jobs, for list and list_due (one script per operation, this their common part).
-- KEYS as theirs: KEYS[1] the index zset   KEYS[2] jobs hash

-- Returns { total, id_1, record_1 (false if gone), score_1, ... } from rank start, at most size entries and, past the
-- first, max_bytes of records. ids: the index's member to the id (nil: the member is the id); score: its score to the
-- time it holds (nil: the score is it).
local function index_page(start, size, max_bytes, id_of, time_of)
  local page = redis.call('ZRANGE', KEYS[1], start, start + size - 1, 'WITHSCORES')
  local out = { redis.call('ZCARD', KEYS[1]) }
  local bytes = 0
  for i = 1, #page / 2 do
    if i > 1 and bytes >= max_bytes then break end
    local id = id_of and id_of(page[2 * i - 1]) or page[2 * i - 1]
    local raw = record_of(KEYS[2], id)
    if raw then bytes = bytes + #raw end
    out[#out + 1] = id
    out[#out + 1] = raw
    out[#out + 1] = time_of and time_of(tonumber(page[2 * i])) or tonumber(page[2 * i])
  end
  return out
end
