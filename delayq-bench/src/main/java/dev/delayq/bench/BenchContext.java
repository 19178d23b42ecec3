package dev.delayq.bench;

import dev.delayq.DelayQ;
import java.time.Duration;

/**
 * What a workload runs with: the settings, the server and the benchmark's own connection to it, and the
 * progress line.
 */
record BenchContext(BenchConfig config, BenchTarget target, Progress progress) {
    /** Samples of {@code TIME} taken to estimate Redis's clock before each workload. */
    static final int CLOCK_SAMPLES = 20;
    /** A payload of about 100 bytes, as the workloads define. */
    static final byte[] PAYLOAD = payload(100);
    /** How long jobs of the memory and scale workloads wait: far beyond the run, so none falls due. */
    static final Duration FAR = Duration.ofHours(1);

    /** Bytes: the size of a W6 payload (10 KB). */
    static final int LARGE = 10 * 1024;

    /** A payload of {@code size} bytes, the same text as {@link #PAYLOAD} repeated. */
    static byte[] payload(int size) {
        byte[] b = new byte[size];
        String pattern = "{\"order\":731,\"action\":\"timeout\",\"note\":\"delayq bench payload\"}";
        for (int i = 0; i < size; i++) {
            b[i] = (byte) pattern.charAt(i % pattern.length());
        }
        return b;
    }

    /** The benchmark's own connection. */
    RedisProbe probe() {
        return target.probe();
    }

    /** Redis's clock, freshly estimated. */
    RedisClock clock() {
        return probe().clock(CLOCK_SAMPLES);
    }

    /** A new delayq client (its own connection), closed by the caller. */
    DelayQ client(String role) {
        return target.client(config, role);
    }
}
