package dev.delayq.outbox.internal;

import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay's background loop: a round, and while rounds find rows, another at once; when idle, a wait on the
 * {@link Waker} (a writer's or the database's wake-up, else the poll interval). After a writer's wake-up it looks again
 * after 5, 10, 20, 40, then every 50 ms for a second, since that wake-up comes before the writer's commit. The loop never dies: a
 * failed round (the database or Redis unreachable) is logged, counted and retried after a growing pause (up to the
 * poll interval, at least 1 s), its rows left in the outbox.
 */
public final class RelayLoop implements Runnable {
    /** A round of the relay: the rows it took off the outbox. */
    @FunctionalInterface
    public interface Round {
        int run() throws Exception;
    }

    private static final Logger LOG = LoggerFactory.getLogger(RelayLoop.class);
    private static final long FIRST_RECHECK_NANOS = 5_000_000L;
    /** At most 50 ms between looks while a writer's commit is awaited: the commit is then in Redis within ~50 ms. */
    private static final long MAX_RECHECK_NANOS = 50_000_000L;

    private final Round round;
    private final Waker waker;
    private final long pollNanos;
    private final String name;

    public RelayLoop(Round round, Waker waker, Duration pollInterval, String name) {
        this.round = round;
        this.waker = waker;
        this.pollNanos = pollInterval.toNanos();
        this.name = name;
    }

    @Override
    public void run() {
        long recheck = FIRST_RECHECK_NANOS;
        int failures = 0;
        while (!waker.closed()) {
            try {
                int n = round.run();
                if (failures > 0) {
                    LOG.info("outbox relay {}: relaying again after {} failed round(s)", name, failures);
                    failures = 0;
                }
                if (n > 0) {
                    recheck = FIRST_RECHECK_NANOS;
                    continue;
                }
                boolean expecting = waker.expecting();
                if (waker.await(expecting ? recheck : pollNanos)) {
                    recheck = FIRST_RECHECK_NANOS;
                } else if (expecting) {
                    recheck = Math.min(recheck * 2, MAX_RECHECK_NANOS);
                }
            } catch (InterruptedException e) {
                if (!waker.closed()) {
                    LOG.warn("outbox relay {}: interrupted, stopping", name);
                }
                Thread.currentThread().interrupt();
                return;
            } catch (Throwable t) {
                failures++;
                if (failures == 1 || failures % 50 == 0) {
                    LOG.warn("outbox relay {}: round failed (failure {} in a row), rows stay in the outbox and are retried: {}",
                            name, failures, t.toString());
                }
                try {
                    long cap = Math.max(pollNanos, 1_000_000_000L);
                    waker.pause(Math.min(cap, 50_000_000L << Math.min(failures, 10)));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }
}
