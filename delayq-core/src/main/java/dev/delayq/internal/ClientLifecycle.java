package dev.delayq.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a client must close before its connections: the workers built on its queues. A worker registers when it
 * starts and leaves when it closes; closing the client closes the ones still running, gracefully, newest first.
 */
public final class ClientLifecycle {
    private static final Logger LOG = LoggerFactory.getLogger(ClientLifecycle.class);

    private final List<AutoCloseable> running = new CopyOnWriteArrayList<>();

    /** A started worker. */
    public void register(AutoCloseable worker) {
        running.add(worker);
    }

    /** A closed worker. */
    public void unregister(AutoCloseable worker) {
        running.remove(worker);
    }

    /** Closes every registered worker (each closes gracefully: running jobs finish or are handed back). */
    public void closeAll() {
        List<AutoCloseable> all = new ArrayList<>(running);
        for (int i = all.size() - 1; i >= 0; i--) {
            try {
                all.get(i).close();
            } catch (Exception e) {
                LOG.warn("closing {} with its client failed: {}", all.get(i), e.toString());
            }
        }
        running.clear();
    }
}
