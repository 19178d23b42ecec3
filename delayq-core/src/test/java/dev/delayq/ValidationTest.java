package dev.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.delayq.internal.base.Validation;
import dev.delayq.testkit.RedisExtension;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Every input check, with the message a user sees. */
class ValidationTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    private TestSupport t;
    private JobQueue q;

    @BeforeEach
    void open() {
        t = new TestSupport(Target.of(REDIS.server()), REDIS.prefix());
        q = t.queue(t.client(b -> b.maxPayloadBytes(1000)), "v");
    }

    @AfterEach
    void close() {
        t.close();
    }

    @Test
    void emptyIdIsRejected() {
        assertThatThrownBy(() -> Job.builder().id("").build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("job id must not be empty: use 1-512 bytes of UTF-8 text");
    }

    @Test
    void overLongIdIsRejectedWithItsLength() {
        assertThat(Job.builder().id("a".repeat(512)).build().id()).hasSize(512);
        assertThatThrownBy(() -> Job.builder().id("é".repeat(257)).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("job id is 514 bytes long: the limit is 512 bytes of UTF-8");
    }

    @Test
    void controlCharactersInIdsAreRejected() {
        assertThatThrownBy(() -> Job.builder().id("a\nb").build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("job id 'a\\u000ab' contains the control character U+000A at index 1: control characters are not allowed");
        assertThatThrownBy(() -> Job.builder().id("bad\uD800").build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unpaired surrogate");
        // Braces, colons and stars are fine in ids: ids never become part of a key name.
        assertThat(q.enqueue(Job.builder().id("{x}:*").build()).created()).isTrue();
        assertThat(q.cancel("{x}:*").changed()).isTrue();
    }

    @Test
    void payloadOverTheLimitIsRejectedAndNothingIsWritten() {
        assertThat(q.enqueue(Job.builder().id("fits").payload(new byte[1000]).build()).created()).isTrue();
        Job big = Job.builder().id("big").payload(new byte[1001]).build();
        assertThatThrownBy(() -> q.enqueue(big)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("payload of job 'big' is 1001 bytes: the limit is 1000 bytes (DelayQ.builder().maxPayloadBytes(n) raises it");
        assertThatThrownBy(() -> q.enqueueAll(List.of(Job.builder().id("ok").build(), big)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(q.get("ok")).isEmpty();
        assertThat(q.get("big")).isEmpty();
        assertThat(q.cancel("fits").changed()).isTrue();
    }

    @Test
    void negativeDelayIsRejected() {
        assertThatThrownBy(() -> Job.builder().delay(Duration.ofMillis(-1)).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("delay is -1ms: it must be zero or positive");
        assertThatThrownBy(() -> q.reschedule("x", Duration.ofSeconds(-5))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("delay is -5s: it must be zero or positive");
    }

    @Test
    void instantsOutsideYears1970To9999AreRejected() {
        Instant tooLate = Instant.parse("+10000-01-01T00:00:00Z");
        assertThatThrownBy(() -> Job.builder().runAt(tooLate).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("run-at instant is +10000-01-01T00:00:00Z: it must lie between 1970-01-01T00:00:00Z and "
                        + "9999-12-31T23:59:59.999Z (year 9999)");
        assertThatThrownBy(() -> Job.builder().runAt(Instant.parse("1969-12-31T23:59:59Z")).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must lie between 1970-01-01T00:00:00Z");
        assertThat(Job.builder().runAt(Bounds.MAX_DUE).build().runAt()).isEqualTo(Bounds.MAX_DUE);
    }

    @Test
    void maxAttemptsBelowOneIsRejected() {
        assertThatThrownBy(() -> Job.builder().maxAttempts(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("max attempts is 0: it must be between 1 and 1000000");
        assertThatThrownBy(() -> RetryPolicy.builder().maxAttempts(1_000_001).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("max attempts is 1000001: it must be between 1 and 1000000");
    }

    @Test
    void aJobTimeoutHasOneBoundForJobsAndWorkers() {
        assertThat(Job.builder().timeout(Bounds.MAX_JOB_TIMEOUT).build().timeout()).isEqualTo(Duration.ofDays(1));
        assertThatThrownBy(() -> Job.builder().timeout(Duration.ofDays(2)).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("job timeout is 2d: it must be between 1ms and 1d");
        assertThatThrownBy(() -> Job.builder().timeout(Duration.ZERO).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("job timeout is 0s: it must be between 1ms and 1d");
        assertThatThrownBy(() -> Validation.jobTimeout("--job-timeout", Duration.ofDays(30)))
                .hasMessage("--job-timeout is 30d: it must be between 1ms and 1d");
        // The worker's default is held to the same bound (WorkerBuilderTest checks its message).
        assertThat(Bounds.MAX_JOB_TIMEOUT).isEqualTo(Duration.ofDays(1));
    }

    @Test
    void scheduleMaxAttemptsHaveTheJobsBoundsWithZeroForTheWorkersPolicy() {
        Schedule s = Schedule.every("s", Duration.ofMinutes(1));
        assertThat(s.maxAttempts(0).maxAttempts()).isZero();
        assertThat(s.maxAttempts(Bounds.MAX_ATTEMPTS).maxAttempts()).isEqualTo(1_000_000);
        assertThatThrownBy(() -> s.maxAttempts(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("max attempts of schedule 's' is -1: it must be between 1 and 1000000, or 0 for the worker's "
                        + "retry policy");
        assertThatThrownBy(() -> s.maxAttempts(1_000_001)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("max attempts of schedule 's' is 1000001: it must be between 1 and 1000000, or 0 for the "
                        + "worker's retry policy");
    }

    @Test
    void aScheduleIsNotStoredUnderABlankNameOrOneEdgedWithBlanks() {
        Duration minute = Duration.ofMinutes(1);
        assertThatThrownBy(() -> q.schedules().upsert(Schedule.every("   ", minute)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("schedule name '   ' is blank: use 1-128 bytes "
                        + "of text that start and end with a visible character");
        for (String name : List.of(" nightly", "\u00a0nightly", "\u3000nightly")) {
            assertThatThrownBy(() -> q.schedules().upsert(Schedule.every(name, minute))).as(name)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageEndingWith("starts with a blank: use 1-128 bytes of text that start and end with a visible "
                            + "character (blanks inside are allowed)");
        }
        assertThatThrownBy(() -> q.schedules().upsert(Schedule.cron("nightly ", "0 3 * * *", java.time.ZoneOffset.UTC)))
                .hasMessage("schedule name 'nightly ' ends with a blank: use 1-128 bytes of text that start and end with a "
                        + "visible character (blanks inside are allowed)");
        assertThat(q.schedules().list()).isEmpty(); // nothing stored
        assertThat(q.schedules().upsert(Schedule.every("nightly report", minute))).isTrue();

        // One stored before the rule is still listed, ticked and removed.
        String key = new String(new dev.delayq.internal.Keys(REDIS.prefix(), "v").schedules(),
                java.nio.charset.StandardCharsets.UTF_8);
        byte[] old = dev.delayq.internal.ops.ScheduleOps.encode(Schedule.every(" old", minute), 0, -1);
        REDIS.server().call("HSET", key, " old", new String(old, java.nio.charset.StandardCharsets.UTF_8));
        assertThat(q.schedules().list()).extracting(i -> i.schedule().name()).containsExactly(" old", "nightly report");
        assertThat(q.schedules().tick()).isPositive();
        Instant next = q.schedules().get(" old").orElseThrow().nextTick();
        assertThat(q.get(" old@" + next.toEpochMilli())).isPresent();
        assertThat(q.schedules().remove(" old")).isTrue();
    }

    @Test
    void queueNamesThatWouldBreakTheKeyLayoutAreRejected() {
        DelayQ dq = t.client();
        for (String bad : List.of("{q}", "a}b", "with space", "tab\there", "star*", "")) {
            assertThatThrownBy(() -> dq.queue(bad)).as(bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("queue name")
                    .hasMessageContaining("A-Z a-z 0-9 . _ - :");
        }
        assertThatThrownBy(() -> dq.queue("x".repeat(129))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("use 1-128 characters");
        assertThat(dq.queue("orders.eu-1:v2").name()).isEqualTo("orders.eu-1:v2");
        assertThatThrownBy(() -> DelayQ.builder().redis(REDIS.uri()).prefix("a{b").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("key prefix 'a{b' is invalid");
    }

    @Test
    void dedupeKeyNeedsATtl() {
        assertThatThrownBy(() -> Job.builder().dedupe("k", Duration.ZERO).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("dedupe TTL is 0s: it must be positive");
        assertThatThrownBy(() -> Job.builder().dedupe("", Duration.ofHours(1)).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("dedupe key must not be empty: use 1-512 bytes of UTF-8 text");
    }

    @Test
    void claimAndPolicyBoundsAreChecked() {
        assertThatThrownBy(() -> ClaimOptions.of(1001, Duration.ofSeconds(1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("claim batch size is 1001: it must be between 0 and 1000");
        assertThatThrownBy(() -> ClaimOptions.of(1, Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("lease is 0s: it must be positive");
        assertThatThrownBy(() -> RetryPolicy.builder().base(Duration.ofSeconds(10)).cap(Duration.ofSeconds(1)).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("backoff cap 1s is shorter than the base 10s: the cap must be at least the base");
        assertThatThrownBy(() -> q.inspector().list(JobState.DONE, 0, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("limit is 0: it must be between 1 and 10000");
        assertThatThrownBy(() -> JobState.parse("finished")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown state 'finished': use scheduled, processing, done, dead or waiting");
    }

    @Test
    void malformedRedisUriIsAnInputError() {
        assertThatThrownBy(() -> DelayQ.connect("http://nope")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("redis URI 'http://nope' is invalid");
    }

    @Test
    void ambiguousUrisAreRefusedAndNoMessageShowsThePassword() {
        // Parsed naively this is host "ss": a DNS lookup would carry part of the password.
        assertThatThrownBy(() -> DelayQ.connect("redis://:p@ss#wo/rd@127.0.0.1:6379"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("percent-encode them (%40, %2F, %3F, %23) or give the password apart")
                .hasMessageNotContaining("p@ss").hasMessageNotContaining("wo/rd");
        assertThatThrownBy(() -> DelayQ.connect("redis://:secret@127.0.0.1:notaport"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("redis URI 'redis://:***@127.0.0.1:notaport' is invalid: invalid port 'notaport': use a number "
                        + "from 1 to 65535 (expected redis://[user:password@]host:port[/db], rediss://... or "
                        + "redis-sentinel://host:port[,host:port]#master)");
        assertThatThrownBy(() -> DelayQ.connect("redis://127.0.0.1:70000")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("invalid port '70000'");
        assertThatThrownBy(() -> DelayQ.builder().redis("redis://127.0.0.1:6379")
                .tlsTrustedCertificates(java.nio.file.Path.of("pom.xml")).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("which is not a TLS URI: its traffic would not be encrypted; use rediss://");
    }

    @Test
    void invisibleFormatCharactersAreRefusedInIdsKeysAndNames() {
        assertThatThrownBy(() -> Job.builder().id("order\u202E1").build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("job id 'order\u202E1' contains the invisible format character U+202E at index 5: format "
                        + "characters (direction overrides, zero-width characters) are not allowed");
        assertThatThrownBy(() -> Job.builder().dedupe("a\u200Bb", Duration.ofMinutes(1)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("dedupe key").hasMessageContaining("U+200B");
        assertThatThrownBy(() -> Job.builder().name("e\u2066mail").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("job name").hasMessageContaining("U+2066");
        assertThat(Job.builder().id("ok-日本-🐢").name("email").build().name()).isEqualTo("email");
    }

    @Test
    void hugeDurationsAreRefusedNamingTheFieldNeverOverflowing() {
        Duration huge = Duration.ofDays(100_000_000_000L);
        assertThatThrownBy(() -> Job.builder().delay(huge).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("delay is 100000000000d: it must be at most");
        assertThatThrownBy(() -> Job.builder().dedupe("k", Duration.ofDays(3653)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessage("dedupe TTL is 3653d: it must be at most 3652d");
        assertThatThrownBy(() -> RetryPolicy.builder().cap(Duration.ofDays(31)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessage("backoff cap is 31d: it must be at most 30d");
        assertThatThrownBy(() -> RetryPolicy.builder().maxStalls(-1).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessage("max stalls is -1: it must be between 0 and 1000");
        assertThatThrownBy(() -> q.reschedule("x", huge)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("delay is 100000000000d");
        assertThatThrownBy(() -> q.inspector().purge(huge)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("older-than is 100000000000d");
        assertThatThrownBy(() -> DelayQ.builder().doneRetention(huge).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("done retention is 100000000000d");
    }

    @Test
    void asyncMethodsFailTheirFutureInsteadOfThrowing() {
        byte[] big = new byte[1001];
        java.util.concurrent.CompletableFuture<EnqueueResult> f =
                q.enqueueAsync(Job.builder().id("big").payload(big).build());
        assertThat(f).isCompletedExceptionally();
        assertThatThrownBy(f::join).hasCauseInstanceOf(IllegalArgumentException.class);
        assertThat(q.enqueueAllAsync(null)).isCompletedExceptionally();
        assertThat(q.leases().failAsync(new Lease("x", 1), "e", true, Duration.ofSeconds(-1))).isCompletedExceptionally();
        assertThat(q.leases().renewAsync(List.of(new Lease("x", 1)), Duration.ZERO)).isCompletedExceptionally();
        assertThat(q.leases().claimAsync(null)).isCompletedExceptionally();
    }
}
