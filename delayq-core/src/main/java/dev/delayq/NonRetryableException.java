package dev.delayq;

/** Thrown by a handler to send the job straight to dead (no further attempts), keeping the message as its error. */
public class NonRetryableException extends RuntimeException {
    /** With a message that becomes the job's error summary. */
    public NonRetryableException(String message) {
        super(message);
    }

    /** With a message and a cause. */
    public NonRetryableException(String message, Throwable cause) {
        super(message, cause);
    }
}
