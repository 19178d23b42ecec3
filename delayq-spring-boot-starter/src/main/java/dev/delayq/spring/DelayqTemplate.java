package dev.delayq.spring;

import dev.delayq.ChangeResult;
import dev.delayq.DelayQ;
import dev.delayq.EnqueueResult;
import dev.delayq.Job;
import dev.delayq.JobQueue;
import java.time.Duration;

/**
 * The producer side in a Spring application: enqueue objects (written as JSON with the application's
 * {@code ObjectMapper}; {@code String} and {@code byte[]} as they are) or ready-made {@link Job}s.
 *
 * <pre>{@code
 * template.enqueue("orders", "order-" + id + ":timeout", new OrderTimeout(id), Duration.ofMinutes(30));
 * }</pre>
 *
 * <p><b>In a transaction.</b> Called inside a Spring-managed transaction ({@code @Transactional}, a
 * {@code TransactionTemplate}), {@code enqueue} checks the job at once but enqueues it after the transaction commits,
 * and not at all when it rolls back: a job never refers to data that was rolled back, and a worker never runs it
 * before the data is visible. The result is then the job's id, reported created (whether it was a duplicate is known
 * at the commit only: {@code delayq.jobs.duplicates} counts it). An enqueue that fails after the commit throws from
 * the commit (the transaction stays committed); a crash between the commit and the enqueue loses the job.
 * {@code delayq.producer.after-commit=false} enqueues at once instead, as outside a transaction.
 *
 * <p><b>With the transactional outbox</b> ({@code delayq.outbox.enabled=true}, module {@code delayq-outbox}), an
 * enqueue inside a transaction of the application's DataSource writes the job as a row of the outbox table through the
 * transaction's own connection instead: the row commits or rolls back with the application's rows, and the relay moves
 * it to Redis after the commit, exactly once even if the process dies in between. Redis need not be reachable for it.
 * The result is the job's id, reported created. Outside a transaction it enqueues at once, as without the outbox.
 *
 * <p>Thread-safe. For everything else (list, stats, retry dead jobs), {@link #queue(String)} gives the queue.
 */
public class DelayqTemplate {
    private final DelayqClient client;
    private final DelayqPayloadConverter converter;
    private final boolean afterCommit;
    private final DelayqOutboxWriter outbox;
    private volatile DelayqObservations observations = DelayqObservations.NONE;

    /** A template on {@code delayQ}, writing payloads with {@code converter}, enqueueing after commits. */
    public DelayqTemplate(DelayQ delayQ, DelayqPayloadConverter converter) {
        this(delayQ == null ? null : DelayqClient.of(delayQ), converter, true);
    }

    /**
     * A template on {@code client}, writing payloads with {@code converter}. Its enqueues are measured by the client
     * ({@link dev.delayq.ProducerMetrics}: {@code delayq.jobs.enqueued}, ...).
     *
     * @param afterCommit whether an enqueue inside a Spring-managed transaction waits for its commit
     */
    public DelayqTemplate(DelayqClient client, DelayqPayloadConverter converter, boolean afterCommit) {
        this(client, converter, afterCommit, null);
    }

    /**
     * A template as above that writes the jobs enqueued inside a transaction through {@code outbox} (null: none).
     *
     * @param afterCommit whether an enqueue inside a Spring-managed transaction that the outbox does not take waits for
     *                    its commit
     */
    public DelayqTemplate(DelayqClient client, DelayqPayloadConverter converter, boolean afterCommit,
                          DelayqOutboxWriter outbox) {
        if (client == null || converter == null) {
            throw new IllegalArgumentException("client and converter must not be null");
        }
        this.client = client;
        this.converter = converter;
        this.afterCommit = afterCommit;
        this.outbox = outbox;
    }

    /**
     * Enqueues {@code payload} under a generated id, due after {@code delay} (on Redis's clock).
     *
     * @return created, with the generated id
     * @throws IllegalArgumentException when the queue name, payload or delay is invalid
     */
    public EnqueueResult enqueue(String queue, Object payload, Duration delay) {
        return enqueue(queue, Job.builder().payload(payload(payload)).delay(delay).build());
    }

    /**
     * Enqueues {@code payload} under the business id {@code id} (enqueueing the same id again while the job is
     * scheduled, running or retained returns a duplicate), due after {@code delay}.
     *
     * @return created or duplicate
     * @throws IllegalArgumentException when the queue name, id, payload or delay is invalid
     */
    public EnqueueResult enqueue(String queue, String id, Object payload, Duration delay) {
        return enqueue(queue, Job.builder().id(id).payload(payload(payload)).delay(delay).build());
    }

    /**
     * Enqueues {@code job} as it is (its payload already bytes: see {@link #payload(Object)}); inside a
     * Spring-managed transaction, after its commit or through the outbox (see above).
     *
     * @return created or duplicate; inside a transaction, the job's id as created
     * @throws IllegalArgumentException when the queue name or the job is invalid
     */
    public EnqueueResult enqueue(String queue, Job job) {
        if (job == null) {
            throw new IllegalArgumentException("job must not be null");
        }
        if (outbox != null && outbox.inTransaction()) {
            // Observed as an enqueue: the row carries the trace context, and the job's run continues the trace.
            EnqueueResult written = observations.enqueue(queue, job, j -> outbox.writeInTransaction(queue, j));
            if (written != null) { // null: the writer found no transaction of its database after all
                return written;
            }
        }
        JobQueue q = client.get().queue(queue); // the name is checked now, in a transaction too
        if (afterCommit && AfterCommit.Presence.AVAILABLE && AfterCommit.inTransaction()) {
            AfterCommit.register(() -> send(q, job));
            return new EnqueueResult(job.id(), true);
        }
        return send(q, job);
    }

    private EnqueueResult send(JobQueue q, Job job) {
        return observations.enqueue(q, job); // measured by the client (ProducerMetrics)
    }

    /** Observes the enqueues with {@code observations} (the auto-configuration's, when Micrometer Observation is there). */
    DelayqTemplate observedBy(DelayqObservations observations) {
        this.observations = observations == null ? DelayqObservations.NONE : observations;
        return this;
    }

    /** Deletes the scheduled job {@code id} of {@code queue}; refused for a job running or finished. */
    public ChangeResult cancel(String queue, String id) {
        return client.get().queue(queue).cancel(id);
    }

    /**
     * A job builder with {@code payload} written as the template writes payloads, for the options the other methods do
     * not take: {@code template.enqueue("reports", template.job(summary).id("summary").after("part-1", "part-2").build())}.
     *
     * @throws IllegalArgumentException when the payload is null
     */
    public Job.Builder job(Object payload) {
        return Job.builder().payload(payload(payload));
    }

    /** The payload bytes of {@code payload}, for building a {@link Job} by hand. */
    public byte[] payload(Object payload) {
        if (payload == null) {
            throw new IllegalArgumentException("payload must not be null");
        }
        return converter.write(payload);
    }

    /** The queue named {@code name}. */
    public JobQueue queue(String name) {
        return client.get().queue(name);
    }

    /**
     * The client underneath.
     *
     * @throws dev.delayq.DelayQConnectionException while Redis has not been reached yet
     *                                              ({@code delayq.require-redis-at-startup=false})
     */
    public DelayQ delayQ() {
        return client.get();
    }
}
