-- list: one page of the jobs of an index whose members are ids (leases, done or dead), in index order (lease expiry or
-- finish time). list_due reads the due sets, list_batches the done batch entries.
-- KEYS[1] index zset (leases, done or dead)   KEYS[2] jobs hash
-- ARGV[1] start rank   ARGV[2] page size   ARGV[3] most record bytes to return (at least one entry is returned)
-- ARGV[4] most payload bytes per record (-1: whole; a preview: the rest is only counted)
-- Returns { total, id_1, record_1, score_1, payload_bytes_1, ... }: record false if gone; payload bytes the whole
--   payload's size when the record was cut, else -1; fewer entries than the page size when the byte bound was reached
--   (the caller goes on from start + entries); { -6, what } malformed arguments.
-- @include record
-- @include page
local start, size, max_bytes = whole(ARGV[1], 0, 2 ^ 50), whole(ARGV[2], 1, 10000), whole(ARGV[3], 1, 2 ^ 40)
local most = whole(ARGV[4], -1, 2 ^ 40)
if not (start and size and max_bytes and most) then return { -6, 'malformed list arguments' } end
return index_page(start, size, max_bytes, nil, nil, most)
