-- record: the packed job record and the due-set member, shared by every script.
--
-- A job lives in one field of the queue's jobs hash (field = job id). Its value is packed so that a scheduled
-- job with a 100-byte payload stays in jemalloc's 112-byte class (see BENCHMARKS.md, W4):
--   byte 1              state (bits 0-2: 1 scheduled, 2 processing, 3 done, 4 dead)
--                       | 8 due follows | 16 token follows | 32 error follows | 64 created follows
--                       | 128 extension fields follow
--   varint              seq: enqueue sequence; orders equal due times and names the due-set member
--   [varint]            created: enqueue time, whole seconds since 2020-01-01T00:00:00Z (Redis clock)
--   [varint]            due ms, only when not scheduled (while scheduled the due-set score is the due time)
--   [varint]            fencing token of the current or last lease
--   [varint, bytes]     last error summary
--   [varint mask, ...]  extension fields, present when their bit is set, in this order:
--                         1 attempt (attempts started and not handed back; 0 when absent)
--                         2 max attempts (0 when absent: the worker's policy decides)
--                         4 stalls (leases that expired: the worker died or its reply was lost)
--                         8 name (varint length, bytes)
--                         16 dedupe key (varint length, bytes) and hold-until ms (varint)
--                         32 priority (varint; absent = 0)
--                         64 timeout ms (varint)
--   rest                payload, byte for byte
-- Varints are little-endian base 128 (high bit = more bytes follow); exact up to 2^53. Fields that are
-- usually zero live in the extension so that a fresh job costs a flags byte, its sequence and its enqueue time.
--
-- Due-set member = 6-byte big-endian seq .. id: members with an equal score (the same due ms) sort by
-- seq, i.e. in enqueue order, and the score stays the exact due ms (never a composite above 2^53).
local SCHEDULED, PROCESSING, DONE, DEAD = 1, 2, 3, 4
local F_DUE, F_TOKEN, F_ERROR, F_CREATED, F_EXT = 8, 16, 32, 64, 128
local X_ATTEMPT, X_MAX, X_STALLS, X_NAME, X_DEDUPE, X_PRIORITY, X_TIMEOUT = 1, 2, 4, 8, 16, 32, 64
local MAX_DUE = 253402300799999 -- 9999-12-31T23:59:59.999Z
local CREATED_EPOCH = 1577836800 -- 2020-01-01T00:00:00Z, in seconds
local UNDECODABLE = 'record cannot be decoded'

-- Appends the varint bytes of n to the byte array b (as numbers; one string.char builds the header).
local function put_varint(b, n)
  while n >= 128 do
    local low = n % 128
    b[#b + 1] = low + 128
    n = (n - low) / 128
  end
  b[#b + 1] = n
end

-- Decoding reads bytes through a window: one string.byte call fetches up to WINDOW bytes into a table (in Lua
-- 5.1 a C call per byte costs more), refilled when a field starts near its end or past it (after a string).
local WINDOW = 32

-- The varint at raw[pos], read through the window b (b[1] is raw[from]); returns the number, the next position
-- and the (possibly refilled) window. Errors (caught by safe_decode's pcall) when the record ends inside it.
local function varint_at(raw, b, from, pos)
  if pos - from + 9 > #b and from + #b <= #raw then
    from = pos
    b = { string.byte(raw, pos, pos + WINDOW - 1) }
  end
  local k = pos - from + 1
  local c = b[k]
  if not c then error('truncated record') end
  if c < 128 then return c, pos + 1, b, from end
  local n, mul = c - 128, 128
  while true do
    k = k + 1
    pos = pos + 1
    c = b[k]
    if not c then error('truncated record') end
    if c < 128 then return n + c * mul, pos + 1, b, from end
    n = n + (c - 128) * mul
    mul = mul * 128
    if mul > 72057594037927936 then error('varint too long') end
  end
end

-- A length-prefixed string at raw[pos]; returns it, the next position and the window.
local function bytes_at(raw, b, from, pos)
  local len
  len, pos, b, from = varint_at(raw, b, from, pos)
  if pos + len - 1 > #raw then error('truncated record') end
  return string.sub(raw, pos, pos + len - 1), pos + len, b, from
end

-- Decodes a record into a table; errors on a record it cannot read (use safe_decode).
local function decode(raw)
  local b = { string.byte(raw, 1, WINDOW) }
  local flags = b[1]
  if not flags then error('empty record') end
  local state = flags % 8
  if state < SCHEDULED or state > DEAD then error('unknown state') end
  local r = { state = state, raw = raw, attempt = 0, max = 0, stalls = 0, priority = 0 }
  local from, pos = 1, 2
  r.seq, pos, b, from = varint_at(raw, b, from, pos)
  if flags % 128 >= F_CREATED then r.created, pos, b, from = varint_at(raw, b, from, pos) end
  if flags % 16 >= F_DUE then r.due, pos, b, from = varint_at(raw, b, from, pos) end
  if flags % 32 >= F_TOKEN then r.token, pos, b, from = varint_at(raw, b, from, pos) end
  if flags % 64 >= F_ERROR then r.err, pos, b, from = bytes_at(raw, b, from, pos) end
  if flags >= F_EXT then
    local mask
    mask, pos, b, from = varint_at(raw, b, from, pos)
    if mask % 2 >= 1 then r.attempt, pos, b, from = varint_at(raw, b, from, pos) end
    if mask % 4 >= 2 then r.max, pos, b, from = varint_at(raw, b, from, pos) end
    if mask % 8 >= 4 then r.stalls, pos, b, from = varint_at(raw, b, from, pos) end
    if mask % 16 >= 8 then r.name, pos, b, from = bytes_at(raw, b, from, pos) end
    if mask % 32 >= 16 then
      r.dedupe, pos, b, from = bytes_at(raw, b, from, pos)
      r.hold, pos, b, from = varint_at(raw, b, from, pos)
    end
    if mask % 64 >= 32 then r.priority, pos, b, from = varint_at(raw, b, from, pos) end
    if mask % 128 >= 64 then r.timeout, pos, b, from = varint_at(raw, b, from, pos) end
  end
  if pos > #raw + 1 then error('truncated record') end
  r.body = pos
  return r
end

-- The record, or nil when it cannot be decoded (a script must never fail half-way on one bad record).
local function safe_decode(raw)
  if not raw then return nil end
  local ok, r = pcall(decode, raw)
  if ok then return r end
  return nil
end

-- The packed record of r, followed by body (the payload).
local function encode_with_body(r, body)
  local mask = 0
  if r.attempt > 0 then mask = mask + X_ATTEMPT end
  if r.max > 0 then mask = mask + X_MAX end
  if r.stalls > 0 then mask = mask + X_STALLS end
  if r.name then mask = mask + X_NAME end
  if r.dedupe then mask = mask + X_DEDUPE end
  if r.priority > 0 then mask = mask + X_PRIORITY end
  if r.timeout then mask = mask + X_TIMEOUT end
  local b = { r.state }
  put_varint(b, r.seq)
  if r.created then
    b[1] = b[1] + F_CREATED
    put_varint(b, r.created)
  end
  if r.state ~= SCHEDULED and r.due then
    b[1] = b[1] + F_DUE
    put_varint(b, r.due)
  end
  if r.token then
    b[1] = b[1] + F_TOKEN
    put_varint(b, r.token)
  end
  if r.err then
    b[1] = b[1] + F_ERROR
    put_varint(b, #r.err)
  end
  if mask == 0 then
    return string.char(unpack(b)) .. (r.err or '') .. body
  end
  b[1] = b[1] + F_EXT
  local segs = { string.char(unpack(b)), r.err or '' }
  local x = {}
  put_varint(x, mask)
  if r.attempt > 0 then put_varint(x, r.attempt) end
  if r.max > 0 then put_varint(x, r.max) end
  if r.stalls > 0 then put_varint(x, r.stalls) end
  if r.name then
    put_varint(x, #r.name)
    segs[#segs + 1] = string.char(unpack(x))
    segs[#segs + 1] = r.name
    x = {}
  end
  if r.dedupe then
    put_varint(x, #r.dedupe)
    segs[#segs + 1] = string.char(unpack(x))
    segs[#segs + 1] = r.dedupe
    x = {}
    put_varint(x, r.hold)
  end
  if r.priority > 0 then put_varint(x, r.priority) end
  if r.timeout then put_varint(x, r.timeout) end
  if #x > 0 then segs[#segs + 1] = string.char(unpack(x)) end
  segs[#segs + 1] = body
  return table.concat(segs)
end

-- The same record with another state and nothing else changed: only the first byte is rewritten.
local function with_state(r, state)
  return string.char(string.byte(r.raw, 1) - r.state + state) .. string.sub(r.raw, 2)
end

-- The record with its fields as in r and the payload it was decoded with.
local function encode(r)
  return encode_with_body(r, string.sub(r.raw, r.body))
end

-- The record of a new scheduled job. o holds the optional fields (max, name, dedupe, hold, priority,
-- timeout); created is the enqueue time in seconds since 2020.
local function fresh_record(payload, seq, created, o)
  if not o then
    local b = { SCHEDULED + F_CREATED }
    put_varint(b, seq)
    put_varint(b, created)
    return string.char(unpack(b)) .. payload
  end
  local r = { state = SCHEDULED, seq = seq, created = created, attempt = 0, max = o.max or 0, stalls = 0,
    name = o.name, dedupe = o.dedupe, hold = o.hold, priority = o.priority or 0, timeout = o.timeout }
  return encode_with_body(r, payload)
end

-- A dead record holding the raw bytes of a record that cannot be decoded, so nothing is lost and an
-- operator can see what was there.
local function quarantine_record(raw, seq, now)
  return encode_with_body({ state = DEAD, seq = seq, due = now, err = UNDECODABLE, attempt = 0, max = 0, stalls = 0,
    priority = 0 }, raw)
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

-- Enqueue time as stored: whole seconds since 2020-01-01 on Redis's clock.
local function created_now(now_micros)
  return math.floor(now_micros / 1000000) - CREATED_EPOCH
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

-- A whole number in [lo, hi] from a script argument, or nil.
local function whole(s, lo, hi)
  local n = tonumber(s)
  if not n or n ~= math.floor(n) or n < lo or n > hi then return nil end
  return n
end

-- Parses "d<ms>" (delay from now, Redis time in microseconds) or "a<ms>" (absolute due ms); nil when out
-- of range or malformed.
local function due_from(when, now_micros)
  local kind, v = string.sub(when, 1, 1), whole(string.sub(when, 2), 0, MAX_DUE)
  if not v or (kind ~= 'd' and kind ~= 'a') then return nil end
  local due = kind == 'd' and after(now_micros, v) or v
  if due > MAX_DUE then return nil end
  return due
end
