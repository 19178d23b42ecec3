package dev.delayq.internal.present;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.JobInfo;
import dev.delayq.JobState;
import dev.delayq.Limits;
import dev.delayq.QueueStats;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The one JSON shape of a job and of a queue's counts (the command line's {@code --json} and the dashboard's API):
 * every key that docs/cli.md and docs/dashboard.md name, in a fixed order, with their values.
 */
class JobFieldsTest {
    /** The keys of a job, in order: docs/cli.md ({@code job --json}) and docs/dashboard.md name them. */
    static final List<String> JOB_KEYS = List.of("id", "state", "attempt", "maxAttempts", "dueAt", "leaseUntil",
            "finishedAt", "token", "error", "payload", "payloadBase64", "payloadBytes", "payloadPreviewBytes",
            "payloadTruncated", "name", "enqueuedAt", "stalls", "dedupeKey", "dedupeHeldUntil", "corrupt", "priority",
            "progress", "allowed");
    /** The keys of a queue's counts: {@code stats --json} named it {@code queue}, the dashboard {@code name}. */
    static final List<String> STATS_KEYS = List.of("queue", "name", "scheduled", "processing", "done", "dead", "waiting", "totals",
            "paused", "oldestDueAt", "oldestDueLagMillis", "rate", "concurrency", "events", "pastRetention");

    private static JobInfo job(JobState state, byte[] payload, boolean corrupt) {
        return new JobInfo("order-7", state, 2, 5, 1_700_000_000_000L, -1, -1, 42, "boom", payload, "mail",
                1_699_999_000_000L, 1, "dk", -1, corrupt, 3, null);
    }

    @Test
    void aJobHasEveryKeyInOrderWithItsValue() {
        Map<String, Object> m = JobFields.job(job(JobState.SCHEDULED, "{\"a\":1}".getBytes(StandardCharsets.UTF_8), false),
                JobFields.WHOLE_PAYLOAD);
        assertThat(m.keySet()).containsExactlyElementsOf(JOB_KEYS);
        assertThat(m).containsEntry("id", "order-7").containsEntry("state", "scheduled").containsEntry("attempt", 2)
                .containsEntry("maxAttempts", 5).containsEntry("dueAt", "2023-11-14T22:13:20Z").containsEntry("leaseUntil", null)
                .containsEntry("finishedAt", null).containsEntry("token", 42L).containsEntry("error", "boom")
                .containsEntry("payload", "{\"a\":1}").containsEntry("payloadBytes", 7).containsEntry("payloadPreviewBytes", 7)
                .containsEntry("payloadTruncated", false).containsEntry("name", "mail")
                .containsEntry("enqueuedAt", "2023-11-14T21:56:40Z").containsEntry("stalls", 1).containsEntry("dedupeKey", "dk")
                .containsEntry("dedupeHeldUntil", null).containsEntry("corrupt", false).containsEntry("priority", 3)
                .containsEntry("progress", null).containsEntry("allowed", List.of("cancel", "delete", "reschedule", "run-now"));
    }

    @Test
    void aResultIsTextWhenItIsUtf8ElseBase64WithItsEncoding() {
        JobInfo j = job(JobState.DONE, new byte[0], false);
        JobInfo text = new JobInfo(j.id(), j.state(), j.attempt(), j.maxAttempts(), j.dueAtMillis(), -1, 1, j.token(), null,
                j.payload(), null, -1, 0, null, -1, false, 0, null, null, null, 0, null, "rows: 42".getBytes(StandardCharsets.UTF_8));
        assertThat(JobFields.job(text, JobFields.WHOLE_PAYLOAD)).containsEntry("result", "rows: 42")
                .doesNotContainKey("resultEncoding");
        JobInfo binary = new JobInfo(j.id(), j.state(), j.attempt(), j.maxAttempts(), j.dueAtMillis(), -1, 1, j.token(), null,
                j.payload(), null, -1, 0, null, -1, false, 0, null, null, null, 0, null, new byte[] {0, (byte) 0xff});
        assertThat(JobFields.job(binary, JobFields.WHOLE_PAYLOAD)).containsEntry("result", "AP8=")
                .containsEntry("resultEncoding", "base64");
        assertThat(JobFields.job(j, JobFields.WHOLE_PAYLOAD)).doesNotContainKeys("result", "resultEncoding");
    }

