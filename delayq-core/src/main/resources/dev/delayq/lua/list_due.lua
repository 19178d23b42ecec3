-- list_due: one page of the scheduled jobs of one due set, in index order (due time): the due set of priority 0 or the
-- priority due set (its scores hold the priority band: the due time is the score modulo 2^48; a due set's scores are
-- below 2^48, year 9999 being 253,402,300,799,999 ms). Members carry the sequence prefix (record.lua's member).
-- KEYS[1] index zset (due or priority due)   KEYS[2] jobs hash
-- ARGV[1] start rank   ARGV[2] page size   ARGV[3] most record bytes to return (at least one entry is returned)
-- ARGV[4] most payload bytes per record (-1: whole; a preview: the rest is only counted)
-- Returns { total, id_1, record_1, due_1, payload_bytes_1, ... }: record false if gone; payload bytes the whole
--   payload's size when the record was cut, else -1; fewer entries than the page size when the byte bound was reached
--   (the caller goes on from start + entries); { -6, what } malformed arguments.
-- @include record
-- @include page
local start, size, max_bytes = whole(ARGV[1], 0, 2 ^ 50), whole(ARGV[2], 1, 10000), whole(ARGV[3], 1, 2 ^ 40)
local most = whole(ARGV[4], -1, 2 ^ 40)
if not (start and size and max_bytes and most) then return { -6, 'malformed list arguments' } end
return index_page(start, size, max_bytes, member_id, function(score) return score % 281474976710656 end, most)
