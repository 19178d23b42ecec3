package dev.delayq;

/**
 * The Redis server is configured in a way that can lose jobs (for example a {@code maxmemory-policy} that
 * evicts keys), and the client was not told to accept it.
 */
public class DelayQConfigurationException extends DelayQException {
    /** An error with a message. */
    public DelayQConfigurationException(String message) {
        super(message);
    }
}
