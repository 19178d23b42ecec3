package dev.delayq.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The module's layout rules, as delayq-core's ArchitectureTest holds the core to them: no main class over 400 lines,
 * the PostgreSQL driver (optional) touched by one class only, and neither Lettuce nor delayq-core's internals used (the
 * outbox stands on the core's public API alone).
 */
class OutboxLayoutTest {
    private static final Path MAIN = Path.of("src/main/java/dev/delayq/outbox");

    private static List<Path> sources() throws IOException {
        try (Stream<Path> files = Files.walk(MAIN)) {
            return files.filter(f -> f.toString().endsWith(".java")).sorted().toList();
        }
    }

    @Test
    void noMainClassIsOver400Lines() throws IOException {
        assertThat(sources()).isNotEmpty().allSatisfy(f -> assertThat(Files.readAllLines(f).size())
                .as(f.toString()).isLessThanOrEqualTo(400));
    }

    @Test
    void onlyThePostgresListenerImportsThePostgresDriverAndNothingImportsLettuceOrCoreInternals() throws IOException {
        for (Path f : sources()) {
            String text = Files.readString(f);
            if (!f.endsWith("PgListener.java")) {
                assertThat(text).as(f.toString()).doesNotContain("import org.postgresql");
            }
            assertThat(text).as(f.toString()).doesNotContain("import io.lettuce").doesNotContain("dev.delayq.internal");
        }
    }
}
