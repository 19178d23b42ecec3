package dev.delayq;

/**
 * Redis did not answer within the command timeout. The operation may or may not have been applied (it
 * is atomic either way); an enqueue retried with the same job id creates the job at most once.
 */
public class DelayQTimeoutException extends DelayQException {
    /** An error with a message and its cause. */
    public DelayQTimeoutException(String message, Throwable cause) {
        super(message, cause);
    }
}
