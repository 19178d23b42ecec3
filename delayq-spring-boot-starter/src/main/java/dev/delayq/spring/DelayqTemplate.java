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
 * <p>Thread-safe. For everything else (list, stats, retry dead jobs), {@link #queue(String)} gives the queue.
 */
public class DelayqTemplate {
    private final DelayQ delayQ;
    private final DelayqPayloadConverter converter;

    /** A template on {@code delayQ}, writing payloads with {@code converter}. */
    public DelayqTemplate(DelayQ delayQ, DelayqPayloadConverter converter) {
        if (delayQ == null || converter == null) {
            throw new IllegalArgumentException("delayQ and converter must not be null");
        }
        this.delayQ = delayQ;
        this.converter = converter;
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
     * Enqueues {@code job} as it is (its payload already bytes: see {@link #payload(Object)}).
     *
     * @return created or duplicate
     */
    public EnqueueResult enqueue(String queue, Job job) {
        return delayQ.queue(queue).enqueue(job);
    }

    /** Deletes the scheduled job {@code id} of {@code queue}; refused for a job running or finished. */
    public ChangeResult cancel(String queue, String id) {
        return delayQ.queue(queue).cancel(id);
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
        return delayQ.queue(name);
    }

    /** The client underneath. */
    public DelayQ delayQ() {
        return delayQ;
    }
}
