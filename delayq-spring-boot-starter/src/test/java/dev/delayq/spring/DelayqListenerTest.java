package dev.delayq.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.DelayQ;
import dev.delayq.JobContext;
import dev.delayq.JobInfo;
import dev.delayq.JobQueue;
import dev.delayq.JobState;
import dev.delayq.NonRetryableException;
import dev.delayq.Worker;
import dev.delayq.testkit.RedisExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * {@link DelayqListener} methods in a whole Spring Boot application: each parameter kind receives its jobs; a
 * throwing listener is retried with its backoff and then dies with its own error; non-retryable failures and
 * unreadable payloads die at once.
 */
@SpringBootTest(classes = DelayqListenerTest.App.class)
@DirtiesContext
class DelayqListenerTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();
    private static final String PREFIX = "listener" + System.nanoTime();
    private static final Duration WAIT = Duration.ofSeconds(30);

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry r) {
        r.add("spring.data.redis.host", () -> "127.0.0.1");
        r.add("spring.data.redis.port", () -> REDIS.server().port());
        r.add("delayq.prefix", () -> PREFIX);
        r.add("test.generic-queue", () -> "lists");
    }

    @Autowired
    DelayqTemplate template;

    @Autowired
    Received received;

    @Autowired
    DelayQ delayQ;

    @Autowired
    DelayqWorkers workers;

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
        @Bean
        Received received() {
            return new Received();
        }

        @Bean
        Listeners listeners(Received received) {
            return new Listeners(received);
        }
    }

    /** What every listener received, by queue. */
    static final class Received {
        final Map<String, List<Object>> byQueue = new ConcurrentHashMap<>();
        final List<Integer> flakyAttempts = new CopyOnWriteArrayList<>();

        void add(String queue, Object value) {
            byQueue.computeIfAbsent(queue, q -> new CopyOnWriteArrayList<>()).add(value);
        }

        List<Object> of(String queue) {
            return byQueue.getOrDefault(queue, List.of());
        }
    }

    static class Listeners {
        private final Received received;

        Listeners(Received received) {
            this.received = received;
        }

        /** A flow's parent: its returned value is its result. */
        @DelayqListener(queue = "reports", name = "part")
        Order part(Order order) {
            return new Order(order.id() * 10, "total of " + order.item());
        }

        /** A flow's child: its parents' results, read as their type; its own result as text. */
        @DelayqListener(queue = "reports", name = "summary")
        String summary(JobContext job, @DelayqParentResults Map<String, Order> parts) {
            received.add("reports", new java.util.TreeMap<>(parts));
            return "sum=" + parts.values().stream().mapToLong(Order::id).sum();
        }

        @DelayqListener(queue = "texts")
        void text(String text) {
            received.add("texts", text);
        }

        @DelayqListener(queue = "bytes")
        void bytes(byte[] bytes) {
            received.add("bytes", List.of(bytes[0], bytes[1], bytes[2]));
        }

        @DelayqListener("contexts")
        void context(JobContext job) {
            received.add("contexts", job.id() + "@" + job.attempt() + ":" + job.payloadUtf8());
        }

        @DelayqListener(queue = "orders")
        void order(Order order) {
            received.add("orders", order);
        }

        @DelayqListener(queue = "orders-with-context", concurrency = "2")
        void orderWithContext(JobContext job, Order order) {
            received.add("orders-with-context", job.id() + "=" + order.item());
        }

        @DelayqListener(queue = "${test.generic-queue}")
        void lists(List<Order> orders) {
            received.add("lists", orders);
        }

        @DelayqListener(queue = "flaky", maxAttempts = "3", backoff = "10ms", backoffCap = "20ms")
        void flaky(JobContext job) {
            received.flakyAttempts.add(job.attempt());
            throw new IllegalStateException("flaky failure on attempt " + job.attempt());
        }

        @DelayqListener(queue = "poison", maxAttempts = "5", backoff = "10ms")
        void poison(String text) {
            received.add("poison", text);
            throw new NonRetryableException("cannot ever handle '" + text + "'");
        }

        @DelayqListener(queue = "typed", maxAttempts = "5", backoff = "10ms")
        void typed(Order order) {
            received.add("typed", order);
        }
    }

    private JobInfo awaitState(String queue, String id, JobState state) {
        JobQueue q = delayQ.queue(queue);
        Awaitility.await().atMost(WAIT).until(() -> q.get(id).map(JobInfo::state).orElse(null) == state);
        return q.get(id).orElseThrow();
    }

    @Test
    void aListenerOfEachParameterKindReceivesItsJobs() {
        template.enqueue("texts", "grüße", Duration.ZERO);
        template.enqueue("bytes", new byte[] {0, (byte) 0xff, 7}, Duration.ZERO);
        template.enqueue("contexts", "ctx-1", "hello", Duration.ofMillis(50));
        template.enqueue("orders", new Order(7, "pen"), Duration.ZERO);
        template.enqueue("orders-with-context", "o-8", new Order(8, "ink"), Duration.ZERO);
        template.enqueue("lists", List.of(new Order(1, "a"), new Order(2, "b")), Duration.ZERO);

        Awaitility.await().atMost(WAIT).untilAsserted(() -> {
            assertThat(received.of("texts")).containsExactly("grüße");
            assertThat(received.of("bytes")).containsExactly(List.of((byte) 0, (byte) 0xff, (byte) 7));
            assertThat(received.of("contexts")).containsExactly("ctx-1@1:hello");
            assertThat(received.of("orders")).containsExactly(new Order(7, "pen"));
            assertThat(received.of("orders-with-context")).containsExactly("o-8=ink");
            assertThat(received.of("lists")).containsExactly(List.of(new Order(1, "a"), new Order(2, "b")));
        });
        // Objects travel as JSON, Strings as their UTF-8 bytes (not JSON-quoted).
        JobInfo ctx = awaitState("contexts", "ctx-1", JobState.DONE);
        assertThat(ctx.payloadUtf8()).isEqualTo("hello");
        JobInfo order = awaitState("orders-with-context", "o-8", JobState.DONE);
        assertThat(new String(order.payload(), StandardCharsets.UTF_8)).isEqualTo("{\"id\":8,\"item\":\"ink\"}");
        for (String queue : List.of("texts", "bytes", "contexts", "orders", "orders-with-context", "lists")) {
            assertThat(delayQ.queue(queue).inspector().check().problems()).as("consistency of %s", queue).isEmpty();
        }
    }

    @Test
    void aListenerReturnsItsJobsResultAndAChildReadsItsParentsResults() {
        template.enqueue("reports", template.job(new Order(1, "pens")).id("part-1").name("part").build());
        template.enqueue("reports", template.job(new Order(2, "ink")).id("part-2").name("part")
                .delay(Duration.ofMillis(200)).build());
        template.enqueue("reports", template.job("all").id("summary").name("summary").after("part-1", "part-2").build());

        JobInfo summary = awaitState("reports", "summary", JobState.DONE);
        assertThat(received.of("reports")).containsExactly(Map.of(
                "part-1", new Order(10, "total of pens"), "part-2", new Order(20, "total of ink")));
        assertThat(summary.result()).asString(StandardCharsets.UTF_8).isEqualTo("sum=30");
        assertThat(awaitState("reports", "part-1", JobState.DONE).result()).asString(StandardCharsets.UTF_8)
                .isEqualTo("{\"id\":10,\"item\":\"total of pens\"}");
    }

    @Test
    void aThrowingListenerIsRetriedWithBackoffThenDiesWithItsOwnError() {
        template.enqueue("flaky", "f-1", "x", Duration.ZERO);
        JobInfo dead = awaitState("flaky", "f-1", JobState.DEAD);
        assertThat(received.flakyAttempts).containsExactly(1, 2, 3);
        assertThat(dead.attempt()).isEqualTo(3);
        // The method's own exception, not the reflection wrapper around it.
        assertThat(dead.lastError()).startsWith("java.lang.IllegalStateException: flaky failure on attempt 3")
                .doesNotContain("InvocationTargetException");
    }

    @Test
    void aNonRetryableExceptionAndAnUnreadablePayloadGoToDeadAtOnce() {
        template.enqueue("poison", "p-1", "bad", Duration.ZERO);
        JobInfo poison = awaitState("poison", "p-1", JobState.DEAD);
        assertThat(poison.attempt()).isEqualTo(1);
        assertThat(poison.lastError()).startsWith("dev.delayq.NonRetryableException: cannot ever handle 'bad'");
        assertThat(received.of("poison")).containsExactly("bad");

        template.enqueue("typed", "t-1", "not json at all", Duration.ZERO);
        JobInfo typed = awaitState("typed", "t-1", JobState.DEAD);
        assertThat(typed.attempt()).isEqualTo(1);
        assertThat(typed.lastError()).contains("@DelayqListener Listeners.typed cannot read the payload of job t-1")
                .contains(Order.class.getName());
        assertThat(received.of("typed")).isEmpty();
    }

    @Test
    void everyListenerRunsAsAWorkerOnItsQueueWithPlaceholdersResolved() {
        assertThat(workers.workers()).allMatch(Worker::isRunning).extracting(Worker::queue).containsExactlyInAnyOrder(
                "texts", "bytes", "contexts", "orders", "orders-with-context", "lists", "flaky", "poison", "typed",
                "reports");
    }
}
