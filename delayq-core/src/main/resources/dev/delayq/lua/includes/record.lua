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

local function read_varint(s, pos)
  local n, mul = 0, 1
  while true do
    local b = string.byte(s, pos)
    pos = pos + 1
    if b < 128 then
      return n + b * mul, pos
    end
    n = n + (b - 128) * mul
    mul = mul * 128
  end
end

local function decode(raw)
  local b = string.byte(raw, 1)
  local r = { state = b % 8 }
  local pos = 2
  r.attempt, pos = read_varint(raw, pos)
  r.max, pos = read_varint(raw, pos)
  r.seq, pos = read_varint(raw, pos)
  if bit.band(b, F_DUE) ~= 0 then r.due, pos = read_varint(raw, pos) end
  if bit.band(b, F_TOKEN) ~= 0 then r.token, pos = read_varint(raw, pos) end
  if bit.band(b, F_ERROR) ~= 0 then
    local len
    len, pos = read_varint(raw, pos)
    r.err = string.sub(raw, pos, pos + len - 1)
    pos = pos + len
  end
  r.raw = raw
  r.body = pos
  return r
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

-- Integers as redis.call arguments: '%.0f' is exact for every integer a double holds, where tostring()
-- and '..' would print 14 significant digits and lose the last ones of a due time.
local function int(n)
  return string.format('%.0f', n)
end

local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- Allocates n consecutive sequence numbers; returns the first.
local function next_seqs(meta, n)
  return redis.call('HINCRBY', meta, 'seq', n) - n + 1
end

local function count(meta, field, n)
  if n > 0 then redis.call('HINCRBY', meta, field, n) end
end

-- Parses "d<ms>" (delay from now) or "a<ms>" (absolute due ms); nil when out of range.
local function due_from(when, now)
  local kind, v = string.sub(when, 1, 1), tonumber(string.sub(when, 2))
  local due = kind == 'd' and now + v or v
  if due < 0 or due > MAX_DUE then return nil end
  return due
end
