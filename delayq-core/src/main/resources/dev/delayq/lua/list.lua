-- list: one page of the jobs in one state, in index order (due time, lease expiry or finish time).
-- KEYS[1] the state's index zset (due, leases, done or dead)   KEYS[2] jobs hash
-- ARGV[1] "1" when the index is the due set (members carry the seq prefix), "2" for the priority due set (scores
--   hold the priority band: the due time is the score modulo 2^48), "0" for the other indexes   ARGV[2] start rank
-- ARGV[3] page size   ARGV[4] most record bytes to return (at least one entry is returned)
-- Returns { total, id_1, record_1 (false if gone), score_1, ... }: fewer entries than the page size when the
--   byte bound was reached (the caller goes on from start + entries).
-- ARGV[1] "3": KEYS[1] is the done batches set (record.lua), read from the id numbered ARGV[5] (0 = its first) of its
--   entry of rank ARGV[2], after skipping ARGV[6] ids (counted in the entries, their records not read; a call reads at
--   most 1,000 entries, or max bytes of them, to skip); ARGV[3] is then the most jobs to return. Returns { entries in
--   the set, rank and id number to go on from, ids still to skip, id_1, record_1, finish ms_1, ... }: only the ids
--   that are still their entry's jobs (done, with its finish time), stopping inside an entry at the page size or the
--   byte bound.
-- @include record
local start, size, max_bytes = whole(ARGV[2], 0, 2 ^ 50), whole(ARGV[3], 1, 10000), whole(ARGV[4], 1, 2 ^ 40)
if not (start and size and max_bytes) then return { -6, 'malformed list arguments' } end
if ARGV[1] == '3' then
  local from, skip = whole(ARGV[5], 0, 2 ^ 31), whole(ARGV[6], 0, 2 ^ 50)
  if not (from and skip) then return { -6, 'malformed list arguments' } end
  local total, rank = redis.call('ZCARD', KEYS[1]), start
  local read, read_bytes = 0, 0
  while skip > 0 and rank < total and read < 1000 and read_bytes < max_bytes do
    local ms = redis.call('ZRANGE', KEYS[1], rank, rank + 99)
    if #ms == 0 then break end
    for _, m in ipairs(ms) do
      local _, left = string.gsub(m, '%z', '') -- its ids, each behind a zero byte
      left = left - from
      if skip < left then
        from, skip = from + skip, 0
        break
      end
      skip, from, rank, read, read_bytes = skip - left, 0, rank + 1, read + 1, read_bytes + #m
      if read >= 1000 or read_bytes >= max_bytes then break end
    end
  end
  local out = { total, rank, from, skip }
  if skip > 0 then return out end
  local listed, bytes, stop = 0, 0, false
  while not stop and rank < total do
    local page = redis.call('ZRANGE', KEYS[1], rank, rank + 9, 'WITHSCORES')
    if #page == 0 then break end
    for e = 1, #page / 2 do
      local score = tonumber(page[2 * e])
      local ids = batch_ids(page[2 * e - 1])
      while from < #ids and listed < size and (listed == 0 or bytes < max_bytes) do
        from = from + 1
        local raw = record_of(KEYS[2], ids[from])
        if finish_in(raw) == score then
          bytes = bytes + #raw
          listed = listed + 1
          out[#out + 1] = ids[from]
          out[#out + 1] = raw
          out[#out + 1] = score
        end
      end
      if from < #ids then
        stop = true
        break
      end
      rank, from = rank + 1, 0
      if listed >= size or bytes >= max_bytes then
        stop = true
        break
      end
    end
  end
  out[2], out[3] = rank, from
  return out
end
local page = redis.call('ZRANGE', KEYS[1], start, start + size - 1, 'WITHSCORES')
local out = { redis.call('ZCARD', KEYS[1]) }
local bytes = 0
for i = 1, #page / 2 do
  if i > 1 and bytes >= max_bytes then break end
  local id = ARGV[1] ~= '0' and member_id(page[2 * i - 1]) or page[2 * i - 1]
  local raw = record_of(KEYS[2], id)
  if raw then bytes = bytes + #raw end
  out[#out + 1] = id
  out[#out + 1] = raw
  out[#out + 1] = ARGV[1] == '2' and tonumber(page[2 * i]) % 281474976710656 or tonumber(page[2 * i])
end
return out
