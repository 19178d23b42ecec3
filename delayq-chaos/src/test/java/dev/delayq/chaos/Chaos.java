package dev.delayq.chaos;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;

/**
 * Sizes and seed of the fault suite. {@code mvn verify} runs every scenario at a reduced, still meaningful
 * size (minutes for the whole suite); {@code -Dchaos.full=true} runs the sizes of the issue and
 * RELIABILITY.md. Every scenario appends one result line to {@code target/chaos-results.txt}.
 */
final class Chaos {
    /** Full sizes (RELIABILITY.md) rather than the reduced CI sizes. */
    static final boolean FULL = Boolean.getBoolean("chaos.full");

    /** One fixed seed for every random choice of the suite (which worker to kill, which bytes to send). */
    static final long SEED = Long.getLong("chaos.seed", 20261130L);

    private Chaos() {
    }

    /** {@code reduced} in CI, {@code full} with -Dchaos.full=true. */
    static int size(int reduced, int full) {
        return FULL ? full : reduced;
    }

    /** {@code reduced} in CI, {@code full} with -Dchaos.full=true. */
    static Duration time(Duration reduced, Duration full) {
        return FULL ? full : reduced;
    }

    /** Appends a scenario's result line to the suite's result file (and prints it). */
    static void record(String line) {
        String stamped = Instant.now() + " " + (FULL ? "full" : "reduced") + " " + line;
        System.out.println("CHAOS " + stamped);
        String file = System.getProperty("chaos.results");
        if (file == null) {
            return;
        }
        try {
            Files.writeString(Path.of(file), stamped + System.lineSeparator(), StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
