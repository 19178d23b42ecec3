package dev.delayq.spring;

import dev.delayq.DelayQ;
import dev.delayq.DelayQConnectionException;
import dev.delayq.DelayQTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;

/**
 * The application's {@link DelayQ}, once connected: the starter's template, workers and health contributor reach
 * Redis through it. By default it connects when created, and an unreachable Redis fails the application's start.
 * With {@code delayq.require-redis-at-startup=false} the application starts anyway: {@link #get()} throws until a
 * connection attempt (one every {@code delayq.reconnect-delay}, on a thread of its own) succeeds, the health
 * contributor is DOWN with the last error, and the workers start when the connection is made. Once connected, the
 * client follows outages by itself (Lettuce reconnects).
 */
public class DelayqClient implements DisposableBean {
    private static final Logger LOG = LoggerFactory.getLogger(DelayqClient.class);
    /** How often a still failing start-up connection is logged at WARN (every attempt is logged at DEBUG). */
    private static final Duration WARN_EVERY = Duration.ofMinutes(1);

    private final Supplier<DelayQ> connect;
    private final boolean owned;
    private final Duration retryDelay;
    private final List<Consumer<DelayQ>> onConnect = new ArrayList<>();
    private volatile DelayQ delayQ;
    private volatile RuntimeException lastError;
    private Thread connector;
    private boolean closed;

    private DelayqClient(Supplier<DelayQ> connect, boolean owned, Duration retryDelay) {
        this.connect = connect;
        this.owned = owned;
        this.retryDelay = retryDelay;
    }

    /** The application's own, already connected {@code delayQ} (not closed by this client: its bean closes it). */
    public static DelayqClient of(DelayQ delayQ) {
        if (delayQ == null) {
            throw new IllegalArgumentException("delayQ must not be null");
        }
        DelayqClient c = new DelayqClient(() -> delayQ, false, Duration.ofSeconds(1));
        c.delayQ = delayQ;
        return c;
    }

    /**
     * A client that connects with {@code connect} now. When that fails with a connection error (Redis unreachable
     * or not answering) and {@code required} is false, it tries again every {@code retryDelay} (plus up to a tenth,
     * so a fleet does not reconnect at once) until it connects or is closed.
     *
     * @throws DelayQConnectionException when {@code required} and Redis cannot be reached
     * @throws IllegalArgumentException  naming an invalid setting (never retried)
     */
    public static DelayqClient connect(Supplier<DelayQ> connect, boolean required, Duration retryDelay) {
        if (retryDelay == null || retryDelay.isNegative() || retryDelay.isZero()) {
            throw new IllegalArgumentException("delayq.reconnect-delay is " + retryDelay + ": it must be positive");
        }
        DelayqClient c = new DelayqClient(connect, true, retryDelay);
        try {
            c.delayQ = connect.get();
        } catch (DelayQConnectionException | DelayQTimeoutException e) {
            if (required) {
                throw e;
            }
            c.lastError = e;
            LOG.warn("delayq: Redis cannot be reached ({}); the application starts without it (health DOWN), "
                    + "trying again every {}", e.getMessage(), retryDelay);
            c.startConnector();
        }
        return c;
    }

    /** Whether the client is connected (it may still be in a Redis outage that Lettuce is riding out). */
    public boolean connected() {
        return delayQ != null;
    }

    /**
     * The client.
     *
     * @throws DelayQConnectionException while the start-up connection has not been made yet, with its last error
     */
    public DelayQ get() {
        DelayQ d = delayQ;
        if (d == null) {
            RuntimeException last = lastError;
            throw new DelayQConnectionException("delayq is not connected to Redis yet (delayq.require-redis-at-startup="
                    + "false; trying every " + retryDelay + ")" + (last == null ? "" : ": " + last.getMessage()), last);
        }
        return d;
    }

    /** The error of the last failed start-up connection attempt, or null. */
    public RuntimeException lastError() {
        return delayQ == null ? lastError : null;
    }

    /** Runs {@code action} with the client: now when connected, else on the connecting thread once it connects. */
    void whenConnected(Consumer<DelayQ> action) {
        synchronized (this) {
            if (delayQ == null) {
                onConnect.add(action);
                return;
            }
        }
        action.accept(delayQ);
    }

    private synchronized void startConnector() {
        connector = new Thread(this::connectLoop, "delayq-connect");
        connector.setDaemon(true);
        connector.start();
    }

    /** Never dies before it connects or is closed: every failure is kept for health and logged, then retried. */
    private void connectLoop() {
        long lastWarn = System.nanoTime();
        int attempts = 1;
        while (waitBeforeAttempt()) {
            attempts++;
            DelayQ d;
            try {
                d = connect.get();
            } catch (Throwable t) {
                lastError = t instanceof RuntimeException r ? r : new IllegalStateException(t.toString(), t);
                if (System.nanoTime() - lastWarn > WARN_EVERY.toNanos()) {
                    lastWarn = System.nanoTime();
                    LOG.warn("delayq: Redis still cannot be reached after {} attempts: {}", attempts, t.getMessage());
                } else {
                    LOG.debug("delayq: connection attempt {} failed: {}", attempts, t.getMessage());
                }
                continue;
            }
            List<Consumer<DelayQ>> actions;
            synchronized (this) {
                if (closed) {
                    d.close();
                    return;
                }
                delayQ = d;
                lastError = null;
                actions = List.copyOf(onConnect);
                onConnect.clear();
            }
            LOG.info("delayq: connected to {} after {} attempts", d.server(), attempts);
            for (Consumer<DelayQ> a : actions) {
                try {
                    a.accept(d);
                } catch (RuntimeException e) {
                    LOG.error("delayq: starting after the connection was made failed", e);
                }
            }
            return;
        }
    }

    /** Waits the retry delay (woken by {@link #destroy()}); false when closed. */
    private synchronized boolean waitBeforeAttempt() {
        long jitter = ThreadLocalRandom.current().nextLong(retryDelay.toNanos() / 10 + 1);
        long deadline = System.nanoTime() + retryDelay.toNanos() + jitter;
        try {
            for (long left = deadline - System.nanoTime(); !closed && left > 0; left = deadline - System.nanoTime()) {
                wait(Math.max(1, left / 1_000_000));
            }
        } catch (InterruptedException e) {
            return false;
        }
        return !closed;
    }

    /** Stops connecting and closes the client it opened (the workers using it are closed before). */
    @Override
    public void destroy() {
        DelayQ d;
        synchronized (this) {
            closed = true;
            onConnect.clear();
            notifyAll();
            d = delayQ;
        }
        if (connector != null) {
            connector.interrupt();
        }
        if (owned && d != null) {
            d.close();
        }
    }
}
