-- record: the packed job record and the due-set member, shared by every script.
--
-- A job lives in one field of the queue's jobs hash (field = job id), and while a long job that claim leased fresh
-- runs or is kept done, its lease in a second, small field ("\0" .. id: a lease overlay, see below). Its value is packed
-- so that a scheduled job with a 100-byte payload stays in jemalloc's 112-byte class (see BENCHMARKS.md, W4):
--   byte 1              state (bits 0-2: 1 scheduled, 2 processing, 3 done, 4 dead, 6 waiting for its parents: see
--                       deps.lua; a waiting record keeps its due field: the due time it asked for at enqueue)
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
--                         128 trace context (varint length, bytes): the producer's W3C traceparent, then a NUL byte
--                             and its tracestate when it has one. The mask then takes two bytes, the second 1 and
--                             the first the whole mask less 128 plus 128, i.e. the mask itself (128 to 255): the fast
--                             paths below read it as one byte m >= 128 followed by a 1. The trace context is the last
--                             field before the payload, so they skip it as they skip the payload
--                         256 parent (no bytes): the job has or had children waiting for it (see deps.lua), so its end
--                             (done, dead, cancelled, deleted) releases them; the mask then takes two bytes whose second
--                             is not 1, so the fast paths leave such a record to the general path
--                         512 group (varint length, bytes): the job's group key (see groups.lua). Its mask is 512 or
--                             more, a two-byte varint whose second byte is not 1: the fast paths leave such a record
--                             to the general path
--   rest                payload, byte for byte
-- A done job that complete listed in a done batch (below) has state 5 (done, finish time follows) in byte 1 and the
-- time it finished (ms, 6 bytes big-endian) right after it, then the rest of its record from byte 2 on: decode reads
-- it as a done record with r.finished set.
-- Varints are little-endian base 128 (high bit = more bytes follow); exact up to 2^53. Fields that are
-- usually zero live in the extension so that a fresh job costs a flags byte, its sequence and its enqueue time.
--
-- Done batches: complete keeps one entry per call (not per job) in the sorted set `done:batches`, score = the finish
-- ms, member = the fencing token of its first job (unique: a token finishes once) and the ids, each behind a zero
-- byte (ids hold no control characters). Its jobs' records (or, for a job leased under a lease overlay, its overlay:
-- see below) carry that finish time (state 5 above). An entry lists a job only while the job is done with that finish
-- time: cancel and delete take the id out, purge deletes an entry's jobs and the entry; an id whose record says
-- otherwise (deleted when its record could not be decoded, and enqueued again) is not that job and is skipped. Meta
-- field `done_batched` counts the ids the entries hold. Jobs completed by earlier versions have an entry of their own
-- in the `done` sorted set (score = finish ms, member = id) and state 3: every reader still reads them.
--
-- Due-set member = 6-byte big-endian seq .. id: members with an equal score (the same due ms) sort by
-- seq, i.e. in enqueue order, and the score stays the exact due ms (never a composite above 2^53).
local SCHEDULED, PROCESSING, DONE, DEAD = 1, 2, 3, 4
local WAITING = 6 -- waiting for its parents (deps.lua)
local DONE_AT = 5 -- done, finish time follows (see above)
local F_DUE, F_TOKEN, F_ERROR, F_CREATED, F_EXT = 8, 16, 32, 64, 128
local X_ATTEMPT, X_MAX, X_STALLS, X_NAME, X_DEDUPE, X_PRIORITY, X_TIMEOUT, X_TRACE = 1, 2, 4, 8, 16, 32, 64, 128
local X_PARENT = 256
local X_GROUP = 512
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

