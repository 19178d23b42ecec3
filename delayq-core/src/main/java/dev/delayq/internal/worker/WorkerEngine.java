package dev.delayq.internal.worker;

import static dev.delayq.internal.base.Validation.human;

import dev.delayq.Ack;
import dev.delayq.JobListener;
import dev.delayq.JobQueue;
import dev.delayq.Lease;
import dev.delayq.WorkerMetrics;
import dev.delayq.internal.redis.RedisBackend;
import dev.delayq.internal.queue.Partition;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wires a worker's parts (claim loop, dispatcher, acker, lease keeper, maintenance, wake-up subscription)
 * and runs its graceful shutdown.
 */
public final class WorkerEngine {
    private static final Logger LOG = LoggerFactory.getLogger(WorkerEngine.class);

    private final JobQueue queue;
    private final List<Partition> parts;
    private final WorkerConfig config;
    private final GuardedMetrics metrics;
    private final WorkerMetrics userMetrics;
    private final Semaphore slots;
    private final ServerClock[] clocks;
    private final InFlight inFlight = new InFlight();
    private final ScheduledExecutorService ackTimer;
    private final HandlerPool ownExecutor;
    private final ClaimLoop claimLoop;
    private final LeaseKeeper leaseKeeper;
    private final Maintenance maintenance;
    private final ScheduleTicker schedules;
    private final Acker acker;
    private final Thread loopThread;
    private final Signal progress = new Signal();
    private final List<AutoCloseable> subscriptions = new ArrayList<>();

    private final JobListener listener;
    private final Callbacks callbacks;
    private final Deadlines deadlines;

    /**
     * A worker of {@code queue}, whose partitions are {@code parts} (the queue itself when it has none).
     */
    public WorkerEngine(JobQueue queue, List<Partition> parts, Routes routes, Executor executor, WorkerConfig config,
                        WorkerMetrics metrics, JobListener listener) {
        this.callbacks = new Callbacks(config.name(), queue.name());
        this.userMetrics = metrics;
        this.metrics = callbacks.metrics(metrics);
        this.listener = callbacks.listener(listener);
        this.deadlines = new Deadlines(config.name());
        this.queue = queue;
        this.parts = parts;
        this.clocks = new ServerClock[parts.size()];
        for (int p = 0; p < clocks.length; p++) {
            clocks[p] = new ServerClock(); // partitions may live on different servers, with different clocks
        }
        this.config = config;
        this.slots = new Semaphore(config.concurrency());
        this.ackTimer = new ScheduledThreadPoolExecutor(1, threads(config.name() + "-acks", true));
        // Up to one thread per slot (a burst of fast jobs runs on fewer: see HandlerPool); a handler that ignored its
        // timeout's interrupt keeps its thread, and the job taking its slot gets a new one (the slots, not the pool,
        // bound how many handlers the worker runs).
        this.ownExecutor = executor == null ? new HandlerPool(config.concurrency(), 60, TimeUnit.SECONDS,
                threads(config.name() + "-handler", false)) : null;
        this.acker = new Acker(queue, parts, inFlight, ackTimer, this.metrics, config.retryPolicy().maxAttempts(), config.name(),
                config.ackLinger(), this.listener, progress::signal);
        ClaimLoop[] loop = new ClaimLoop[1];
        Dispatcher dispatcher = new Dispatcher(queue.name(), routes, executor != null ? executor : ownExecutor, slots, clocks,
                inFlight, acker, config, this.metrics, () -> {
                    loop[0].slotFreed();
                    progress.signal();
                }, this::handBack, callbacks, deadlines, (lease, text) -> parts.get(lease.partition()).progressAsync(lease, text));
        this.claimLoop = new ClaimLoop(parts, queue.name(), config, slots, clocks, dispatcher::dispatch, this.metrics);
        loop[0] = claimLoop;
        this.leaseKeeper = new LeaseKeeper(queue, inFlight, clocks, config.lease(), this.metrics, config.name());
        this.maintenance = new Maintenance(parts, config.purgeInterval(), this.metrics, config.name());
        this.schedules = new ScheduleTicker(parts, this.metrics, config.name());
        this.loopThread = threads(config.name() + "-claim", false).newThread(claimLoop);
    }

    /** User callbacks (listener, metrics, executor) that threw and were isolated. */
    public long callbackFailures() {
        return callbacks.failures();
    }

