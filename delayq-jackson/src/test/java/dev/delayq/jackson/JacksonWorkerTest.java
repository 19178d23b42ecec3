package dev.delayq.jackson;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.delayq.DelayQ;
import dev.delayq.Job;
import dev.delayq.JobInfo;
import dev.delayq.JobQueue;
import dev.delayq.JobState;
import dev.delayq.PayloadCodec;
import dev.delayq.RetryPolicy;
import dev.delayq.Worker;
import dev.delayq.testkit.RedisExtension;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Typed jobs end to end on a real Redis: enqueued as JSON, routed by name, decoded for their handler. */
class JacksonWorkerTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    record Email(String to, String subject) {
    }

    record Sms(String number, String text) {
    }

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final RetryPolicy QUICK = RetryPolicy.builder().maxAttempts(3).base(Duration.ofMillis(50))
            .cap(Duration.ofMillis(50)).build();

    private final ObjectMapper mapper = new ObjectMapper();
    private DelayQ dq;
    private JobQueue q;

    @BeforeEach
    void open() {
        dq = DelayQ.builder().redis(REDIS.uri()).prefix(REDIS.prefix()).build();
        q = dq.queue("typed");
    }

    @AfterEach
    void close() {
        assertThat(q.inspector().check().problems()).isEmpty();
        dq.close(); // closes the workers too
    }

    @Test
    void recordsAndGenericPayloadsReachTheirHandlersTyped() {
        PayloadCodec<Email> emails = JacksonCodec.of(mapper, Email.class);
        PayloadCodec<List<Sms>> smsBatches = JacksonCodec.of(mapper, new TypeReference<List<Sms>>() { });
        Email email = new Email("ada@example.com", "Your order shipped");
        List<Sms> batch = List.of(new Sms("+4412345", "code 1234"), new Sms("+4467890", "code 5678"));
        q.enqueue(Job.builder().id("e1").name("email").payload(email, emails).build());
        q.enqueue(Job.builder().id("s1").name("sms-batch").payload(batch, smsBatches).build());
        Map<String, Object> received = new ConcurrentHashMap<>();
        Worker.builder(q)
                .handle("email", emails, (ctx, e) -> received.put(ctx.id(), e))
                .handle("sms-batch", smsBatches, (ctx, b) -> received.put(ctx.id(), b))
                .build().start();
        Awaitility.await().atMost(WAIT).until(() -> q.inspector().stats().done() == 2);
        assertThat(received).containsEntry("e1", email).containsEntry("s1", batch);
        assertThat(((List<?>) received.get("s1")).get(0)).isInstanceOf(Sms.class);
        assertThat(q.get("e1").orElseThrow().payloadUtf8())
                .isEqualTo("{\"to\":\"ada@example.com\",\"subject\":\"Your order shipped\"}");
    }

    @Test
    void aPayloadThatIsNotJsonOfTheTypeGoesToDeadAfterOneAttempt() {
        PayloadCodec<Email> emails = JacksonCodec.of(mapper, Email.class);
        q.enqueue(Job.builder().id("broken").name("email").payload("{\"to\": \"ada@example.com\", ").build());
        q.enqueue(Job.builder().id("wrong-shape").name("email").payload("[1, 2, 3]").build());
        AtomicInteger handled = new AtomicInteger();
        Worker.builder(q).handle("email", emails, (ctx, e) -> handled.incrementAndGet()).retryPolicy(QUICK).build().start();
        Awaitility.await().atMost(WAIT).until(() -> q.inspector().stats().dead() == 2);
        for (String id : List.of("broken", "wrong-shape")) {
            JobInfo info = q.get(id).orElseThrow();
            assertThat(info.state()).isEqualTo(JobState.DEAD);
            assertThat(info.attempt()).as(id + ": not retried").isEqualTo(1);
            assertThat(info.lastError()).as(id)
                    .startsWith("payload cannot be decoded: not JSON of type dev.delayq.jackson.JacksonWorkerTest$Email: ");
        }
        assertThat(handled.get()).isZero();
    }
}