-- The varint at b[k] of a window that starts at the record's first byte; returns the number and the next index,
-- or nil when the varint does not end inside the window (or is too long): the caller then takes the general path.
local function window_varint(b, k)
  local c = b[k]
  if not c then return nil, k end
  if c < 128 then return c, k + 1 end
  local n, mul = c - 128, 128
  while true do
    k = k + 1
    c = b[k]
    if not c then return nil, k end
    if c < 128 then return n + c * mul, k + 1 end
    n = n + (c - 128) * mul
    mul = mul * 128
    if mul > 72057594037927936 then return nil, k end
  end
end

-- The usual record, read in one pass over the first window: a header of numbers only (no error summary, name or
-- dedupe key) that ends inside the window. nil for any other record, which decode_general reads (and judges).
-- Builds the table in one constructor, sized once.
local function decode_numeric(raw, b, flags, state)
  local seq, k = window_varint(b, 2)
  if not seq then return nil end
  local created, due, token
  if flags % 128 >= F_CREATED then
    created, k = window_varint(b, k)
    if not created then return nil end
  end
  local at_due = k
  if flags % 16 >= F_DUE then
    due, k = window_varint(b, k)
    if not due then return nil end
  end
  if flags % 32 >= F_TOKEN then
    token, k = window_varint(b, k)
    if not token then return nil end
  end
  local at_err = k
  local mask, attempt, max, stalls, priority, timeout = 0, 0, 0, 0, 0, nil
  local after_attempt = k
  if flags >= F_EXT then
    mask, k = window_varint(b, k)
    if not mask or mask % 32 >= X_NAME or mask >= 256 then return nil end
    if mask % 2 >= 1 then
      attempt, k = window_varint(b, k)
      if not attempt then return nil end
    end
    after_attempt = k
    if mask % 4 >= 2 then
      max, k = window_varint(b, k)
      if not max then return nil end
    end
    if mask % 8 >= 4 then
      stalls, k = window_varint(b, k)
      if not stalls then return nil end
    end
    if mask % 64 >= 32 then
      priority, k = window_varint(b, k)
      if not priority then return nil end
    end
    if mask % 128 >= 64 then
      timeout, k = window_varint(b, k)
      if not timeout then return nil end
    end
    if mask >= X_TRACE then -- the trace context, the last field: its length in the window, its bytes anywhere
      local len
      len, k = window_varint(b, k)
      if not len or k + len > #raw + 1 then return nil end
      local r = { state = state, raw = raw, seq = seq, created = created, due = due, token = token, attempt = attempt,
        max = max, stalls = stalls, priority = priority, timeout = timeout, mask = mask, at_due = at_due,
        at_err = at_err, at_ext = at_err, after_attempt = after_attempt, body = k + len }
      r.trace = string.sub(raw, k, k + len - 1)
      return r
    end
  end
  return { state = state, raw = raw, seq = seq, created = created, due = due, token = token, attempt = attempt,
    max = max, stalls = stalls, priority = priority, timeout = timeout, mask = mask, at_due = at_due, at_err = at_err,
    at_ext = at_err, after_attempt = after_attempt, body = k }
end