    private static ThreadFactory threads(String name, boolean daemon) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, name + "-" + n.incrementAndGet());
            t.setDaemon(daemon);
            return t;
        };
    }

    /** Subscribes to wake-up notices, then starts claiming, renewing and purging. */
    public void start() {
        callbacks.useWorkerView(metrics, userMetrics, config.name());
        metrics.bind(queue.name(), inFlight::size, queue.inspector()::stats);
        for (Partition part : parts) {
            int p = part.partition();
            subscriptions.add(part.backend().subscribe(part.keys().wakeChannel(), new RedisBackend.Subscriber() {
                @Override
                public void onMessage(byte[] message) {
                    try {
                        claimLoop.onHead(p, Long.parseLong(new String(message, StandardCharsets.US_ASCII)));
                    } catch (NumberFormatException e) {
                        claimLoop.onReconnect();
                    }
                }

                @Override
                public void onReconnect() {
                    claimLoop.onReconnect();
                }
            }));
        }
        try {
            schedules.start(); // subscribes to the schedules channel: refused like the wake channel, before anything runs
        } catch (RuntimeException e) {
            subscriptions.forEach(WorkerEngine::closeQuietly);
            subscriptions.clear();
            throw e;
        }
        if (ownExecutor != null) {
            ownExecutor.prestart(); // not during the first burst of jobs
        }
        leaseKeeper.start();
        maintenance.start();
        claimLoop.start(loopThread);
        LOG.info("worker {} started on queue {} (concurrency {}, batch {}, lease {}{})", config.name(), queue.name(),
                config.concurrency(), config.batch(), human(config.lease()),
                config.jobTimeout().isZero() ? "" : ", job timeout " + human(config.jobTimeout()));
    }

    /** Jobs leased and not yet acknowledged. */
    public int inFlight() {
        return inFlight.size();
    }

    /**
     * Stops claiming; lets running handlers finish within the grace period; hands back (due again at once,
     * attempt not counted) jobs whose handlers are still running then, or that were leased ahead and not
     * started; waits for acknowledgements; stops the background tasks.
     */
    public void close() {
        // Close always releases everything, whatever thread calls it: an interrupt (a pending one, or one that comes
        // while it waits) does not cut it short, and is restored on the way out. (An interrupted close used to return at
        // its first wait: running jobs stayed leased by a worker that was gone, and its non-daemon handler threads kept
        // the JVM from exiting.)
        boolean interrupted = Thread.interrupted();
        try {
            interrupted |= shutDown();
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** A wait that may be interrupted. */
    private interface Wait {
        boolean until(long deadlineNanos) throws InterruptedException;
    }

    /** Waits until {@code w} holds or the deadline passes, through interrupts; returns whether it holds. */
    private static boolean waitThroughInterrupts(Wait w, long deadlineNanos, boolean[] interrupted) {
        while (true) {
            try {
                return w.until(deadlineNanos);
            } catch (InterruptedException e) {
                interrupted[0] = true;
            }
        }
    }

    /** {@link #close()}'s steps; returns whether an interrupt came meanwhile. */
    private boolean shutDown() {
        boolean[] interrupted = {false};
        claimLoop.stop();
        maintenance.stop();
        schedules.stop();
        subscriptions.forEach(WorkerEngine::closeQuietly);
        waitThroughInterrupts(claimLoop::joinUntil, System.nanoTime() + Nanos.of(config.lease()) + TimeUnit.SECONDS.toNanos(10),
                interrupted);
        handBackNotStarted();
        acker.drain();
        waitThroughInterrupts(d -> progress.awaitUntil(() -> running() == 0, d),
                System.nanoTime() + Nanos.of(config.shutdownGrace()), interrupted);
        List<Running> unfinished = new ArrayList<>();
        for (Running r : inFlight.all()) {
            // A job whose handler has returned (acking) is not handed back: its outcome is on its way to Redis.
            if (!r.finished && !r.released && !r.acking) {
                unfinished.add(r);
            }
        }
        if (!unfinished.isEmpty()) {
            LOG.warn("worker {}: {} job(s) of queue {} still running after the {} grace period: handing them back",
                    config.name(), unfinished.size(), queue.name(), human(config.shutdownGrace()));
            handBack(unfinished);
            unfinished.forEach(Running::interrupt);
        }
        deadlines.stop();
        if (!waitThroughInterrupts(d -> progress.awaitUntil(acker::idle, d), System.nanoTime() + TimeUnit.SECONDS.toNanos(10),
                interrupted)) {
            LOG.warn("worker {}: some outcomes of queue {} were not acknowledged by Redis before shutdown; those jobs "
                    + "return when their leases expire", config.name(), queue.name());
        }
        leaseKeeper.stop();
        ackTimer.shutdownNow();
        if (ownExecutor != null) {
            ownExecutor.shutdownNow();
        }
        metrics.unbind(queue.name());
        LOG.info("worker {} stopped on queue {}", config.name(), queue.name());
        return interrupted[0];
    }

    private long running() {
        return inFlight.all().stream().filter(r -> r.started && !r.finished && !r.released).count();
    }

    private void handBackNotStarted() {
        List<Running> waiting = new ArrayList<>();
        for (Running r : inFlight.all()) {
            if (r.tryHandBackUnstarted()) {
                waiting.add(r);
            }
        }
        handBack(waiting);
    }

    private void handBack(Running r) {
        handBack(List.of(r));
    }

    private void handBack(List<Running> jobs) {
        if (jobs.isEmpty()) {
            return;
        }
        jobs.forEach(r -> r.released = true);
        List<Lease> leases = new ArrayList<>(jobs.size());
        jobs.forEach(r -> leases.add(r.lease()));
        try {
            List<Ack> acks = queue.leases().release(leases);
            for (int i = 0; i < jobs.size(); i++) {
                if (acks.get(i) != Ack.OK) {
                    LOG.debug("worker {}: hand-back of {} refused ({})", config.name(), jobs.get(i), acks.get(i));
                } else {
                    listener.onOutcome(jobs.get(i), JobListener.Outcome.HANDED_BACK);
                }
                inFlight.remove(jobs.get(i));
            }
        } catch (RuntimeException e) {
            LOG.warn("worker {}: could not hand back {} job(s) of queue {} ({}); they return when their leases expire",
                    config.name(), jobs.size(), queue.name(), e.getMessage());
        }
        claimLoop.wake();
    }

    private static void closeQuietly(AutoCloseable c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (Exception e) {
            LOG.debug("closing the wake-up subscription failed", e);
        }
    }
}
