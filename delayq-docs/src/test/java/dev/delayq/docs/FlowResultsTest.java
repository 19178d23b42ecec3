package dev.delayq.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.delayq.DelayQ;
import dev.delayq.JobInfo;
import dev.delayq.JobQueue;
import dev.delayq.JobState;
import dev.delayq.Worker;
import dev.delayq.testkit.RedisExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** docs/flows.md's results example, run against a private Redis: the total sees its three parts' results. */
class FlowResultsTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.dedicated(b -> { });

    @Test
    void theTotalAddsUpThePartsResults() {
        try (DelayQ dq = DelayQ.builder().redis(REDIS.uri()).build(); Worker worker = Flows.results(dq)) {
            JobQueue totals = dq.queue("totals");
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> totals.get("total").map(JobInfo::state).orElse(null) == JobState.DONE);
            assertThat(new String(totals.get("total").orElseThrow().result(), StandardCharsets.UTF_8)).isEqualTo("6");
            assertThat(new String(totals.get("count-ccc").orElseThrow().result(), StandardCharsets.UTF_8)).isEqualTo("3");
            assertThat(worker.isRunning()).isTrue();
        }
    }
}
