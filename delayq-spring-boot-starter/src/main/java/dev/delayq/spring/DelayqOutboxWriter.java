package dev.delayq.spring;

import dev.delayq.EnqueueResult;
import dev.delayq.Job;

/**
 * Where {@link DelayqTemplate} writes a job enqueued inside a transaction when the transactional outbox is enabled
 * ({@code delayq.outbox.enabled=true}): a row of the outbox table, written through the transaction's own connection,
 * that the relay moves to Redis after the commit. The starter's is JDBC's ({@code DelayqOutboxAutoConfiguration}); the
 * template knows only this interface, so it loads nothing of spring-jdbc or delayq-outbox.
 */
@FunctionalInterface
public interface DelayqOutboxWriter {
    /**
     * Writes {@code job} for {@code queue} into the outbox in the calling thread's transaction, when there is one on
     * the outbox's database.
     *
     * @return the job's id reported created, or {@code null} when the calling thread has no such transaction (the
     *         template then enqueues as it does without an outbox)
     * @throws IllegalArgumentException when the queue name or the job is invalid
     */
    EnqueueResult writeInTransaction(String queue, Job job);

    /**
     * Whether the calling thread has a transaction this writer writes in ({@link #writeInTransaction} then writes),
     * asked first so that only a write is observed as one. By default true: the write decides.
     */
    default boolean inTransaction() {
        return true;
    }
}
