package dev.delayq;

/**
 * Base of every runtime error delayq raises (input errors are {@link IllegalArgumentException}s).
 * A failed operation never leaves a job half-moved: every state change is one atomic Redis script.
 */
public class DelayQException extends RuntimeException {
    /** An error with a message. */
    public DelayQException(String message) {
        super(message);
    }

    /** An error with a message and its cause. */
    public DelayQException(String message, Throwable cause) {
        super(message, cause);
    }
}
