package dev.delayq;

import dev.delayq.internal.base.Validation;
import java.time.Duration;

/**
 * Thrown by a handler to fail this attempt and retry after exactly {@link #delay()} (instead of the
 * policy's backoff), for example when a downstream service says when to come back. The attempt counts.
 */
public class RetryLaterException extends RuntimeException {
    private final Duration delay;

    /**
     * @param delay   how long to wait before the next attempt (zero or positive)
     * @param message becomes the job's error summary
     */
    public RetryLaterException(Duration delay, String message) {
        super(message);
        this.delay = Validation.delay("retry delay", delay);
    }

    /** The requested delay. */
    public Duration delay() {
        return delay;
    }
}
