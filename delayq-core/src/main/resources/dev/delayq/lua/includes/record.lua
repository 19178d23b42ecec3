-- record: the packed job record and the due-set member, shared by every script.
--
-- A job lives in one field of the queue's jobs hash (field = job id). Its value is packed so that a
-- job with a 100-byte payload stays in jemalloc's 112-byte class (see DESIGN.md, Memory):
--   byte 1            state (bits 0-2: 1 scheduled, 2 processing, 3 done, 4 dead)
--                     | 8 (due follows) | 16 (token follows) | 32 (error follows)
--   varint            attempt: attempts started so far
--   varint            max attempts
--   varint            seq: enqueue sequence; orders equal due times and names the due-set member
--   [varint]          due ms, only when not scheduled (while scheduled the due-set score is the due time)
--   [varint]          fencing token of the current or last lease
--   [varint, bytes]   last error summary
--   rest              payload, byte for byte
-- Varints are little-endian base 128 (high bit = more bytes follow); exact up to 2^53.
--
-- Due-set member = 6-byte big-endian seq .. id: members with an equal score (the same due ms) sort by
-- seq, i.e. in enqueue order, and the score stays the exact due ms (never a composite above 2^53).
local SCHEDULED, PROCESSING, DONE, DEAD = 1, 2, 3, 4
local F_DUE, F_TOKEN, F_ERROR = 8, 16, 32
local MAX_DUE = 253402300799999 -- 9999-12-31T23:59:59.999Z

-- Appends the varint bytes of n to the byte array b (as numbers; one string.char builds the header).
local function put_varint(b, n)
  while n >= 128 do
    local low = n % 128
    b[#b + 1] = low + 128
    n = (n - low) / 128
  end
  b[#b + 1] = n
end

-- Reads the varint at b[pos] from a table of byte values; returns the number and the next position.
local function read_varint(b, pos)
  local c = b[pos]
  if c < 128 then return c, pos + 1 end
  local n, mul = c - 128, 128
  while true do
    pos = pos + 1
    c = b[pos]
    if c < 128 then return n + c * mul, pos + 1 end
    n = n + (c - 128) * mul
    mul = mul * 128
  end
end

-- The header is at most 1 + 6 varints of 8 bytes; one string.byte call reads it into a table, which is
-- much cheaper in Lua 5.1 than a call per byte.
local HEADER_MAX = 49

local function decode(raw)
  local b = { string.byte(raw, 1, HEADER_MAX) }
  local flags = b[1]
  local r = { state = flags % 8, raw = raw }
  local pos = 2
  r.attempt, pos = read_varint(b, pos)
  r.max, pos = read_varint(b, pos)
  r.seq, pos = read_varint(b, pos)
  if flags % 16 >= F_DUE then r.due, pos = read_varint(b, pos) end
  if flags % 32 >= F_TOKEN then r.token, pos = read_varint(b, pos) end
  if flags % 64 >= F_ERROR then
    local len
    len, pos = read_varint(b, pos)
    r.err = string.sub(raw, pos, pos + len - 1)
    pos = pos + len
  end
  r.body = pos
  return r
end

-- The same record with another state and nothing else changed: only the first byte is rewritten.
local function with_state(r, state)
  return string.char(string.byte(r.raw, 1) - r.state + state) .. string.sub(r.raw, 2)
end

-- The packed record of a new scheduled job: the enqueue hot path, without building a table.
local function fresh_record(payload, max, seq)
  local b = { SCHEDULED, 0 }
  put_varint(b, max)
  put_varint(b, seq)
  return string.char(unpack(b)) .. payload
end

local function encode(r)
  local b = { r.state }
  put_varint(b, r.attempt)
  put_varint(b, r.max)
  put_varint(b, r.seq)
  if r.state ~= SCHEDULED and r.due then
    b[1] = b[1] + F_DUE
    put_varint(b, r.due)
  end
  if r.token then
    b[1] = b[1] + F_TOKEN
    put_varint(b, r.token)
  end
  local err = ''
  if r.err then
    b[1] = b[1] + F_ERROR
    put_varint(b, #r.err)
    err = r.err
  end
  return string.char(unpack(b)) .. err .. string.sub(r.raw, r.body)
end

local function member(seq, id)
  local b6 = seq % 256
  local n = (seq - b6) / 256
  local b5 = n % 256
  n = (n - b5) / 256
  local b4 = n % 256
  n = (n - b4) / 256
  local b3 = n % 256
  n = (n - b3) / 256
  local b2 = n % 256
  return string.char((n - b2) / 256 % 256, b2, b3, b4, b5, b6) .. id
end

local function member_id(m)
  return string.sub(m, 7)
end

-- Integers as redis.call arguments where Redis parses an integer (LIMIT, PX, HINCRBY) or a string is
-- stored: '%.0f' is exact for every integer a double holds, where tostring() and '..' would print 14
-- significant digits and lose the last ones of a due time. Scores are passed as Lua numbers instead:
-- Redis formats those itself, exactly (%.17g, or the shortest round-trip form on 7.x), and more cheaply.
local function int(n)
  return string.format('%.0f', n)
end

local function now_us()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000000 + tonumber(t[2])
end

local function now_ms()
  return math.floor(now_us() / 1000)
end

-- now + delay as a due time in whole ms, never sooner than asked: a positive delay counts from now rounded
-- up to the next ms (from a floored now it could come out up to 1 ms short: a 200 ms backoff retried after
-- 199.1 ms); no delay means due now, floored, so the job is due at once.
local function after(now_micros, delay_ms)
  if delay_ms > 0 then return math.floor((now_micros + 999) / 1000) + delay_ms end
  return math.floor(now_micros / 1000)
end

-- Allocates n consecutive sequence numbers; returns the first.
local function next_seqs(meta, n)
  return redis.call('HINCRBY', meta, 'seq', n) - n + 1
end

local function count(meta, field, n)
  if n > 0 then redis.call('HINCRBY', meta, field, n) end
end

-- Parses "d<ms>" (delay from now, Redis time in microseconds) or "a<ms>" (absolute due ms); nil when out
-- of range.
local function due_from(when, now_micros)
  local kind, v = string.sub(when, 1, 1), tonumber(string.sub(when, 2))
  local due = kind == 'd' and after(now_micros, v) or v
  if due < 0 or due > MAX_DUE then return nil end
  return due
end