-- Any record, field by field, refilling the window as needed; errors on a record it cannot read.
local function decode_general(raw, b, flags, state)
  -- Every field that is always set is named here: the constructor sizes the table once (16 slots, room for the
  -- optional fields of a usual record too) instead of growing it field by field.
  local r = { state = state, raw = raw, attempt = 0, max = 0, stalls = 0, priority = 0, seq = 0, at_due = 0, at_err = 0,
    at_ext = 0, mask = 0, after_attempt = 0, body = 0 }
  local from, pos = 1, 2
  r.seq, pos, b, from = varint_at(raw, b, from, pos)
  if flags % 128 >= F_CREATED then r.created, pos, b, from = varint_at(raw, b, from, pos) end
  r.at_due = pos
  if flags % 16 >= F_DUE then r.due, pos, b, from = varint_at(raw, b, from, pos) end
  if flags % 32 >= F_TOKEN then r.token, pos, b, from = varint_at(raw, b, from, pos) end
  r.at_err = pos
  if flags % 64 >= F_ERROR then r.err, pos, b, from = bytes_at(raw, b, from, pos) end
  r.at_ext = pos
  r.after_attempt = pos
  if flags >= F_EXT then
    local mask
    mask, pos, b, from = varint_at(raw, b, from, pos)
    r.mask = mask
    if mask % 2 >= 1 then r.attempt, pos, b, from = varint_at(raw, b, from, pos) end
    r.after_attempt = pos
    if mask % 4 >= 2 then r.max, pos, b, from = varint_at(raw, b, from, pos) end
    if mask % 8 >= 4 then r.stalls, pos, b, from = varint_at(raw, b, from, pos) end
    if mask % 16 >= 8 then r.name, pos, b, from = bytes_at(raw, b, from, pos) end
    if mask % 32 >= 16 then
      r.dedupe, pos, b, from = bytes_at(raw, b, from, pos)
      r.hold, pos, b, from = varint_at(raw, b, from, pos)
    end
    if mask % 64 >= 32 then r.priority, pos, b, from = varint_at(raw, b, from, pos) end
    if mask % 128 >= 64 then r.timeout, pos, b, from = varint_at(raw, b, from, pos) end
    if mask % 256 >= X_TRACE then r.trace, pos, b, from = bytes_at(raw, b, from, pos) end
    if mask % 512 >= X_PARENT then r.parent = true end
    if mask % 1024 >= X_GROUP then r.group, pos, b, from = bytes_at(raw, b, from, pos) end
  end
  if pos > #raw + 1 then error('truncated record') end
  r.body = pos
  return r
end

-- The 6 bytes of a done record's finish time ms (state 5), big-endian.
local function finish_bytes(ms)
  local b = {}
  for i = 6, 1, -1 do
    b[i] = ms % 256
    ms = (ms - b[i]) / 256
  end
  return string.char(unpack(b))
end

-- The finish time ms in a done record or done lease overlay with one (state 5), or nil (v: false or nil, too), read
-- from its bytes alone: decode takes it from here, and so does a reader of a record that cannot be decoded.
local function finish_in(v)
  if not v or #v < 7 or string.byte(v, 1) % 8 ~= DONE_AT then return nil end
  local b1, b2, b3, b4, b5, b6 = string.byte(v, 2, 7)
  return ((((b1 * 256 + b2) * 256 + b3) * 256 + b4) * 256 + b5) * 256 + b6
end

