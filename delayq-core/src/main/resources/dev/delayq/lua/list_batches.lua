-- list_batches: one page of the done jobs of the done batch entries (record.lua), in index order (finish time).
-- KEYS[1] done batches zset   KEYS[2] jobs hash
-- ARGV[1] start rank: the entry to start in   ARGV[2] most jobs to return
-- ARGV[3] most record bytes to return (at least one job is returned)
-- ARGV[4] id to start from in that entry, numbered from 0   ARGV[5] ids to skip first (counted in the entries,
--   their records not read; a call reads at most 1,000 entries, or max bytes of them, to skip)
-- ARGV[6] most payload bytes per record (-1: whole; a preview: the rest is only counted)
-- Returns { entries, rank, from, skip, id_1, record_1, finish_1, payload_bytes_1, ... }: entries in the set; the rank
--   and id number to go on from and the ids still to skip; then only the ids that are still their entry's jobs (done,
--   with its finish time), stopping inside an entry at the page size or the byte bound; payload bytes the whole
--   payload's size when the record was cut, else -1; { -6, what } malformed arguments.
-- @include record
-- @include page
local start, size, max_bytes = whole(ARGV[1], 0, 2 ^ 50), whole(ARGV[2], 1, 10000), whole(ARGV[3], 1, 2 ^ 40)
if not (start and size and max_bytes) then return { -6, 'malformed list arguments' } end
local from, skip = whole(ARGV[4], 0, 2 ^ 31), whole(ARGV[5], 0, 2 ^ 50)
local most = whole(ARGV[6], -1, 2 ^ 40)
if not (from and skip and most) then return { -6, 'malformed list arguments' } end
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
        local cut, whole_size = preview_cut(raw, most)
        bytes = bytes + #cut
        listed = listed + 1
        out[#out + 1] = ids[from]
        out[#out + 1] = cut
        out[#out + 1] = score
        out[#out + 1] = whole_size
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
