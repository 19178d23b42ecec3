package dev.delayq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.DelayQ;
import dev.delayq.JobQueue;
import dev.delayq.testkit.RedisExtension;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Input sizes and numbers too large to hold: refused while read, as usage errors naming the option. */
class EnqueueLimitsTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();
    private static final String HINT = "the payload limit is 262144 bytes (256 KiB); raise it with --max-payload BYTES "
            + "(up to 256m)";

    private Cli cli;
    private DelayQ dq;
    private JobQueue q;

    @BeforeEach
    void connect() {
        cli = new Cli(REDIS.uri(), REDIS.prefix());
        dq = DelayQ.builder().redis(REDIS.uri()).prefix(REDIS.prefix()).build();
        q = dq.queue("orders");
    }

    @AfterEach
    void close() {
        dq.close();
    }

    /** {@code n} bytes of {@code b}, produced as read (never held). */
    private static InputStream endless(byte b, long n) {
        return new InputStream() {
            private long left = n;

            @Override
            public int read() {
                return left-- > 0 ? b : -1;
            }

            @Override
            public int read(byte[] buf, int off, int len) {
                if (left <= 0) {
                    return -1;
                }
                int k = (int) Math.min(len, left);
                java.util.Arrays.fill(buf, off, off + k, b);
                left -= k;
                return k;
            }
        };
    }

    private static InputStream text(String s) {
        return new ByteArrayInputStream(s.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void anEndlessPayloadFileOrStdinStopsAtTheLimit() {
        Cli.Result zero = cli.run("enqueue", "orders", "--payload-file", "/dev/zero");
        assertThat(zero.exit()).isEqualTo(Exit.USAGE);
        assertThat(zero.err()).isEqualTo("delayq: --payload-file '/dev/zero' is too large: " + HINT + "\n");

        Cli.Result stdin = cli.run(endless((byte) 'x', Long.MAX_VALUE), "enqueue", "orders", "--payload", "-");
        assertThat(stdin.exit()).isEqualTo(Exit.USAGE);
        assertThat(stdin.err()).isEqualTo("delayq: the payload on stdin (--payload -) is too large: " + HINT + "\n");

        Cli.Result text = cli.run("enqueue", "orders", "--payload", "12345678901", "--max-payload", "10");
        assertThat(text.exit()).isEqualTo(Exit.USAGE);
        assertThat(text.err()).isEqualTo("delayq: --payload is 11 bytes: the payload limit is 10 bytes; raise it with "
                + "--max-payload BYTES (up to 256m)\n");
        assertThat(q.inspector().stats().scheduled()).isZero();
    }

    @Test
    void maxPayloadRaisesTheLimitWithinItsBounds() {
        Cli.Result big = cli.run(endless((byte) 'y', 1_500_000), "enqueue", "orders", "--id", "big", "--payload", "-",
                "--max-payload", "2m");
        assertThat(big.exit()).as(big.err()).isZero();
        assertThat(q.get("big").orElseThrow().payload()).hasSize(1_500_000);

        Cli.Result tooBig = cli.run("enqueue", "orders", "--max-payload", "300m");
        assertThat(tooBig.exit()).isEqualTo(Exit.USAGE);
        assertThat(tooBig.err()).startsWith("delayq: Invalid value for option '--max-payload': '300m' is more than the "
                + "largest payload limit, 268435456 bytes (256 MiB)");

        Cli.Result nonsense = cli.run("enqueue", "orders", "--max-payload", "lots");
        assertThat(nonsense.exit()).isEqualTo(Exit.USAGE);
        assertThat(nonsense.err()).contains("invalid size 'lots'");
    }

    @Test
    void durationsTooLongToCountAreUsageErrorsNamingTheOption() {
        Cli.Result delay = cli.run("enqueue", "orders", "--delay", "100000000000000d");
        assertThat(delay.exit()).isEqualTo(Exit.USAGE);
        assertThat(delay.err()).startsWith("delayq: Invalid value for option '--delay': duration '100000000000000d' is "
                + "too long: at most 3650000d (10,000 years)").doesNotContain("overflow");

        Cli.Result digits = cli.run("enqueue", "orders", "--delay", "99999999999999999999999s");
        assertThat(digits.exit()).isEqualTo(Exit.USAGE);
        assertThat(digits.err()).contains("'--delay'").contains("is too long");

        Cli.Result iso = cli.run("enqueue", "orders", "--delay", "PT99999999999999999999H");
        assertThat(iso.exit()).isEqualTo(Exit.USAGE);
        assertThat(iso.err()).contains("'--delay'").contains("is too long");

        Cli.Result sum = cli.run("reschedule", "orders", "x", "--delay", "3000000d3000000d");
        assertThat(sum.exit()).isEqualTo(Exit.USAGE);
        assertThat(sum.err()).contains("'--delay'").contains("is too long");

        Cli.Result past9999 = cli.run("enqueue", "orders", "--id", "far", "--delay", "3000000d");
        assertThat(past9999.exit()).isEqualTo(Exit.USAGE);
        assertThat(past9999.err()).contains("beyond year 9999").doesNotContain("PT").hasLineCount(1);
        assertThat(q.get("far")).isEmpty();
    }

    @Test
    void aJsonlLineLongerThanAnyJobIsRefusedWhileReadAndTheOthersGoIn() {
        InputStream input = new SequenceInputStream(java.util.Collections.enumeration(List.of(
                text("{\"id\":\"huge\",\"payload\":\""), endless((byte) 'x', 20_000_000), text("\"}\n"),
                text("{\"id\":\"over\",\"payload\":\"" + "z".repeat(1024 * 1024 + 1) + "\"}\n"),
                text("{\"id\":\"ok\"}\n"))));
        Cli.Result r = cli.run(input, "enqueue", "orders", "--jsonl", "-");
        assertThat(r.exit()).isEqualTo(Exit.FAILED);
        assertThat(r.lines()).containsExactly(
                "error 1 line is longer than 1589248 bytes (the longest a job can be as JSON): " + HINT,
                "error 2 payload is 1048577 bytes: " + HINT,
                "created ok");
        assertThat(r.err().lines().toList()).containsExactly(
                "delayq: line 1: line is longer than 1589248 bytes (the longest a job can be as JSON): " + HINT,
                "delayq: line 2: payload is 1048577 bytes: " + HINT);
        assertThat(q.get("huge")).isEmpty();
        assertThat(q.get("ok")).isPresent();
    }
}
