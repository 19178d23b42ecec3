package dev.delayq;

import java.time.Instant;

/** The job a handler runs, and the state of its lease. */
public interface JobContext {
    /** The queue's name. */
    String queue();

    /** The job id. */
    String id();

    /** The payload bytes (the handler's own copy). */
    byte[] payload();

    /** The payload decoded as UTF-8. */
    String payloadUtf8();

    /** This attempt's number, from 1. */
    int attempt();

    /** Attempts allowed in all. */
    int maxAttempts();

    /** When the job became due (Redis clock). */
    Instant dueAt();

    /** The fencing token of this attempt's lease (monotonic per queue). */
    long token();

    /** The previous attempt's error summary, or {@code null}. */
    String lastError();

    /**
     * {@code true} once the lease is lost: a renewal was refused (the job was recovered and may run
     * elsewhere), the worker handed the job back at shutdown, or renewals failed until the lease expired.
     * A handler that sees it should stop; its completion will be refused.
     */
    boolean leaseLost();

    /**
     * Throws when {@link #leaseLost()}; call it at safe points of long work.
     *
     * @throws LeaseLostException when the lease is lost
     */
    default void ensureLease() {
        if (leaseLost()) {
            throw new LeaseLostException(id(), token());
        }
    }
}