-- Decodes a record into a table; errors on a record it cannot read (use safe_decode). Besides the fields, the
-- table holds where the header's parts start (at_due, at_err, at_ext, after_attempt, body: see leased_record).
local function decode(raw)
  local b = { string.byte(raw, 1, WINDOW) }
  local flags = b[1]
  if not flags then error('empty record') end
  local state = flags % 8
  if state == DONE_AT then
    if #raw < 8 then error('truncated record') end
    local r = decode(string.char(flags - DONE_AT + DONE) .. string.sub(raw, 8))
    r.finished = finish_in(raw)
    return r
  end
  if state < SCHEDULED or (state > DEAD and state ~= WAITING) then error('unknown state') end
  if flags % 64 < F_ERROR then
    local r = decode_numeric(raw, b, flags, state)
    if r then return r end
  end
  return decode_general(raw, b, flags, state)
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
  if r.trace then mask = mask + X_TRACE end
  if r.parent then mask = mask + X_PARENT end
  if r.group then mask = mask + X_GROUP end
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
  if r.trace then
    put_varint(x, #r.trace)
    segs[#segs + 1] = string.char(unpack(x))
    segs[#segs + 1] = r.trace
    x = {}
  end
  if r.group then
    put_varint(x, #r.group)
    segs[#segs + 1] = string.char(unpack(x))
    segs[#segs + 1] = r.group
    x = {}
  end
  if #x > 0 then segs[#segs + 1] = string.char(unpack(x)) end
  segs[#segs + 1] = body
  return table.concat(segs)
end

-- The record of r leased: state processing, due ms and fencing token set, attempt + 1, everything else (its
-- sequence, enqueue time, last error, the other extension fields, the payload) copied from r.raw byte for byte.
-- attempt: the new attempt (r.attempt + 1). Equal to setting those fields in r and calling encode(r), but the header is spliced rather than rebuilt: no
-- tables, and the payload is copied once with whatever of the header follows the attempt (the hot path of claim).
-- Positions come from decode: at_due (after seq and created), at_err, at_ext, after_attempt.
local function leased_record(r, due, token, attempt)
  local raw = r.raw
  local flags = PROCESSING + F_DUE + F_TOKEN + F_EXT
  if r.created then flags = flags + F_CREATED end
  if r.err then flags = flags + F_ERROR end
  local mask = r.mask
  if mask % 2 < 1 then mask = mask + X_ATTEMPT end
  local b = {}
  put_varint(b, due)
  put_varint(b, token)
  if r.at_err == r.at_ext then -- no error summary: due, token, mask and attempt are adjacent
    put_varint(b, mask)
    put_varint(b, attempt)
    return string.char(flags) .. string.sub(raw, 2, r.at_due - 1) .. string.char(unpack(b))
      .. string.sub(raw, r.after_attempt)
  end
  local x = {}
  put_varint(x, mask)
  put_varint(x, attempt)
  return string.char(flags) .. string.sub(raw, 2, r.at_due - 1) .. string.char(unpack(b))
    .. string.sub(raw, r.at_err, r.at_ext - 1) .. string.char(unpack(x)) .. string.sub(raw, r.after_attempt)
end

-- Fast paths of the two hot scripts (claim and complete). They read a usual record's header with Lua patterns (one
-- C call each) instead of decode's byte tables, and give exactly what the general path (decode, then
-- leased_record or the token check) gives, or nil whenever a record is not one they know: the caller then takes
-- the general path, which also judges records that cannot be decoded. Varints they read are at most 8 bytes long.
local VARINT = '[\128-\255]*[%z\1-\127]'
local VARINT_AT = '^' .. VARINT .. '()'
local FRESH_HEADER = '^' .. VARINT .. '()' .. VARINT .. '()' -- seq | created | the rest
local LEASED_HEADER = '^' .. VARINT .. '()' .. VARINT .. '()' .. VARINT .. '()' .. VARINT .. '()' -- seq | created | due | token |
local FRESH, FRESH_EXT = SCHEDULED + F_CREATED, SCHEDULED + F_CREATED + F_EXT
local LEASED = PROCESSING + F_DUE + F_TOKEN + F_CREATED + F_EXT
local LEASED_CHAR = string.char(LEASED)
local FRESH_CHAR = string.char(FRESH)

-- The varint of n as a string.
local function varint_string(n)
  if n < 128 then return string.char(n) end
  if n < 16384 then
    local low = n % 128
    return string.char(low + 128, (n - low) / 128)
  end
  if n < 2097152 then -- three bytes: the tokens of a queue's first two million leases
    local b1 = n % 128
    local rest = (n - b1) / 128
    local b2 = rest % 128
    return string.char(b1 + 128, b2 + 128, (rest - b2) / 128)
  end
  -- Longer, without a table up to eight bytes: a due time in ms takes six until 2109 (2^42 ms), a fencing token eight
  -- (microseconds of Redis's clock; a token granted by an earlier version, counted from 1, took one to four).
  local b1 = n % 128
  n = (n - b1) / 128
  local b2 = n % 128
  n = (n - b2) / 128
  local b3 = n % 128
  n = (n - b3) / 128
  if n < 128 then return string.char(b1 + 128, b2 + 128, b3 + 128, n) end
  local b4 = n % 128
  n = (n - b4) / 128
  if n < 128 then return string.char(b1 + 128, b2 + 128, b3 + 128, b4 + 128, n) end
  local b5 = n % 128
  n = (n - b5) / 128
  if n < 128 then return string.char(b1 + 128, b2 + 128, b3 + 128, b4 + 128, b5 + 128, n) end
  local b6 = n % 128
  n = (n - b6) / 128
  if n < 128 then return string.char(b1 + 128, b2 + 128, b3 + 128, b4 + 128, b5 + 128, b6 + 128, n) end
  local b7 = n % 128 -- eight bytes: every fencing token (from Redis's clock in microseconds, claim.lua)
  n = (n - b7) / 128
  if n < 128 then return string.char(b1 + 128, b2 + 128, b3 + 128, b4 + 128, b5 + 128, b6 + 128, b7 + 128, n) end
  local b = { b1 + 128, b2 + 128, b3 + 128, b4 + 128, b5 + 128, b6 + 128, b7 + 128 }
  put_varint(b, n)
  return string.char(unpack(b))
end

-- Where the varint at raw[pos] ends (the next position), or nil: the record ends inside it, or it is longer than 8 bytes.
local function skip_varint(raw, pos)
  local next = string.match(raw, VARINT_AT, pos)
  if next and next - pos <= 8 then return next end
  return nil
end

-- Where the length-prefixed string at raw[pos] ends, or nil when the record ends inside it (or its length takes more
-- than 8 bytes): the length is read by decode's own window_varint, over a window of 8 bytes.
local function skip_bytes(raw, pos)
  local len, k = window_varint({ string.byte(raw, pos, pos + 7) }, 1)
  if not len then return nil end
  local next = pos + k - 1 + len
  if next > #raw + 1 then return nil end
  return next
end

-- Where the extension fields of mask m that start at raw[pos] end, or nil when decode would not read them (or
-- they hold a varint longer than 8 bytes).
local function skip_ext(raw, pos, m)
  if m % 2 >= X_ATTEMPT then pos = skip_varint(raw, pos) if not pos then return nil end end
  if m % 4 >= X_MAX then pos = skip_varint(raw, pos) if not pos then return nil end end
  if m % 8 >= X_STALLS then pos = skip_varint(raw, pos) if not pos then return nil end end
  if m % 16 >= X_NAME then pos = skip_bytes(raw, pos) if not pos then return nil end end
  if m % 32 >= X_DEDUPE then
    pos = skip_bytes(raw, pos)
    if not pos then return nil end
    pos = skip_varint(raw, pos)
    if not pos then return nil end
  end
  if m % 64 >= X_PRIORITY then pos = skip_varint(raw, pos) if not pos then return nil end end
  if m % 128 >= X_TIMEOUT then pos = skip_varint(raw, pos) if not pos then return nil end end
  if m % 256 >= X_TRACE then pos = skip_bytes(raw, pos) if not pos then return nil end end
  return pos
end

-- complete's fast path: whether raw is a record as claim leases it (processing, no error summary, no dedupe key)
-- whose token is the whole number token; false for any other record (the general path judges it). The token is read
-- from its bytes (the pattern ends it at its first byte below 128) and compared as a number: no string is made.
local function leased_with_token(raw, token)
  if string.byte(raw, 1) ~= LEASED then return false end
  local c, d, tp, te = string.match(raw, LEASED_HEADER, 2)
  if not c or c > 10 or d - c > 8 or tp - d > 8 or te - tp > 8 then return false end
  local len, t = te - tp, nil
  if len == 1 then
    t = string.byte(raw, tp)
  elseif len == 2 then
    local b1, b2 = string.byte(raw, tp, tp + 1)
    t = b1 - 128 + b2 * 128
  elseif len == 3 then -- a queue's first two million leases
    local b1, b2, b3 = string.byte(raw, tp, tp + 2)
    t = b1 - 128 + (b2 - 128) * 128 + b3 * 16384
  elseif len == 8 then -- every token claim grants (microseconds of Redis's clock); exact, the sum is below 2^53
    local b1, b2, b3, b4, b5, b6, b7, b8 = string.byte(raw, tp, tp + 7)
    t = b1 - 128 + (b2 - 128) * 128 + (b3 - 128) * 16384 + (b4 - 128) * 2097152 + (b5 - 128) * 268435456
      + (b6 - 128) * 34359738368 + (b7 - 128) * 4398046511104 + b8 * 562949953421312
  elseif len == 4 then -- tokens of earlier versions, counted from 1: the first 268 million of a queue
    local b1, b2, b3, b4 = string.byte(raw, tp, tp + 3)
    t = b1 - 128 + (b2 - 128) * 128 + (b3 - 128) * 16384 + b4 * 2097152
  else
    t = window_varint({ string.byte(raw, tp, te - 1) }, 1)
  end
  if t ~= token then return false end
  -- The extension mask, then its fields: the usual one holds the attempt alone, in one byte.
  local m, a = string.byte(raw, te, te + 1)
  if m == X_ATTEMPT and a and a < 128 then return true end
  if not m or m % 32 >= X_DEDUPE then return false end
  if m < 128 then return skip_ext(raw, te + 1, m) ~= nil end
  -- A two-byte mask (a trace context): m is the whole mask when the second byte is 1 (see the record format).
  return a == 1 and skip_ext(raw, te + 2, m) ~= nil
end

-- The record with its fields as in r and the payload it was decoded with.
local function encode(r)
  return encode_with_body(r, string.sub(r.raw, r.body))
end

-- Lease overlays. claim does not rewrite a fresh record of OVERLAY_MIN bytes or more to lease it: it writes the
-- lease (state, token, due ms, attempt) into a field of its own, OVERLAY .. id, in the same jobs hash, and complete
-- turns that field into done (or deletes both). Reason: Redis 7's Lua hashes every byte of every string a script
-- makes (redis/redis#9449), so rewriting a record made two more strings of its length (the payload cut out, the new
-- record) on claim and two on completion; with an overlay the payload becomes a Lua string once per claim and never
-- on completion. A shorter record is still rewritten: there the second hash field costs more than the copies it
-- saves, and a done job kept for the retention would take about 60 bytes more (BENCHMARKS.md). Job ids hold no
-- control characters, so OVERLAY .. id never names a job. Only claim and complete write overlays; every other
-- script reads jobs through records_of / record_of, which give the record with its overlay applied (what the
-- record would be had it been rewritten), and deletes a job's overlay whenever it writes or deletes its record
-- (drop_overlays), so an overlay only ever sits on the fresh record it was written for.
-- Overlay value: byte state (PROCESSING, or DONE_AT followed by the 6 bytes of the finish time as in a record; DONE
-- written by earlier versions) + O_DEDUPE when the record holds a dedupe key, then the varints token, due ms and
-- attempt (the token first: complete compares its bytes without reading the rest).
local OVERLAY, O_DEDUPE = '\0', 8
local OVERLAY_MIN = 256
local OVERLAY_FORM = '^([\2\3\10\11])(' .. VARINT .. ')(' .. VARINT .. ')(' .. VARINT .. ')$'

-- claim's fast path, for a job that was never leased, i.e. as enqueue wrote it (no due, token, error, attempt): a
-- short record comes back leased (as leased_record(decode(raw), due, token, 1) writes it), a long one (OVERLAY_MIN
-- bytes or more) as it is, with its lease overlay second. nil for any other record, and for a record whose sequence
-- is not the one of the due-set member m it was found by (an entry left by an earlier job of the same id, e.g. one
-- deleted when its record could not be decoded: the general path drops it). due_v, token_v: the varint strings of the
-- due ms and the new token.
local function lease_fresh(raw, due_v, token_v, m)
  local flags = string.byte(raw, 1)
  if flags ~= FRESH and flags ~= FRESH_EXT then return nil end
  local c, p = string.match(raw, FRESH_HEADER, 2)
  if not c or c > 10 or p - c > 8 then return nil end
  -- The sequence: the member's 6 bytes big-endian against the record's varint (raw[2 .. c - 1], one to three bytes
  -- for a queue's first two million jobs).
  local m1, m2, m3, m4, m5, m6 = string.byte(m, 1, 6)
  if not m6 then return nil end
  local s1, s2, s3 = string.byte(raw, 2, 4)
  local seq
  if c == 3 then
    seq = s1
  elseif c == 4 then
    seq = s1 - 128 + s2 * 128
  elseif c == 5 then
    seq = s1 - 128 + (s2 - 128) * 128 + s3 * 16384
  else
    seq = window_varint({ string.byte(raw, 2, c - 1) }, 1)
  end
  if seq ~= ((((m1 * 256 + m2) * 256 + m3) * 256 + m4) * 256 + m5) * 256 + m6 then return nil end
  local m, at -- the extension mask, and where its fields start
  if flags == FRESH_EXT then
    m = string.byte(raw, p)
    at = p + 1
    -- A two-byte mask (a trace context): m is the whole mask when the second byte is 1 (see the record format).
    if m and m >= 128 and string.byte(raw, at) == 1 then at = p + 2 end
    if not m or (m >= 128 and at == p + 1) or m % 2 == X_ATTEMPT or not skip_ext(raw, at, m) then return nil end
  end
  if #raw >= OVERLAY_MIN then
    return raw, string.char(m and m % 32 >= X_DEDUPE and PROCESSING + O_DEDUPE or PROCESSING) .. token_v .. due_v .. '\1'
  end
  if not m then return LEASED_CHAR .. string.sub(raw, 2, p - 1) .. due_v .. token_v .. '\1\1' .. string.sub(raw, p) end
  if at > p + 1 then -- the mask plus the attempt still takes two bytes (m + 1 < 256: m is even)
    return LEASED_CHAR .. string.sub(raw, 2, p - 1) .. due_v .. token_v .. string.char(m + X_ATTEMPT, 1, 1)
      .. string.sub(raw, at)
  end
  return LEASED_CHAR .. string.sub(raw, 2, p - 1) .. due_v .. token_v .. string.char(m + X_ATTEMPT, 1)
    .. string.sub(raw, p + 1)
end

-- complete's fast path: whether ov is the overlay of a running job without a dedupe key whose token has the varint
-- bytes token_v. A varint ends at its first byte below 128, so equal leading bytes are the whole token.
local function overlay_token_is(ov, token_v)
  return string.byte(ov, 1) == PROCESSING and string.sub(ov, 2, 1 + #token_v) == token_v
end

-- The record raw with its overlay ov applied. A record that cannot be decoded comes back as it is (the caller moves
-- it aside like any other, every byte kept); a readable record under an overlay that cannot be read, behind a zero
-- byte: a record no decode accepts (state 0), moved aside the same way. A done overlay with its finish time (state
-- 5, the 6 bytes of the time after its state byte) gives a done record with that finish time (state 5).
local function with_overlay(raw, ov)
  local r = safe_decode(raw)
  if not r then return raw end
  local first, fin = string.byte(ov, 1), nil
  if first and first % 8 == DONE_AT and #ov >= 8 then
    fin = string.sub(ov, 2, 7)
    ov = string.char(first - DONE_AT + DONE) .. string.sub(ov, 8)
  end
  local s, token_v, due_v, attempt_v = string.match(ov, OVERLAY_FORM)
  local due = s and window_varint({ string.byte(due_v, 1, 9) }, 1)
  local token = due and window_varint({ string.byte(token_v, 1, 9) }, 1)
  local attempt = token and window_varint({ string.byte(attempt_v, 1, 9) }, 1)
  if not attempt then return OVERLAY .. raw end
  r.state, r.due, r.token, r.attempt = string.byte(s) % 8, due, token, attempt
  local rec = encode(r)
  if fin then return string.char(string.byte(rec, 1) - DONE + DONE_AT) .. fin .. string.sub(rec, 2) end
  return rec
end

-- The records of ids as every script but claim and complete sees them: overlays applied; false where none.
local function records_of(k_jobs, ids)
  local n = #ids
  if n == 0 then return {} end
  local fields = {}
  for i = 1, n do
    fields[i] = ids[i]
    fields[n + i] = OVERLAY .. ids[i]
  end
  local got = redis.call('HMGET', k_jobs, unpack(fields))
  local out = {}
  for i = 1, n do
    local raw, ov = got[i], got[n + i]
    if raw and ov then raw = with_overlay(raw, ov) end
    out[i] = raw
  end
  return out
end

local function record_of(k_jobs, id)
  return records_of(k_jobs, { id })[1]
end

-- Deletes the overlays of ids: every script that writes or deletes a record (other than claim's and complete's fast
-- paths) calls this, so that the record it wrote is the whole truth.
local function drop_overlays(k_jobs, ids)
  if #ids == 0 then return end
  local fields = {}
  for i = 1, #ids do fields[i] = OVERLAY .. ids[i] end
  redis.call('HDEL', k_jobs, unpack(fields))
end

-- The record of a new scheduled job. o holds the optional fields (max, name, dedupe, hold, priority,
-- timeout, trace, group); created is the enqueue time in seconds since 2020.
local function fresh_record(payload, seq, created, o)
  if not o then return FRESH_CHAR .. varint_string(seq) .. varint_string(created) .. payload end
  local r = { state = SCHEDULED, seq = seq, created = created, attempt = 0, max = o.max or 0, stalls = 0,
    name = o.name, dedupe = o.dedupe, hold = o.hold, priority = o.priority or 0, timeout = o.timeout, trace = o.trace, group = o.group }
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

-- Whole numbers as redis.call arguments: counts, LIMIT, PX, HINCRBY, stored strings, and scores (every score here
-- is a whole number of ms, plus a priority band, below 2^53). '%d' prints through C's long: exact for all of them,
-- and cheap, where '%.0f' and Redis's own conversion of a Lua number argument ('%.17g' on 7.0) take glibc's
-- multi-precision float printing, about 3,500 instructions a number (BENCHMARKS.md); tostring() and '..' would print
-- 14 significant digits and lose the last ones of a due time. Whole numbers only: '%d' drops a fraction. A score
-- that a whole batch shares (a claim's lease expiry, a completion's time) is still formatted once.
local function int(n)
  return string.format('%d', n)
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
  return redis.call('HINCRBY', meta, 'seq', int(n)) - n + 1
end

local function count(meta, field, n)
  if n > 0 then redis.call('HINCRBY', meta, field, int(n)) end
end

-- The ids a done batch entry lists (see above), in order.
local function batch_ids(m)
  local ids = {}
  for id in string.gmatch(m, '%z([^%z]+)') do ids[#ids + 1] = id end
  return ids
end

-- Where done batch entry m lists id: the positions, in m .. '\0', of the zero bytes before and after it; nil when it
-- does not.
local function batch_find(m, id)
  return string.find(m .. '\0', '\0' .. id .. '\0', 1, true)
end

-- Takes id (done, finished at ms per its record) out of its done batch entry; false when no entry lists it.
local function batch_remove(k_batches, k_meta, id, ms)
  for _, m in ipairs(redis.call('ZRANGEBYSCORE', k_batches, int(ms), int(ms))) do
    local s, e = batch_find(m, id)
    if s then
      redis.call('ZREM', k_batches, m)
      local rest = string.sub(m, 1, s - 1) .. string.sub(m, e)
      if string.find(rest, '\0', 1, true) then redis.call('ZADD', k_batches, int(ms), rest) end
      redis.call('HINCRBY', k_meta, 'done_batched', '-1')
      return true
    end
  end
  return false
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
