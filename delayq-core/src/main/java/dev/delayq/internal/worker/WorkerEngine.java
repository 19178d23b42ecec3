package dev.delayq.internal.worker;

import static dev.delayq.internal.base.Validation.human;

import dev.delayq.JobListener;
import dev.delayq.QueueStats;
import dev.delayq.WorkerMetrics;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wires a worker's parts (claim loop, dispatcher, acker, lease keeper, maintenance, schedule ticker, heartbeat, wake-up
 * subscription) around one {@link WorkerContext}, and runs its graceful shutdown.
 */
public final class WorkerEngine {
    private static final Logger LOG = LoggerFactory.getLogger(WorkerEngine.class);

    private final WorkerContext ctx;
    private final String queue;
    private final Supplier<QueueStats> stats;
    private final WorkerConfig config;
    private final GuardedMetrics metrics;
    private final WorkerMetrics userMetrics;
    private final Ticker ticker;
    private final InFlight inFlight;
    private final ScheduledExecutorService ackTimer;
    private final HandlerPool ownExecutor;
    private final ClaimLoop claimLoop;
    private final LeaseKeeper leaseKeeper;
    private final Maintenance maintenance;
    private final NoticeRelay notices;
    private final ScheduleTicker schedules;
    private final Heartbeat heartbeat;
    private final Acker acker;
    private final HandBack handBack;
    private final Thread loopThread;
    private final Signal progress;
    private final List<AutoCloseable> subscriptions = new ArrayList<>();

    private final Callbacks callbacks;
    private final Deadlines deadlines;

    /**
     * A worker of the queue {@code queue}, whose partitions are {@code parts} (the queue itself when it has none);
     * {@code stats} reads the queue's counts for the worker's meters.
     */
    public WorkerEngine(String queue, Supplier<QueueStats> stats, List<WorkerPartition> parts, Routes routes,
                        Executor executor, WorkerConfig config, WorkerMetrics metrics, JobListener listener) {
        this(queue, stats, parts, routes, executor, config, metrics, listener, Ticker.SYSTEM);
    }

    WorkerEngine(String queue, Supplier<QueueStats> stats, List<WorkerPartition> parts, Routes routes, Executor executor,
                 WorkerConfig config, WorkerMetrics metrics, JobListener listener, Ticker ticker) {
        this.callbacks = new Callbacks(config.name(), queue);
        this.userMetrics = metrics;
        this.metrics = callbacks.metrics(metrics);
        this.deadlines = new Deadlines(config.name());
        this.queue = queue;
        this.stats = stats;
        this.config = config;
        this.ticker = ticker;
        this.inFlight = new InFlight();
        this.progress = new Signal(ticker);
        ServerClock[] clocks = new ServerClock[parts.size()];
        for (int p = 0; p < clocks.length; p++) {
            clocks[p] = new ServerClock(ticker); // partitions may live on different servers, with different clocks
        }
        this.ctx = new WorkerContext(queue, config, ticker, List.copyOf(parts), clocks, inFlight,
                new ClaimGate(config.concurrency()), progress, this.metrics, callbacks.listener(listener), callbacks);
        this.ackTimer = new ScheduledThreadPoolExecutor(1, threads(config.name() + "-acks", true));
        // Up to one thread per slot (a burst of fast jobs runs on fewer: see HandlerPool); a handler that ignored its
        // timeout's interrupt keeps its thread, and the job taking its slot gets a new one (the slots, not the pool,
        // bound how many handlers the worker runs).
        this.ownExecutor = executor == null ? new HandlerPool(config.concurrency(), 60, TimeUnit.SECONDS,
                threads(config.name() + "-handler", false), ticker) : null;
        this.acker = new Acker(ctx, ackTimer::schedule);
        this.handBack = new HandBack(ctx);
        Dispatcher dispatcher = new Dispatcher(ctx, routes, executor != null ? executor : ownExecutor, acker, handBack,
                deadlines);
        this.claimLoop = new ClaimLoop(ctx, dispatcher::dispatch);
        this.leaseKeeper = new LeaseKeeper(ctx);
        this.maintenance = new Maintenance(ctx.parts(), config.purgeInterval(), this.metrics, config.name());
        this.notices = new NoticeRelay(ctx.parts(), config.purgeInterval(), this.metrics, config.name());
        this.schedules = new ScheduleTicker(ctx);
        this.heartbeat = new Heartbeat(ctx, Heartbeat.localHost());
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
        metrics.bind(queue, inFlight::size, stats);
        for (int i = 0; i < ctx.parts().size(); i++) {
            int p = i; // the partition's place in the list, as the claim schedule counts them
            subscriptions.add(ctx.part(p).subscribeWakeUps(new WorkerPartition.WakeUps() {
                @Override
                public void onHead(long headMillis) {
                    claimLoop.onHead(p, headMillis);
                }

                @Override
                public void onReconnect() {
                    claimLoop.onReconnect();
                    notices.trigger(); // a wake-up notice of the outbox may have been missed too
                }

                @Override
                public void onNotices() {
                    notices.trigger();
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
        notices.start();
        claimLoop.start(loopThread);
        heartbeat.start();
        LOG.info("worker {} started on queue {} (concurrency {}, batch {}, lease {}{})", config.name(), queue,
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
        notices.stop();
        schedules.stop();
        subscriptions.forEach(WorkerEngine::closeQuietly);
        waitThroughInterrupts(claimLoop::joinUntil, ticker.nanos() + Nanos.of(config.lease()) + TimeUnit.SECONDS.toNanos(10),
                interrupted);
        handBackNotStarted();
        acker.drain();
        waitThroughInterrupts(d -> progress.awaitUntil(() -> running() == 0, d),
                ticker.nanos() + Nanos.of(config.shutdownGrace()), interrupted);
        List<Running> unfinished = new ArrayList<>();
        for (Running r : inFlight.all()) {
            // A job whose handler has returned (acking) is not handed back: its outcome is on its way to Redis.
            if (!r.finished && !r.released && !r.acking) {
                unfinished.add(r);
            }
        }
        if (!unfinished.isEmpty()) {
            LOG.warn("worker {}: {} job(s) of queue {} still running after the {} grace period: handing them back",
                    config.name(), unfinished.size(), queue, human(config.shutdownGrace()));
            handBack.all(unfinished);
            unfinished.forEach(Running::interrupt);
        }
        deadlines.stop();
        if (!waitThroughInterrupts(d -> progress.awaitUntil(acker::idle, d), ticker.nanos() + TimeUnit.SECONDS.toNanos(10),
                interrupted)) {
            LOG.warn("worker {}: some outcomes of queue {} were not acknowledged by Redis before shutdown; those jobs "
                    + "return when their leases expire", config.name(), queue);
        }
        leaseKeeper.stop();
        ackTimer.shutdownNow();
        if (ownExecutor != null) {
            ownExecutor.shutdownNow();
        }
        heartbeat.close(); // last: a worker draining its jobs still shows, with the jobs it runs
        metrics.unbind(queue);
        LOG.info("worker {} stopped on queue {}", config.name(), queue);
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
        handBack.all(waiting);
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
