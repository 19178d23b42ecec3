package dev.delayq.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.InputStream;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Every {@code delayq.dashboard.*} property is in the generated metadata with its type, description and default. */
class DelayqDashboardMetadataTest {
    @Test
    void everyDashboardPropertyIsDescribedWithItsDefault() throws Exception {
        Map<String, JsonNode> properties = new HashMap<>();
        try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertThat(in).as("generated metadata").isNotNull();
            for (JsonNode p : new ObjectMapper().readTree(in).get("properties")) {
                properties.put(p.get("name").asText(), p);
            }
        }
        Map<String, String> defaults = Map.of("delayq.dashboard.enabled", "false", "delayq.dashboard.path", "/delayq",
                "delayq.dashboard.role", "DELAYQ", "delayq.dashboard.csrf", "true", "delayq.dashboard.read-only", "false");
        defaults.forEach((name, value) -> {
            assertThat(properties).containsKey(name);
            assertThat(properties.get(name).path("description").asText()).as(name).isNotBlank();
            assertThat(properties.get(name).path("defaultValue").asText()).as(name).isEqualTo(value);
        });
        assertThat(properties.get("delayq.dashboard.token").path("description").asText())
                .contains("Without Spring Security", "16");
        assertThat(properties.get("delayq.dashboard.csrf").path("description").asText())
                .contains("XSRF-TOKEN", "X-XSRF-TOKEN");
    }
}
