package dev.delayq.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.delayq.EnqueueResult;
import dev.delayq.JobQueue;
import dev.delayq.testkit.RedisExtension;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.DefaultTransactionStatus;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The producer side: {@link DelayqTemplate} in a Spring-managed transaction (enqueued after the commit, never on a
 * rollback, at once with {@code delayq.producer.after-commit=false}) and its meters by queue.
 */
class DelayqProducerTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DelayqAutoConfiguration.class, TestBootLine.JACKSON_AUTO_CONFIGURATION));

    private ApplicationContextRunner onTestRedis() {
        return runner.withPropertyValues("delayq.redis-url=" + REDIS.uri(), "delayq.prefix=" + REDIS.prefix());
    }

    /**
     * A transaction manager without a resource: Spring's own transaction and synchronization handling (begin,
     * commit, rollback, after-commit callbacks), as a JDBC or JPA manager runs it, with nothing to commit.
     */
    static final class NoResourceTransactionManager extends AbstractPlatformTransactionManager {
        @Override
        protected Object doGetTransaction() {
            return new Object();
        }

        @Override
        protected void doBegin(Object transaction, TransactionDefinition definition) {
        }

        @Override
        protected void doCommit(DefaultTransactionStatus status) {
        }

        @Override
        protected void doRollback(DefaultTransactionStatus status) {
        }
    }

    @Test
    void inATransactionTheJobIsEnqueuedAfterTheCommitAndNotAtAllOnARollback() {
        onTestRedis().run(ctx -> {
            DelayqTemplate template = ctx.getBean(DelayqTemplate.class);
            JobQueue q = template.queue("orders");
            TransactionTemplate tx = new TransactionTemplate(new NoResourceTransactionManager());

            EnqueueResult inside = tx.execute(status -> {
                EnqueueResult r = template.enqueue("orders", "committed", new Order(1, "pen"), Duration.ofHours(1));
                assertThat(q.get("committed")).as("before the commit").isEmpty();
                return r;
            });
            assertThat(inside.id()).isEqualTo("committed");
            assertThat(q.get("committed")).as("after the commit").isPresent();

            EnqueueResult generated = tx.execute(status -> template.enqueue("orders", "no id given", Duration.ofHours(1)));
            assertThat(q.get(generated.id())).as("a generated id is the job's").isPresent();

            tx.executeWithoutResult(status -> {
                template.enqueue("orders", "rolled-back", new Order(2, "ink"), Duration.ofHours(1));
                status.setRollbackOnly();
            });
            assertThat(q.get("rolled-back")).as("after a rollback").isEmpty();

            assertThatThrownBy(() -> tx.executeWithoutResult(status ->
                    template.enqueue("no spaces allowed", "x", "payload", Duration.ofHours(1))))
                    .as("an invalid queue name fails the call inside the transaction")
                    .isInstanceOf(IllegalArgumentException.class);
        });
    }

    @Test
    void afterCommitOffEnqueuesAtOnceInATransaction() {
        onTestRedis().withPropertyValues("delayq.producer.after-commit=false").run(ctx -> {
            DelayqTemplate template = ctx.getBean(DelayqTemplate.class);
            JobQueue q = template.queue("orders");
            new TransactionTemplate(new NoResourceTransactionManager()).executeWithoutResult(status -> {
                template.enqueue("orders", "at-once", "payload", Duration.ofHours(1));
                assertThat(q.get("at-once")).as("inside the transaction").isPresent();
                status.setRollbackOnly();
            });
            assertThat(q.get("at-once")).as("not undone by the rollback").isPresent();
        });
    }

    @Test
    void theProducerMetersCountEnqueuedJobsAndDuplicatesByQueue() {
        onTestRedis().withBean(MeterRegistry.class, SimpleMeterRegistry::new).run(ctx -> {
            DelayqTemplate template = ctx.getBean(DelayqTemplate.class);
            template.enqueue("orders", "a", "payload", Duration.ofHours(1));
            template.enqueue("orders", "a", "payload", Duration.ofHours(1));
            template.enqueue("orders", "b", "payload", Duration.ofHours(1));
            template.enqueue("mail", "payload", Duration.ofHours(1));
            MeterRegistry meters = ctx.getBean(MeterRegistry.class);
            assertThat(meters.get("delayq.jobs.enqueued").tag("queue", "orders").counter().count()).isEqualTo(2);
            assertThat(meters.get("delayq.jobs.duplicates").tag("queue", "orders").counter().count()).isEqualTo(1);
            assertThat(meters.get("delayq.jobs.enqueued").tag("queue", "mail").counter().count()).isEqualTo(1);
            assertThat(meters.find("delayq.enqueue.errors").counters()).as("no error yet").isEmpty();
            assertThatThrownBy(() -> template.enqueue("orders", "bad id \n", "payload", Duration.ofHours(1)))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThat(meters.find("delayq.enqueue.errors").counters()).as("an invalid job is not an error of Redis")
                    .isEmpty();
            ctx.getBean(dev.delayq.DelayQ.class).queue("direct").enqueue(dev.delayq.Job.builder().id("d").build());
            assertThat(meters.get("delayq.jobs.enqueued").tag("queue", "direct").counter().count())
                    .as("counted by the client: an enqueue through the DelayQ bean too").isEqualTo(1);
            assertThat(meters.get("delayq.enqueue.latency").tag("queue", "orders").timer().count())
                    .as("one per enqueue call").isEqualTo(3);
        });
    }
}
