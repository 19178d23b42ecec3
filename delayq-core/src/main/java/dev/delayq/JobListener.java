package dev.delayq;

/**
 * Hears what became of each job a worker ran, once Redis has answered: an audit trail of accepted and
 * refused outcomes (the command line's {@code work --verbose} prints it). Called on Redis I/O threads:
 * it must be quick and must not block. A listener that throws is isolated: the worker catches it, logs the first
 * failure, counts every one ({@link Worker#callbackFailures()}) and goes on acknowledging.
 */
@FunctionalInterface
public interface JobListener {
    /** Hears nothing. */
    JobListener NONE = (job, outcome) -> { };

    /** What Redis recorded for one run of a job. */
    enum Outcome {
        /** The completion was accepted: the job is done. */
        COMPLETED,
        /** The failure was accepted and the job rescheduled for another attempt. */
        RETRY_SCHEDULED,
        /** The failure was accepted and the job is dead. */
        DEAD,
        /** The outcome was refused: the lease had been lost (the job was recovered and may run elsewhere). */
        REFUSED,
        /** The worker shut down before the run finished and handed the job back (due again at once). */
        HANDED_BACK
    }

    /**
     * One run's outcome.
     *
     * @param ctx     the job as its handler saw it (id, attempt, token)
     * @param outcome what Redis recorded
     */
    void onOutcome(JobContext ctx, Outcome outcome);
}
