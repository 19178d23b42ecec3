package dev.delayq.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.delayq.Bounds;
import java.io.InputStream;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.util.unit.DataSize;

/** The configuration metadata that IDEs complete from is generated, with a type and a description for each property. */
class ConfigurationMetadataTest {
    private Map<String, JsonNode> properties() throws Exception {
        Map<String, JsonNode> properties = new HashMap<>();
        try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertThat(in).as("generated metadata").isNotNull();
            for (JsonNode p : new ObjectMapper().readTree(in).get("properties")) {
                properties.put(p.get("name").asText(), p);
            }
        }
        return properties;
    }

    @Test
    void everyPropertyOfTheIssueIsDescribedWithItsTypeAndDefault() throws Exception {
        Map<String, JsonNode> properties = properties();
        assertThat(properties).allSatisfy((name, p) -> assertThat(p.path("description").asText()).as(name).isNotBlank());
        Map<String, String> durations = Map.of("delayq.done-retention", "1h",
                "delayq.dead-retention", "7d", "delayq.retry.base", "5s", "delayq.retry.cap", "1h",
                "delayq.worker.lease-duration", "30s", "delayq.worker.shutdown-grace", "10s", "delayq.worker.lookahead", "50ms",
                "delayq.reconnect-delay", "2s");
        durations.forEach((name, value) -> {
            assertThat(properties).containsKey(name);
            assertThat(properties.get(name).get("type").asText()).as(name).isEqualTo("java.time.Duration");
            assertThat(properties.get(name).get("defaultValue").asText()).as(name).isEqualTo(value);
        });
        // No default of its own: spring.data.redis.timeout when set, else 10s.
        assertThat(properties.get("delayq.timeout").get("type").asText()).isEqualTo("java.time.Duration");
        assertThat(properties.get("delayq.timeout").get("description").asText()).contains("spring.data.redis.timeout", "10s");
        // Issue 38: queues, schedules and what happens to schedules no longer declared, the worker's name.
        assertThat(properties).containsKeys("delayq.queues", "delayq.schedules", "delayq.worker.name");
        assertThat(properties.get("delayq.queues").get("description").asText())
                .contains("rate", "concurrency-limit", "job-timeout", "max-attempts", "paused", "events");
        assertThat(properties.get("delayq.schedules").get("description").asText())
                .contains("queue", "cron", "every", "zone", "missed", "payload");
        assertThat(properties.get("delayq.schedule-removal").get("defaultValue").asText()).isEqualTo("remove");
        // Issue 38: after-commit enqueues (opt-out), starting without Redis.
        assertThat(properties.get("delayq.producer.after-commit").get("defaultValue").asBoolean()).isTrue();
        assertThat(properties.get("delayq.require-redis-at-startup").get("defaultValue").asBoolean()).isTrue();
        assertThat(properties.get("delayq.require-redis-at-startup").get("description").asText()).contains("DOWN");
        assertThat(properties).containsKeys("delayq.enabled", "delayq.redis-url", "delayq.prefix", "delayq.cluster",
                "delayq.retry.max-attempts", "delayq.worker.enabled", "delayq.worker.concurrency",
                "management.health.delayq.enabled");
    }

    /** Issue 44: every outbox property with its description and the module's default. */
    @Test
    void theOutboxPropertiesAreDescribedWithTheModulesDefaults() throws Exception {
        Map<String, JsonNode> properties = properties();
        Map<String, String> defaults = Map.of("delayq.outbox.enabled", "false", "delayq.outbox.table", "delayq_outbox",
                "delayq.outbox.initialize-schema", "embedded", "delayq.outbox.batch-size", "1000",
                "delayq.outbox.poll-interval", "500ms", "delayq.outbox.listen", "true",
                "delayq.outbox.notify-on-commit", "true", "delayq.outbox.relay-name", "relay",
                "delayq.outbox.down-after", "1m", "management.health.delayq-outbox.enabled", "true");
        defaults.forEach((name, value) -> {
            assertThat(properties).containsKey(name);
            assertThat(properties.get(name).path("description").asText()).as(name).isNotBlank();
            assertThat(properties.get(name).get("defaultValue").asText()).as(name).isEqualTo(value);
        });
        assertThat(properties.keySet().stream().filter(n -> n.startsWith("delayq.outbox."))).as("all of them")
                .hasSize(defaults.size() - 1);
    }

    /**
     * The default payload limit is the core's (it was 1MB here, four times the core's). The processor cannot read it
     * from the core's constant: the additional metadata states it, held here to the constant.
     */
    @Test
    void theMaxPayloadSizeDefaultIsTheCoresInTheMetadataAndTheProperties() throws Exception {
        JsonNode payload = properties().get("delayq.max-payload-size");
        assertThat(payload.get("type").asText()).isEqualTo(DataSize.class.getName());
        assertThat(DataSize.parse(payload.get("defaultValue").asText()).toBytes()).as("metadata default")
                .isEqualTo(Bounds.DEFAULT_MAX_PAYLOAD);
        assertThat(new DelayqProperties().getMaxPayloadSize().toBytes()).isEqualTo(Bounds.DEFAULT_MAX_PAYLOAD);
    }
}
