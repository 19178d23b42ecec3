package dev.delayq.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.InputStream;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The configuration metadata that IDEs complete from is generated, with a type and a description for each property. */
class ConfigurationMetadataTest {
    @Test
    void everyPropertyOfTheIssueIsDescribedWithItsTypeAndDefault() throws Exception {
        Map<String, JsonNode> properties = new HashMap<>();
        try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertThat(in).as("generated metadata").isNotNull();
            for (JsonNode p : new ObjectMapper().readTree(in).get("properties")) {
                properties.put(p.get("name").asText(), p);
            }
        }
        assertThat(properties).allSatisfy((name, p) -> assertThat(p.path("description").asText()).as(name).isNotBlank());
        Map<String, String> durations = Map.of("delayq.timeout", "10s", "delayq.done-retention", "1h",
                "delayq.dead-retention", "7d", "delayq.retry.base", "5s", "delayq.retry.cap", "1h",
                "delayq.worker.lease-duration", "30s", "delayq.worker.shutdown-grace", "10s", "delayq.worker.lookahead", "50ms");
        durations.forEach((name, value) -> {
            assertThat(properties).containsKey(name);
            assertThat(properties.get(name).get("type").asText()).as(name).isEqualTo("java.time.Duration");
            assertThat(properties.get(name).get("defaultValue").asText()).as(name).isEqualTo(value);
        });
        assertThat(properties).containsKeys("delayq.enabled", "delayq.redis-url", "delayq.prefix", "delayq.cluster",
                "delayq.retry.max-attempts", "delayq.worker.enabled", "delayq.worker.concurrency",
                "management.health.delayq.enabled");
    }
}
