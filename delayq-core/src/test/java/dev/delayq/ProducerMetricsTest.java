package dev.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.delayq.micrometer.MicrometerProducerMetrics;
import dev.delayq.testkit.RedisExtension;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The producer meters count what enqueues did, by queue, against a real Redis (one that is killed, for the errors). */
class ProducerMetricsTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.dedicated(b -> { });

    @Test
    void enqueuedDuplicatesAndLatencyAreCountedByQueue() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (TestSupport t = new TestSupport(Target.of(REDIS.server()), REDIS.prefix())) {
            DelayQ dq = t.client(b -> b.producerMetrics(new MicrometerProducerMetrics(registry)));
            JobQueue orders = t.queue(dq, "orders");
            JobQueue mail = t.queue(dq, "mail", 4);

            orders.enqueue(Job.builder().id("a").delay(Duration.ofHours(1)).build());
            orders.enqueue(Job.builder().id("a").delay(Duration.ofHours(1)).build());
            orders.enqueueAsync(Job.builder().id("b").delay(Duration.ofHours(1)).build()).join();
            orders.enqueue(Job.builder().dedupe("k", Duration.ofMinutes(5)).delay(Duration.ofHours(1)).build());
            orders.enqueue(Job.builder().dedupe("k", Duration.ofMinutes(5)).delay(Duration.ofHours(1)).build());
            List<EnqueueResult> batch = mail.enqueueAll(List.of(Job.builder().id("m1").build(), Job.builder().id("m2").build(),
                    Job.builder().id("m3").build(), Job.builder().id("m1").build()));
            assertThat(batch).extracting(EnqueueResult::created).containsExactly(true, true, true, false);

            assertThat(count(registry, "delayq.jobs.enqueued", "orders")).isEqualTo(3);
            assertThat(count(registry, "delayq.jobs.duplicates", "orders")).isEqualTo(2);
            assertThat(count(registry, "delayq.jobs.enqueued", "mail")).as("a partitioned queue's batch").isEqualTo(3);
            assertThat(count(registry, "delayq.jobs.duplicates", "mail")).isEqualTo(1);
            Timer latency = registry.get("delayq.enqueue.latency").tag("queue", "orders").timer();
            assertThat(latency.count()).as("one per call").isEqualTo(5);
            assertThat(latency.totalTime(java.util.concurrent.TimeUnit.NANOSECONDS)).isPositive();
            assertThat(registry.get("delayq.enqueue.latency").tag("queue", "mail").timer().count())
                    .as("one per enqueueAll call").isEqualTo(1);

            assertThatThrownBy(() -> orders.enqueue(Job.builder().id("x").payload(new byte[dq.maxPayloadBytes() + 1]).build()))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> orders.enqueueAll(null)).isInstanceOf(IllegalArgumentException.class);
            assertThat(registry.find("delayq.enqueue.errors").counters()).as("refused input is not an error of the queue")
                    .isEmpty();
            assertThat(count(registry, "delayq.jobs.enqueued", "orders")).isEqualTo(3);
        }
    }

    @Test
    void debounceReplacesAreCountedApartFromCreatedAndDuplicates() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        List<int[]> calls = new java.util.concurrent.CopyOnWriteArrayList<>();
        ProducerMetrics old = new ProducerMetrics() { // written before debounce: only the four-argument form
            @Override
            public void enqueued(String queue, int created, int duplicates, long nanos) {
                calls.add(new int[] {created, duplicates});
            }
        };
        try (TestSupport t = new TestSupport(Target.of(REDIS.server()), REDIS.prefix())) {
            DelayQ dq = t.client(b -> b.producerMetrics(new MicrometerProducerMetrics(registry)));
            JobQueue q = t.queue(dq, "search", 3);
            Job.Builder debounced = Job.builder().dedupe("reindex", null).dedupeMode(DedupeMode.DEBOUNCE).delay(Duration.ofHours(1));
            q.enqueue(debounced.build());
            q.enqueue(debounced.build());
            assertThat(q.enqueueAll(List.of(debounced.build(), debounced.build(), Job.builder().id("x").build(),
                    Job.builder().id("x").build()))).extracting(EnqueueResult::replaced).containsExactly(true, true, false, false);
            assertThat(count(registry, "delayq.jobs.replaced", "search")).isEqualTo(3);
            assertThat(count(registry, "delayq.jobs.enqueued", "search")).isEqualTo(2);
            assertThat(count(registry, "delayq.jobs.duplicates", "search")).as("a replace is no duplicate").isEqualTo(1);

            DelayQ older = t.client(b -> b.producerMetrics(old));
            t.queue(older, "search", 3).enqueue(debounced.build());
            assertThat(calls).singleElement().satisfies(c -> assertThat(c).containsExactly(0, 0));
        }
    }

    @Test
    void aFailedEnqueueIsCountedByItsErrorAndASinkThatThrowsChangesNothing() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        AtomicInteger thrown = new AtomicInteger();
        ProducerMetrics counting = new MicrometerProducerMetrics(registry);
        ProducerMetrics throwing = new ProducerMetrics() {
            @Override
            public void enqueued(String queue, int created, int duplicates, long nanos) {
                counting.enqueued(queue, created, duplicates, nanos);
                thrown.incrementAndGet();
                throw new IllegalStateException("a broken sink");
            }

            @Override
            public void enqueueFailed(String queue, int jobs, Throwable error, long nanos) {
                counting.enqueueFailed(queue, jobs, error, nanos);
            }
        };
        try (DelayQ dq = DelayQ.builder().redis(REDIS.uri()).prefix(REDIS.prefix() + "-down").timeout(Duration.ofMillis(500))
                .producerMetrics(throwing).build()) {
            JobQueue q = dq.queue("down");
            assertThat(q.enqueue(Job.builder().id("before").build()).created()).as("the sink threw; the enqueue stands").isTrue();
            assertThat(thrown).hasValue(1);
            assertThat(count(registry, "delayq.jobs.enqueued", "down")).isEqualTo(1);

            REDIS.server().kill();
            try {
                assertThatThrownBy(() -> q.enqueue(Job.builder().id("lost").build())).isInstanceOf(DelayQException.class);
                assertThatThrownBy(() -> q.enqueueAll(List.of(Job.builder().id("l1").build(), Job.builder().id("l2").build())))
                        .isInstanceOf(DelayQException.class);
            } finally {
                REDIS.server().restart();
            }
            List<Counter> errors = registry.find("delayq.enqueue.errors").tag("queue", "down").counters().stream().toList();
            assertThat(errors.stream().mapToDouble(Counter::count).sum()).as("one per failed call").isEqualTo(2);
            assertThat(errors).allSatisfy(c -> assertThat(c.getId().getTag("error")).startsWith("DelayQ").endsWith("Exception"));
            assertThat(registry.get("delayq.enqueue.latency").tag("queue", "down").timer().count())
                    .as("failed calls are timed too").isEqualTo(3);
            assertThat(count(registry, "delayq.jobs.enqueued", "down")).isEqualTo(1);
        }
    }

    @Test
    void withoutProducerMetricsNothingIsReported() {
        assertThatThrownBy(() -> DelayQ.builder().producerMetrics(null).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("producer metrics");
        assertThatThrownBy(() -> new MicrometerProducerMetrics(null)).isInstanceOf(IllegalArgumentException.class);
    }

    private static double count(SimpleMeterRegistry registry, String name, String queue) {
        Counter c = registry.find(name).tag("queue", queue).counter();
        return c == null ? 0 : c.count();
    }
}
