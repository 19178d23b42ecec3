package dev.delayq.internal.worker;

import dev.delayq.WorkerMetrics;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ticks the queue's recurring schedules: sleeps until the earliest pending tick is due (Redis's clock, as read with the
 * schedules), then advances every due schedule ({@link WorkerPartition#tickSchedules()}: the next tick enqueued ahead,
 * in the same script as the advance). Every worker of a queue runs one; they race harmlessly, since each advance is a
 * compare-and-set and the loser just reads the new state. A schedule added, changed or removed is announced on the
 * schedules channel, which wakes the ticker at once; otherwise it looks again at the latest after {@link #POLL_MS}
 * (a lost notice costs at most that). Ticks go on while the queue is paused: their jobs wait like any other.
 *
 * <p>It runs on its own thread, on the worker's connection: a pass is one small read and, when a tick is due, one small
 * script (a sibling connection, as maintenance uses, would still be connecting at the worker's start on a cluster, and
 * buys nothing for calls this small and this rare). A failed pass is logged once per outage and retried with backoff.
 */
final class ScheduleTicker {
    private static final Logger LOG = LoggerFactory.getLogger(ScheduleTicker.class);
    /** The longest sleep without a notice. */
    static final long POLL_MS = 30_000;
    /** Up to this much is added to a wake-up, so a fleet's tickers do not all race on the same millisecond. */
    private static final long JITTER_MS = 20;

    private final List<WorkerPartition> parts;
    private final Ticker ticker;
    private final WorkerMetrics metrics;
    private final String worker;
    private final OutageLog outage;
    private final Object monitor = new Object();
    private final List<AutoCloseable> subscriptions = new ArrayList<>();
    private boolean woken;
    private volatile boolean stopping;
    private Thread thread;

    ScheduleTicker(WorkerContext ctx) {
        this.parts = ctx.parts();
        this.ticker = ctx.ticker();
        this.metrics = ctx.metrics();
        this.worker = ctx.worker();
        this.outage = new OutageLog(LOG, "worker " + worker + " schedule ticker", ticker);
    }

    void start() {
        try {
            subscribe();
        } catch (RuntimeException e) {
            stop();
            throw e;
        }
        thread = new Thread(this::loop, worker + "-schedules");
        thread.setDaemon(true);
        thread.start();
    }

    private void subscribe() {
        for (WorkerPartition part : parts) {
            subscriptions.add(part.subscribeScheduleChanges(this::wake)); // and on reconnection: notices may be lost
        }
    }

    /** Stops at once (a pass under way is interrupted; whatever it wrote is whole, each write being one script). */
    void stop() {
        stopping = true;
        for (AutoCloseable s : List.copyOf(subscriptions)) {
            try {
                s.close();
            } catch (Exception e) {
                LOG.debug("closing the schedules subscription failed", e);
            }
        }
        if (thread != null) {
            thread.interrupt();
        }
    }

    void wake() {
        synchronized (monitor) {
            woken = true;
            monitor.notifyAll();
        }
    }

    private void loop() {
        while (!stopping) {
            long sleep = POLL_MS;
            try {
                synchronized (monitor) {
                    woken = false;
                }
                for (WorkerPartition part : parts) {
                    sleep = Math.min(sleep, part.tickSchedules());
                }
                outage.success();
            } catch (Throwable e) {
                if (stopping) {
                    return; // interrupted by shutdown: not an error
                }
                metrics.redisError(parts.get(0).queue(), "schedule");
                sleep = outage.failure(e);
            }
            sleep(sleep + ThreadLocalRandom.current().nextLong(JITTER_MS + 1));
        }
    }

    private void sleep(long millis) {
        long until = ticker.nanos() + millis * 1_000_000L;
        synchronized (monitor) {
            while (!woken && !stopping) {
                long left = until - ticker.nanos();
                if (left <= 0) {
                    return;
                }
                try {
                    monitor.wait(Math.max(1, left / 1_000_000L));
                } catch (InterruptedException e) {
                    return; // stop() interrupts; the loop sees stopping
                }
            }
        }
    }
}
