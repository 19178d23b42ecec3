package dev.delayq.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.delayq.Job;
import dev.delayq.JobContext;
import dev.delayq.JobInfo;
import dev.delayq.testkit.RedisExtension;
import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.ReceiverContext;
import io.micrometer.observation.transport.SenderContext;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.MDC;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * With an {@link ObservationRegistry}, the template's enqueues and the listener runs are observed: the enqueue's
 * propagator writes the trace context into the job (stored in Redis with it), the run's reads it back from the
 * {@link JobContext}, with the documented names and key values; the handler runs inside its observation's scope, with
 * the job in the MDC. The propagator here is a handler that does what Micrometer Tracing's propagating handlers do
 * with a W3C propagator (the real one, with OpenTelemetry, is in the example application's tracing test).
 */
class DelayqObservationTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();
    private static final Duration WAIT = Duration.ofSeconds(30);
    static final String TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

    /** Started and stopped observations, and what the handler saw. */
    static final List<Observation.Context> STOPPED = new CopyOnWriteArrayList<>();
    static final Map<String, String> SEEN = new ConcurrentHashMap<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DelayqAutoConfiguration.class, TestBootLine.JACKSON_AUTO_CONFIGURATION));

    @Configuration(proxyBeanMethods = false)
    static class Observed {
        @Bean
        ObservationRegistry observationRegistry() {
            ObservationRegistry registry = ObservationRegistry.create();
            registry.observationConfig().observationHandler(new ObservationHandler<>() {
                @Override
                public void onStart(Observation.Context context) {
                    if (context instanceof SenderContext<?> sender) {
                        inject(sender);
                    }
                    if (context instanceof ReceiverContext<?> receiver) {
                        String parent = extract(receiver, "traceparent");
                        SEEN.put("extracted", parent == null ? "none" : parent);
                    }
                }

                @Override
                public void onStop(Observation.Context context) {
                    STOPPED.add(context);
                }

                @Override
                public boolean supportsContext(Observation.Context context) {
                    return true;
                }
            });
            return registry;
        }

        @SuppressWarnings("unchecked")
        private static <C> void inject(SenderContext<C> sender) {
            sender.getSetter().set(sender.getCarrier(), "traceparent", TRACEPARENT);
            sender.getSetter().set(sender.getCarrier(), "tracestate", "vendor=1");
        }

        private static <C> String extract(ReceiverContext<C> receiver, String key) {
            return receiver.getGetter().get(receiver.getCarrier(), key);
        }

        @Bean
        Listener listener(ObservationRegistry registry) {
            return new Listener(registry);
        }
    }

    static class Listener {
        private final ObservationRegistry registry;

        Listener(ObservationRegistry registry) {
            this.registry = registry;
        }

        @DelayqListener(queue = "observed")
        void run(JobContext job) {
            Observation current = registry.getCurrentObservation();
            SEEN.put("current", current == null ? "none" : current.getContext().getName());
            SEEN.put("mdc", String.valueOf(MDC.get("delayq.jobId")));
            if (job.id().equals("fails")) {
                throw new IllegalStateException("failing on purpose");
            }
        }
    }

    @Test
    void theEnqueueWritesTheTraceContextIntoTheJobAndTheRunReadsItBack() {
        STOPPED.clear();
        SEEN.clear();
        runner.withPropertyValues("delayq.redis-url=" + REDIS.uri(), "delayq.prefix=" + REDIS.prefix(),
                        "delayq.retry.max-attempts=1")
                .withUserConfiguration(Observed.class).run(ctx -> {
                    DelayqTemplate template = ctx.getBean(DelayqTemplate.class);
                    assertThat(template.enqueue("observed", "job-1", "payload", Duration.ZERO).created()).isTrue();
                    Awaitility.await().atMost(WAIT).until(() -> SEEN.containsKey("current"));
                    Awaitility.await().atMost(WAIT).until(() -> named("delayq.process").size() == 1);

                    JobInfo stored = template.queue("observed").get("job-1").orElseThrow();
                    assertThat(stored.traceparent()).as("stored with the job").isEqualTo(TRACEPARENT);
                    assertThat(stored.tracestate()).isEqualTo("vendor=1");
                    assertThat(SEEN).containsEntry("extracted", TRACEPARENT).containsEntry("current", "delayq.process")
                            .containsEntry("mdc", "job-1");

                    Observation.Context enqueue = named("delayq.enqueue").get(0);
                    assertThat(enqueue.getContextualName()).isEqualTo("send observed");
                    assertThat(enqueue.getLowCardinalityKeyValues()).contains(KeyValue.of("queue", "observed"),
                            KeyValue.of("outcome", "created"), KeyValue.of("messaging.system", "delayq"));
                    assertThat(enqueue.getHighCardinalityKeyValues()).contains(KeyValue.of("messaging.message.id", "job-1"));
                    Observation.Context process = named("delayq.process").get(0);
                    assertThat(process.getContextualName()).isEqualTo("process observed");
                    assertThat(process.getLowCardinalityKeyValues()).contains(KeyValue.of("queue", "observed"),
                            KeyValue.of("outcome", "success"));
                    assertThat(process.getHighCardinalityKeyValues()).contains(KeyValue.of("messaging.message.id", "job-1"),
                            KeyValue.of("delayq.attempt", "1"));

                    assertThat(template.enqueue("observed", "job-1", "payload", Duration.ZERO).duplicate()).isTrue();
                    assertThat(named("delayq.enqueue").get(1).getLowCardinalityKeyValues())
                            .contains(KeyValue.of("outcome", "duplicate"));

                    Job own = Job.builder().id("own").payload("p").delay(Duration.ofHours(1))
                            .traceContext("00-11111111111111111111111111111111-2222222222222222-01", null).build();
                    template.enqueue("observed", own);
                    assertThat(template.queue("observed").get("own").orElseThrow().traceparent())
                            .as("a job's own trace context is kept").startsWith("00-1111");

                    template.enqueue("observed", "fails", "payload", Duration.ZERO);
                    Awaitility.await().atMost(WAIT).until(() -> named("delayq.process").size() == 2);
                    Observation.Context failed = named("delayq.process").get(1);
                    assertThat(failed.getLowCardinalityKeyValues()).contains(KeyValue.of("outcome", "failure"));
                    assertThat(failed.getError()).hasMessage("failing on purpose");

                    assertThatThrownBy(() -> template.enqueue("observed", "too-big", new byte[300_000], Duration.ZERO))
                            .isInstanceOf(IllegalArgumentException.class);
                    assertThat(named("delayq.enqueue")).last().satisfies(c -> assertThat(c.getLowCardinalityKeyValues())
                            .contains(KeyValue.of("outcome", "error")));
                });
    }

    @Test
    void withoutAnObservationRegistryNothingIsObserved() {
        runner.withPropertyValues("delayq.redis-url=" + REDIS.uri(), "delayq.prefix=" + REDIS.prefix())
                .run(ctx -> assertThat(ctx).doesNotHaveBean(DelayqObservations.class));
    }

    private static List<Observation.Context> named(String name) {
        return STOPPED.stream().filter(c -> name.equals(c.getName())).toList();
    }
}
