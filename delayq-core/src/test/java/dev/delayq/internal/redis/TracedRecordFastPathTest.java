package dev.delayq.internal.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.testkit.RedisExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A record with a trace context has a two-byte extension mask (record.lua, X_TRACE). claim's and complete's fast paths
 * and decode's numeric path read it (issue 42): run in Redis on records as enqueue writes them, each must take its fast
 * path and give byte for byte what the general path gives, and both decodes must read the same fields.
 */
class TracedRecordFastPathTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    private static final String TP = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    private static final String CHECKS = """
            -- @include record
            local fails = {}
            local function check(what, ok) if not ok then fails[#fails + 1] = what end end
            -- Every field of a and b equal (the trace context and payload positions included).
            local function same(a, b)
              if not a or not b then return false end
              for k, v in pairs(a) do if b[k] ~= v then return false end end
              for k, v in pairs(b) do if a[k] ~= v then return false end end
              return true
            end
            local function numeric(raw)
              local b = { string.byte(raw, 1, 32) }
              return decode_numeric(raw, b, b[1], b[1] % 8)
            end
            local function general(raw)
              local b = { string.byte(raw, 1, 32) }
              return decode_general(raw, b, b[1], b[1] % 8)
            end
            local opts = { {}, { max = 3 }, { priority = 7 }, { timeout = 7000 }, { name = 'send-email' },
              { max = 200, priority = 7, timeout = 7000 }, { dedupe = 'k', hold = 5 } }
            local traces = { ARGV[1], ARGV[1] .. '\\0' .. 'vendor=abc,other=x' }
            local runs = 0
            for ti, tr in ipairs(traces) do
              for _, plen in ipairs({ 0, 100, 300 }) do
                for oi, o in ipairs(opts) do
                  for _, seq in ipairs({ 5, 300, 70000 }) do
                    runs = runs + 1
                    local tag = 'trace ' .. ti .. ' payload ' .. plen .. ' opts ' .. oi .. ' seq ' .. seq .. ': '
                    local payload = string.rep('p', plen - 1) .. (plen > 0 and '\\255' or '')
                    o.trace = tr
                    local raw = fresh_record(payload, seq, 180000000, o)
                    local r = general(raw)
                    check(tag .. 'a two-byte mask', r.mask >= X_TRACE and r.mask < 256)
                    check(tag .. 'decoded', r.trace == tr and string.sub(raw, r.body) == payload and r.seq == seq
                      and r.max == (o.max or 0) and r.priority == (o.priority or 0) and r.timeout == o.timeout)
                    if not o.name and not o.dedupe then
                      check(tag .. 'numeric decode of the fresh record', same(numeric(raw), r))
                    end
                    check(tag .. 'decode', same(decode(raw), r))
                    local due, token = 1764970000000 + seq, 2097150 + seq
                    local rec, ov = lease_fresh(raw, varint_string(due), varint_string(token), member(seq, 'id'))
                    local want = leased_record(r, due, token, 1)
                    check(tag .. 'claim fast path taken', rec ~= nil)
                    if #raw >= OVERLAY_MIN then
                      check(tag .. 'leased by overlay', rec == raw and ov and with_overlay(raw, ov) == want)
                    else
                      check(tag .. 'leased as the general path leases', rec == want and ov == nil)
                    end
                    r.state, r.due, r.token, r.attempt = PROCESSING, due, token, 1
                    check(tag .. 'leased record = encode', encode(r) == want)
                    local l = general(want)
                    check(tag .. 'leased record decoded', l.trace == tr and l.attempt == 1 and l.token == token
                      and l.due == due and l.state == PROCESSING and string.sub(want, l.body) == payload)
                    if not o.name and not o.dedupe then
                      check(tag .. 'numeric decode of the leased record', same(numeric(want), l))
                    end
                    if not o.dedupe then
                      check(tag .. 'complete fast path taken', leased_with_token(want, token))
                      check(tag .. 'complete fast path refuses another token', not leased_with_token(want, token + 1))
                    end
                    check(tag .. 'truncated', not lease_fresh(string.sub(raw, 1, #raw - plen - 1), varint_string(due),
                      varint_string(token), member(seq, 'id')) and not leased_with_token(string.sub(want, 1, #want - plen - 1), token))
                  end
                end
              end
            end
            -- A mask of 256 or more (a second byte above 1), or one that ends in a zero byte: the general paths judge it.
            local raw = fresh_record('p', 5, 1, { trace = ARGV[1] })
            local at = string.find(raw, string.char(#ARGV[1]) .. ARGV[1], 1, true) -- the mask's bytes are at - 2, at - 1
            local m = string.byte(raw, at - 2)
            local big = string.sub(raw, 1, at - 2) .. '\\2' .. string.sub(raw, at)
            check('mask above 255', lease_fresh(big, '\\1', '\\1', member(5, 'id')) == nil)
            local leased = leased_record(decode(raw), 1, 9, 1)
            local lat = string.find(leased, '\\1' .. string.char(#ARGV[1]) .. ARGV[1], 1, true) -- the attempt's byte
            check('leased mask above 255', leased_with_token(leased, 9)
              and not leased_with_token(string.sub(leased, 1, lat - 2) .. '\\2' .. string.sub(leased, lat), 9))
            check('a zero second byte', m >= 128 and lease_fresh(string.sub(raw, 1, at - 2) .. '\\0' .. string.sub(raw, at), '\\1', '\\1',
              member(5, 'id')) == nil)
            if #fails > 0 then return table.concat(fails, '; ') end
            return 'ok ' .. runs
            """;

    @Test
    void tracedRecordsTakeTheFastPathsAndDecodeAsTheGeneralPathDoes() {
        Object got = REDIS.server().call("EVAL", Script.expand(CHECKS), "0", TP);
        assertThat(got).hasToString("ok " + (2 * 3 * 7 * 3));
    }
}
