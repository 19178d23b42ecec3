package dev.delayq.cli;

import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * The handler threads of {@code work --max-jobs N}: a run starts only while fewer than N runs have finished.
 * A job leased after that keeps its slot without starting (so the worker claims no more) and is handed back,
 * not started, when the worker closes. Without this, a job leased just as the Nth run finished could start while
 * the closing worker hands it back: its command would run, and the job would run again later.
 */
final class LimitedExecutor implements Executor {
    private final ExecutorService pool;
    private final LongSupplier finished;
    private final long limit;

    /**
     * @param threads  handler threads (the worker's concurrency)
     * @param finished how many runs have finished so far
     * @param limit    runs after which none starts
     */
    LimitedExecutor(int threads, LongSupplier finished, long limit) {
        AtomicInteger n = new AtomicInteger();
        this.pool = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "delayq-work-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        this.finished = finished;
        this.limit = limit;
    }

    @Override
    public void execute(Runnable run) {
        pool.execute(() -> {
            if (finished.getAsLong() < limit) {
                run.run();
            }
            // Otherwise the job is not started: it stays leased, holding its slot, until the worker hands it back.
        });
    }

    /** Stops the threads (after the worker was closed). */
    void shutdown() {
        pool.shutdownNow();
    }
}
