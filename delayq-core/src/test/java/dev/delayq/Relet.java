package dev.delayq;

import dev.delayq.testkit.RedisServer;

/**
 * Gives a leased job another fencing token, in place (its record, or its lease overlay): a lease as an earlier version
 * granted it, when tokens were counted from 1 and took 1 to 8 varint bytes (claim.lua now takes them from Redis's
 * clock, 8 bytes), so that tests still reach the completion's comparison of every token length a lease granted before
 * an upgrade may carry.
 */
final class Relet {
    private static final String SCRIPT = """
            local function past(s, p)
              while string.byte(s, p) >= 128 do p = p + 1 end
              return p + 1
            end
            local function varint(n)
              local b = {}
              repeat
                local low = n % 128
                n = (n - low) / 128
                b[#b + 1] = n > 0 and low + 128 or low
              until n == 0
              return string.char(unpack(b))
            end
            local t = varint(tonumber(ARGV[2]))
            local ov = redis.call('HGET', KEYS[1], '\\0' .. ARGV[1])
            if ov then -- state byte, token, due, attempt
              redis.call('HSET', KEYS[1], '\\0' .. ARGV[1], string.sub(ov, 1, 1) .. t .. string.sub(ov, past(ov, 2)))
              return 1
            end
            local raw = redis.call('HGET', KEYS[1], ARGV[1])
            if string.byte(raw, 1) ~= 218 then return redis.error_reply('not a record leased in place') end
            local p = past(raw, past(raw, past(raw, 2))) -- flags, then seq, created, due: the token
            redis.call('HSET', KEYS[1], ARGV[1], string.sub(raw, 1, p - 1) .. t .. string.sub(raw, past(raw, p)))
            return 2
            """;

    private Relet() {
    }

    /** Gives job {@code id} of the jobs hash {@code jobs}, leased, the fencing token {@code token}. */
    static void token(RedisServer server, String jobs, String id, long token) {
        server.call("EVAL", SCRIPT, "1", jobs, id, Long.toString(token));
    }
}
