package dev.delayq;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisURI;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;

/**
 * The contract classes of this module run on the Lettuce and Micrometer that Spring Boot manages, not on the
 * core's own: inherited dependency management beats an imported BOM, so a slip in the pom would silently test
 * the wrong versions.
 */
class BootVersionsTest {
    @Test
    void theClassPathHasTheLettuceAndMicrometerOfSpringBoot() {
        assertThat(RedisURI.class.getPackage().getImplementationVersion())
                .as("Lettuce on the class path").startsWith(System.getProperty("boot.lettuce.version") + "/");
        assertThat(MeterRegistry.class.getPackage().getImplementationVersion())
                .as("Micrometer on the class path").isEqualTo(System.getProperty("boot.micrometer.version"));
    }
}
