-- page: one page of an index of jobs, for list and list_due (one script per operation, this their common part).
-- KEYS as theirs: KEYS[1] the index zset   KEYS[2] jobs hash

-- A record cut for a preview (issue 43: a dashboard's list of 10 MB jobs must not carry them whole): its header and the
-- first `most` bytes of its payload, and the payload's whole size; -1 for the size when nothing was cut. most < 0:
-- never cut. A record that cannot be decoded is cut to `most` bytes of its own (its reader shows the raw bytes).
local function preview_cut(raw, most)
  if not raw or most < 0 or #raw <= most then return raw, -1 end
  local r = safe_decode(raw)
  if not r then return string.sub(raw, 1, most), #raw end
  -- r.raw is the record decode read: for a done record with its finish time, 6 bytes shorter than raw's header.
  local size = #r.raw - r.body + 1
  if size <= most then return raw, -1 end
  return string.sub(raw, 1, #raw - size + most), size
end

-- Returns { total, id_1, record_1 (false if gone), score_1, payload_bytes_1, ... } from rank start, at most size entries
-- and, past the first, max_bytes of records; each record cut to `most` payload bytes (preview_cut: payload_bytes its
-- whole payload's size, -1 when not cut). ids: the index's member to the id (nil: the member is the id); score: its score to the
-- time it holds (nil: the score is it).
local function index_page(start, size, max_bytes, id_of, time_of, most)
  local page = redis.call('ZRANGE', KEYS[1], start, start + size - 1, 'WITHSCORES')
  local out = { redis.call('ZCARD', KEYS[1]) }
  local bytes = 0
  for i = 1, #page / 2 do
    if i > 1 and bytes >= max_bytes then break end
    local id = id_of and id_of(page[2 * i - 1]) or page[2 * i - 1]
    local raw, whole = preview_cut(record_of(KEYS[2], id), most or -1)
    if raw then bytes = bytes + #raw end
    out[#out + 1] = id
    out[#out + 1] = raw
    out[#out + 1] = time_of and time_of(tonumber(page[2 * i])) or tonumber(page[2 * i])
    out[#out + 1] = whole
  end
  return out
end
