package dev.delayq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.testkit.RedisExtension;
import dev.delayq.testkit.Resp;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The seeds' classic bug, reproduced deterministically: ZRANGEBYSCORE then ZREM from the client lets two
 * workers read the same ids before either removes them. The same {@link TestSupport.ClaimLedger} that the
 * race test uses sees the duplicates here, so the race test would see them too.
 */
class NaiveClaimRaceTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    @Test
    void clientSideReadThenRemoveHandsTheSameJobsToTwoWorkers() throws IOException {
        String key = REDIS.prefix() + ":naive:due";
        try (Resp setup = REDIS.server().connect(); Resp workerA = REDIS.server().connect(); Resp workerB = REDIS.server().connect()) {
            for (int i = 0; i < 100; i++) {
                setup.call("ZADD", key, String.valueOf(i), "task_" + i);
            }
            TestSupport.ClaimLedger ledger = new TestSupport.ClaimLedger();

            // Worker A reads its batch and is held here (a GC pause, a slow network) before removing it...
            List<Object> readByA = list(workerA.call("ZRANGEBYSCORE", key, "-inf", "+inf", "LIMIT", "0", "10"));
            // ...while worker B reads the same head of the set.
            List<Object> readByB = list(workerB.call("ZRANGEBYSCORE", key, "-inf", "+inf", "LIMIT", "0", "10"));
            for (Object id : readByA) {
                workerA.call("ZREM", key, (String) id);
                ledger.record((String) id); // A runs every job it read
            }
            for (Object id : readByB) {
                workerB.call("ZREM", key, (String) id);
                ledger.record((String) id); // so does B: ZREM's 0 came too late to stop it
            }
            assertThat(ledger.duplicates()).hasSize(10);
            setup.call("DEL", key);
        }
    }

    @SuppressWarnings("unchecked")
    private static List<Object> list(Object reply) {
        return (List<Object>) reply;
    }
}
