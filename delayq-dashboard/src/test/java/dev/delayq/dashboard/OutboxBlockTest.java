package dev.delayq.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayq.testkit.RedisExtension;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The outbox block of {@code /api/server}: there only when the application gives the dashboard its outbox's status,
 * read again at every request, and a failing status reported in the block instead of failing the request.
 */
class OutboxBlockTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    @Test
    void withoutAnOutboxThereIsNoBlock() {
        try (Served s = Served.open(REDIS.uri(), REDIS.prefix())) {
            assertThat(s.http.get("/api/server").json().has("outbox")).isFalse();
        }
    }

    @Test
    void theBlockShowsThePendingCountReadAtEachRequest() {
        AtomicLong pending = new AtomicLong(3);
        try (Served s = Served.start(REDIS.uri(), REDIS.prefix(), b -> b.outbox(() -> {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("pending", pending.get());
            m.put("oldestPendingAge", "PT2S");
            return m;
        }), null)) {
            JsonNode outbox = s.http.get("/api/server").json().get("outbox");
            assertThat(outbox.get("pending").asLong()).isEqualTo(3);
            assertThat(outbox.get("oldestPendingAge").asText()).isEqualTo("PT2S");
            pending.set(0);
            assertThat(s.http.get("/api/server").json().get("outbox").get("pending").asLong()).isZero();
        }
    }

    @Test
    void aFailingStatusIsReportedInTheBlock() {
        try (Served s = Served.start(REDIS.uri(), REDIS.prefix(), b -> b.outbox(() -> {
            throw new IllegalStateException("database unreachable");
        }), null)) {
            Http.Response r = s.http.get("/api/server");
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.json().get("outbox").get("error").asText()).isEqualTo("database unreachable");
            assertThat(r.json().get("version").asText()).isNotEmpty();
        }
    }
}
