package dev.delayq;

/**
 * Redis could not be reached, refused the connection or the credentials, or the connection was closed.
 * The operation was not applied, or was applied whole (scripts are atomic); retrying it is safe for every
 * operation that takes a job id or a fencing token.
 */
public class DelayQConnectionException extends DelayQException {
    /** An error with a message and its cause. */
    public DelayQConnectionException(String message, Throwable cause) {
        super(message, cause);
    }
}