    @Test
    void aPreviewNeverSplitsACharacterAndSaysItIsShort() {
        byte[] payload = "ab\u00e9\u00e9".getBytes(StandardCharsets.UTF_8); // 6 bytes: a b (c3 a9) (c3 a9)
        Map<String, Object> m = JobFields.job(job(JobState.DONE, payload, false), 3);
        assertThat(m).containsEntry("payload", "ab").containsEntry("payloadBytes", 6).containsEntry("payloadPreviewBytes", 2)
                .containsEntry("payloadTruncated", true).containsEntry("payloadBase64", "YWI=")
                .containsEntry("allowed", List.of("delete"));
        byte[] binary = {(byte) 0xff, 0, 1, 2};
        Map<String, Object> b = JobFields.job(job(JobState.DEAD, binary, false), 2);
        assertThat(b).containsEntry("payload", null).containsEntry("payloadPreviewBytes", 2)
                .containsEntry("payloadBase64", Base64.getEncoder().encodeToString(new byte[] {(byte) 0xff, 0}))
                .containsEntry("allowed", List.of("delete", "retry"));
    }

    @Test
    void aCorruptRecordCanOnlyBeDeletedAndARunningJobNothing() {
        assertThat(JobFields.job(job(JobState.SCHEDULED, new byte[] {1}, true), 10)).containsEntry("allowed", List.of("delete"));
        assertThat(JobFields.job(job(JobState.PROCESSING, new byte[] {1}, true), 10)).containsEntry("allowed", List.of());
        assertThat(JobFields.job(job(JobState.PROCESSING, new byte[] {1}, false), 10)).containsEntry("allowed", List.of());
    }

    @Test
    void aQueuesCountsCarryBothNamesOfTheQueueAndTheLimitsInTheGrammarsUnits() {
        QueueStats s = new QueueStats("orders", 3, 1, 5, 2, Map.of("enqueued", 11L), true, 1_700_000_000_000L,
                1_700_000_001_500L, Limits.rate(50, Duration.ofSeconds(1)).concurrency(4), 1000, 7);
        Map<String, Object> m = JobFields.stats(s);
        assertThat(m.keySet()).containsExactlyElementsOf(STATS_KEYS);
        assertThat(m).containsEntry("queue", "orders").containsEntry("name", "orders").containsEntry("scheduled", 3L)
                .containsEntry("processing", 1L).containsEntry("done", 5L).containsEntry("dead", 2L)
                .containsEntry("totals", Map.of("enqueued", 11L)).containsEntry("paused", true)
                .containsEntry("oldestDueAt", "2023-11-14T22:13:20Z").containsEntry("oldestDueLagMillis", 1500L)
                .containsEntry("rate", "50/1s").containsEntry("concurrency", 4).containsEntry("events", 1000L)
                .containsEntry("pastRetention", 7L);
        QueueStats idle = new QueueStats("q", 0, 0, 0, 0, Map.of(), false, -1, 5, Limits.none(), 0);
        assertThat(JobFields.stats(idle)).containsEntry("oldestDueAt", null).containsEntry("oldestDueLagMillis", 0L)
                .containsEntry("rate", null).containsEntry("concurrency", null).containsEntry("events", null)
                .containsEntry("pastRetention", null);
    }

    @Test
    void aQueuesCountsWithItsWorkersAddTheKeyLastAndFlagDueJobsNoWorkerRuns() {
        QueueStats due = new QueueStats("q", 1, 0, 0, 0, Map.of(), false, 1_000, 1_000, Limits.none(), 0);
        QueueStats later = new QueueStats("q", 1, 0, 0, 0, Map.of(), false, 2_000, 1_000, Limits.none(), 0);
        QueueStats empty = new QueueStats("q", 0, 0, 0, 0, Map.of(), false, -1, 1_000, Limits.none(), 0);
        Map<String, Object> m = JobFields.stats(due, 0);
        assertThat(List.copyOf(m.keySet()).subList(0, STATS_KEYS.size())).containsExactlyElementsOf(STATS_KEYS);
        assertThat(m).containsEntry("workers", 0);
        assertThat(JobFields.stats(due, 2)).containsEntry("workers", 2);
        assertThat(JobFields.unattended(due, 0)).isTrue();
        assertThat(JobFields.unattended(due, 1)).isFalse();
        assertThat(JobFields.unattended(later, 0)).as("nothing due yet").isFalse();
        assertThat(JobFields.unattended(empty, 0)).isFalse();
    }
}
