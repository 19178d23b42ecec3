package dev.delayq.internal.present;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** INFO's text read once: fields in order, section titles and blank lines skipped, values trimmed. */
class InfoTextTest {
    @Test
    void readsFieldsAndSkipsTitlesAndBlanks() {
        String reply = "# Server\r\nredis_version:7.0.15\r\nredis_mode:standalone\r\n\r\n# Memory\r\nused_memory:1048576\r\n"
                + "maxmemory_policy:noeviction\r\nmaster_replid:ab:cd\r\n";
        Map<String, String> info = InfoText.parse(reply);
        assertThat(info).containsExactly(Map.entry("redis_version", "7.0.15"), Map.entry("redis_mode", "standalone"),
                Map.entry("used_memory", "1048576"), Map.entry("maxmemory_policy", "noeviction"),
                Map.entry("master_replid", "ab:cd"));
        assertThat(InfoText.parse("cluster_state:ok\ncluster_slots_assigned:16384\n"))
                .containsEntry("cluster_state", "ok").containsEntry("cluster_slots_assigned", "16384");
        assertThat(InfoText.parse(null)).isEmpty();
        assertThat(InfoText.parse(":no field\n#title:x\n")).isEmpty();
    }

    @Test
    void numbersWithAFallback() {
        Map<String, String> info = InfoText.parse("used_memory:1024\r\nodd:x\r\n");
        assertThat(InfoText.longOf(info, "used_memory", 0)).isEqualTo(1024);
        assertThat(InfoText.longOf(info, "odd", -1)).isEqualTo(-1);
        assertThat(InfoText.longOf(info, "missing", 0)).isZero();
    }
}
