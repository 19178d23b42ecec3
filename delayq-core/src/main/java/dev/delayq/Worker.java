package dev.delayq;

import dev.delayq.internal.ClientLifecycle;
import dev.delayq.internal.ClientSettings;
import dev.delayq.internal.queue.Partition;
import dev.delayq.internal.queue.RedisQueue;
import dev.delayq.internal.worker.Routes;
import dev.delayq.internal.worker.QueuePartition;
import dev.delayq.internal.worker.WorkerConfig;
import dev.delayq.internal.worker.WorkerEngine;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executor;

/**
 * Runs a handler for every due job of a queue: at most {@code concurrency} at once, each on
 * exactly one worker at a time, with its lease renewed while it runs and handed back on shutdown.
 *
 * <pre>{@code
 * Worker worker = Worker.builder(dq.queue("orders"), ctx -> {
 *             cancelUnpaidOrder(ctx.payloadUtf8());      // return = complete, throw = retry with backoff
 *         })
 *         .concurrency(16)
 *         .leaseDuration(Duration.ofSeconds(30))
 *         .retryPolicy(RetryPolicy.builder().maxAttempts(8).base(Duration.ofSeconds(2)).build())
 *         .build()
 *         .start();
 * // ...
 * worker.close(); // stops claiming, lets running jobs finish, hands back the rest
 * }</pre>
 *
 * <p>Jobs are routed by name ({@link Job.Builder#name}) to a handler per name, with typed payloads:
 * <pre>{@code
 * Worker.builder(queue)
 *         .handle("email", ctx -> sendEmail(ctx.payloadUtf8()))
 *         .handle("sms", JacksonCodec.of(mapper, Sms.class), (ctx, sms) -> sendSms(sms))
 *         .build().start();
 * }</pre>
 *
 * <p>Idle workers sleep until the next due time, woken early by a notice when an enqueue makes an earlier
 * job the head of the queue; they cost Redis a claim per due time, not a poll per interval. Expired leases
 * of dead workers are recovered inside claims. Done and dead jobs past retention are purged periodically
 * by one worker per queue. Redis outages are survived with bounded backoff and logged once. Every worker also ticks
 * the queue's recurring {@link JobQueue#schedules() schedules} (one job per tick, however many workers tick; a tick's
 * job is named after its schedule, so {@code handle("nightly", ...)} runs the ticks of schedule {@code nightly}).
 *
 * <p>Logging (docs/logging.md): a failed attempt is one WARN line on {@code dev.delayq.jobs} ({@code job failed: queue=Q
 * id=ID name=N attempt=2/5 next=<due time or dead> error=...}), a lost lease one of its own; while a handler runs, its
 * thread's MDC holds {@code delayq.queue}, {@code delayq.jobId}, {@code delayq.attempt} and {@code delayq.jobName}.
 */
public final class Worker implements AutoCloseable {
    private final WorkerEngine engine;
    private final String name;
    private final String queue;
    private final boolean shutdownHook;
    private final ClientLifecycle lifecycle;
    private volatile Thread hook;
    private volatile State state = State.NEW;

    private enum State { NEW, RUNNING, CLOSED }

    private Worker(WorkerEngine engine, String name, String queue, boolean shutdownHook, ClientLifecycle lifecycle) {
        this.engine = engine;
        this.lifecycle = lifecycle;
        this.name = name;
        this.queue = queue;
        this.shutdownHook = shutdownHook;
    }

    /**
     * A builder for a worker running {@code handler} on the jobs of {@code queue}: on every job, whatever its name,
     * except the names given their own handler with {@link Builder#handle}.
     *
     * @throws IllegalArgumentException when either is null or the queue is not from {@link DelayQ#queue}
     */
    public static Builder builder(JobQueue queue, JobHandler handler) {
        return new Builder(queue).fallback(handler);
    }

    /**
     * A builder for a worker of {@code queue} that runs jobs by name: add a handler per name with
     * {@link Builder#handle}. A job whose name has no handler goes straight to dead, with error
     * {@code no handler for job name 'x' (this worker handles: email, sms)}.
     *
     * @throws IllegalArgumentException when the queue is null or not from {@link DelayQ#queue}
     */
    public static Builder builder(JobQueue queue) {
        return new Builder(queue);
    }

    /**
     * Starts claiming and running jobs.
     *
     * @return this worker
     * @throws IllegalStateException when already started
     */
    public synchronized Worker start() {
        if (state != State.NEW) {
            throw new IllegalStateException("worker " + name + " was already started");
        }
        engine.start();
        state = State.RUNNING;
        lifecycle.register(this); // DelayQ.close() closes this worker before the connections it runs on
        if (shutdownHook) {
            hook = new Thread(this::close, name + "-shutdown-hook");
            Runtime.getRuntime().addShutdownHook(hook);
        }
        return this;
    }

    /** The worker's name (logs, lock owner). */
    public String name() {
        return name;
    }

    /** The queue's name. */
    public String queue() {
        return queue;
    }

    /** Jobs leased and not yet acknowledged by Redis. */
    public int inFlight() {
        return engine.inFlight();
    }

    /**
     * User callbacks (listener, metrics, executor) that threw so far. Each was caught where it was called and the
     * worker went on; the first failure of each kind is logged with its stack trace, later ones at debug level.
     */
    public long callbackFailures() {
        return engine.callbackFailures();
    }

    /** Whether it was started and not closed. */
    public boolean isRunning() {
        return state == State.RUNNING;
    }

    /**
     * Graceful shutdown (also run by {@link DelayQ#close()} for the workers of its queues): stops claiming, lets
     * running handlers finish within the shutdown grace period, then hands back the jobs still running (due again
     * at once, attempt not counted; their handler threads are interrupted and their contexts report the lease lost),
     * waits for outstanding acknowledgements, and removes its meters. Idempotent.
     */
    @Override
    public synchronized void close() {
        if (state != State.RUNNING) {
            state = State.CLOSED;
            return;
        }
        state = State.CLOSED;
        try {
            engine.close(); // whole even from an interrupted thread (whose interrupt it keeps)
        } finally {
            lifecycle.unregister(this);
        }
        Thread h = hook;
        if (h != null && Thread.currentThread() != h) {
            try {
                Runtime.getRuntime().removeShutdownHook(h);
            } catch (IllegalStateException shuttingDown) {
                // the JVM is already exiting
            }
        }
    }

    @Override
    public String toString() {
        return "Worker[" + name + " on queue " + queue + ", " + state.name().toLowerCase(java.util.Locale.ROOT) + "]";
    }

    /** Builder of a {@link Worker}; every setting is validated by {@link #build()}. */
    public static final class Builder {
        private final JobQueue queue;
        private final List<Partition> parts;
        private final ClientSettings settings;
        private final Routes.Builder routes = new Routes.Builder();
        private int concurrency = 10;
        private int batchSize = 100;
        private Duration lease = Duration.ofSeconds(30);
        private Duration lookahead = Duration.ofMillis(50);
        private RetryPolicy retryPolicy;
        private Duration shutdownGrace = Duration.ofSeconds(10);
        private Duration maxIdleSleep = Duration.ofSeconds(60);
        private Duration purgeInterval = Duration.ofMinutes(5);
        private Duration ackLinger = Duration.ofMillis(50);
        private Duration standby = Duration.ofMillis(250);
        private Executor executor;
        private WorkerMetrics metrics = WorkerMetrics.NONE;
        private JobListener listener = JobListener.NONE;
        private boolean shutdownHook;
        private String name;
        private Duration jobTimeout = Duration.ZERO;
        private Duration heartbeat = WorkerConfig.DEFAULT_HEARTBEAT;

        private Builder(JobQueue queue) {
            RedisQueue engine = RedisQueue.of(queue);
            this.parts = engine.partitions();
            this.settings = engine.settings();
            this.queue = queue;
        }

        private Builder fallback(JobHandler handler) {
            routes.fallback(handler);
            return this;
        }

        /**
         * Runs the jobs named {@code name} with {@code handler} (instead of the default handler, if any).
         *
         * @throws IllegalArgumentException when the name is not a valid job name, already has a handler, or the
         *                                  handler is null
         */
        public Builder handle(String name, JobHandler handler) {
            routes.add(name, handler);
            return this;
        }

        /**
         * Runs the jobs named {@code name} with {@code handler}, their payload decoded by {@code codec} (e.g.
         * {@code JacksonCodec.of(mapper, Order.class)} of the optional {@code delayq-jackson} module). A payload the
         * codec cannot decode sends the job straight to dead, with the codec's message: retrying cannot fix it.
         *
         * @throws IllegalArgumentException when the name is not a valid job name, already has a handler, or the codec
         *                                  or handler is null
         */
        public <T> Builder handle(String name, PayloadCodec<T> codec, TypedHandler<T> handler) {
            routes.add(name, codec, handler);
            return this;
        }

        /** Runs the jobs named {@code name} with {@code handler}, its value (by {@code resultCodec}) their result. */
        public <R> Builder handleReturning(String name, PayloadCodec<R> resultCodec, ResultHandler<R> handler) {
            routes.addReturning(name, resultCodec, handler);
            return this;
        }

        /** Most handlers running at once (default 10, at most 10,000). */
        public Builder concurrency(int concurrency) {
            this.concurrency = concurrency;
            return this;
        }

        /** Most jobs leased per claim (default 100, at most 1,000); never more than free slots. */
        public Builder batchSize(int batchSize) {
            this.batchSize = batchSize;
            return this;
        }

        /** Lease length (default 30 s, 100 ms to 1 day); renewed every third of it while a job runs. */
        public Builder leaseDuration(Duration lease) {
            this.lease = lease;
            return this;
        }

        /**
         * Lease jobs due within this much of now, then start each exactly at its due time by Redis's clock
         * (default 50 ms; zero: lease only jobs already due). A worker then claims at most every half of it,
         * each claim leasing everything due in the window, and has the job in hand when it falls due: fewer
         * Redis calls and sub-millisecond dispatch lag for steady streams. A job leased ahead can no longer be
         * cancelled or rescheduled. Must be under half the lease.
         */
        public Builder lookahead(Duration lookahead) {
            this.lookahead = lookahead;
            return this;
        }

        /** Backoff and default max attempts (default: the client's). */
        public Builder retryPolicy(RetryPolicy policy) {
            this.retryPolicy = policy;
            return this;
        }

        /** How long {@link Worker#close()} lets running handlers finish (default 10 s). */
        public Builder shutdownGrace(Duration grace) {
            this.shutdownGrace = grace;
            return this;
        }

        /**
         * Longest sleep without claiming when nothing is due (default 60 s): a safety net in case a wake-up
         * notice is lost; the worker wakes for due times and notices regardless.
         */
        public Builder maxIdleSleep(Duration sleep) {
            this.maxIdleSleep = sleep;
            return this;
        }

        /** How often done and dead jobs past retention are purged (default 5 min; zero disables). */
        public Builder purgeInterval(Duration interval) {
            this.purgeInterval = interval;
            return this;
        }

        /**
         * How long a completion may wait so that it is acknowledged to Redis together with others (default
         * 50 ms, at most a tenth of the lease; zero: at once). It delays only the acknowledgement, never a job:
         * a steady trickle of jobs then costs Redis one complete call per period instead of one per job.
         */
        public Builder ackLinger(Duration linger) {
            this.ackLinger = linger;
            return this;
        }

        /**
         * How long an idle worker waits past a due time that another idle worker of the queue has promised
         * to claim (default 250 ms; zero: every idle worker claims at every due time). Only one worker then
         * wakes per due time; the wait is the most lag a job can get if the promising worker dies or fills up
         * without telling (it normally tells at once).
         */
        public Builder standby(Duration standby) {
            this.standby = standby;
            return this;
        }

        /**
         * Runs handlers on this executor (e.g. virtual threads) instead of the worker's own threads: up to
         * {@code concurrency} of them, a burst of fast jobs running on the few it keeps busy, a slow job on a thread of its
         * own at once. The worker hands it one task per job.
         */
        public Builder executor(Executor executor) {
            this.executor = executor;
            return this;
        }

        /**
         * Where measurements go (default: nowhere), e.g. {@code new MicrometerMetrics(registry)}; one instance may serve
         * several workers. A sink that throws is isolated: the worker logs it once and counts it
         * ({@link Worker#callbackFailures()}).
         */
        public Builder metrics(WorkerMetrics metrics) {
            this.metrics = metrics;
            return this;
        }

        /**
         * Hears what Redis recorded for every run: completed, retried, dead, refused or handed back (default: nothing).
         * A listener that throws is isolated: logged once, counted ({@link Worker#callbackFailures()}), never able to
         * stop acknowledgements.
         */
        public Builder listener(JobListener listener) {
            this.listener = listener;
            return this;
        }

        /** Close the worker gracefully when the JVM shuts down (default off). */
        public Builder shutdownHook(boolean enabled) {
            this.shutdownHook = enabled;
            return this;
        }

        /**
         * Longest run of a job that has no timeout of its own ({@link Job.Builder#timeout}), 1 ms to 1 day (default:
         * none). At the deadline the handler's thread is interrupted and the attempt fails with error
         * {@code timed out after 30s} (retried per the retry policy); the job's slot and lease are freed at once. A
         * handler that ignores the interrupt keeps its thread until it returns (the worker's own pool runs the next
         * job on another thread; with {@link #executor} the next job needs a free thread of that executor), but its
         * job is no longer its own: its context reports the lease lost and whatever it returns is ignored.
         */
        public Builder jobTimeout(Duration timeout) {
            this.jobTimeout = timeout;
            return this;
        }

        /**
         * How often the worker records its heartbeat in the queue's worker registry ({@link QueueInspector#workers()},
         * {@code delayq workers}), 100 ms to 10 min (default 10 s). Its entry lives three intervals: a worker that stops
         * without closing drops out that long after its last beat; one that closes drops out at once.
         */
        public Builder heartbeatInterval(Duration interval) {
            this.heartbeat = interval;
            return this;
        }

        /** The worker's name in logs, locks and its meters' {@code worker} tag (default host-pid-random). */
        public Builder name(String name) {
            this.name = name;
            return this;
        }

        /**
         * Validates the settings and builds the worker (not started).
         *
         * @throws IllegalArgumentException naming the invalid setting and what is allowed
         */
        public Worker build() {
            if (metrics == null || listener == null) {
                throw new IllegalArgumentException("metrics and listener must not be null (use WorkerMetrics.NONE, JobListener.NONE)");
            }
            RetryPolicy policy = retryPolicy != null ? retryPolicy : settings.retryPolicy();
            String n = name != null ? name : WorkerConfig.defaultName();
            WorkerConfig config = new WorkerConfig(n, concurrency, batchSize, lease, lookahead, policy, shutdownGrace,
                    maxIdleSleep, purgeInterval, 10, ackLinger, standby, jobTimeout, heartbeat);
            return new Worker(new WorkerEngine(queue.name(), queue.inspector()::stats, QueuePartition.of(parts), routes.build(),
                    executor, config, metrics, listener), n, queue.name(), shutdownHook, parts.get(0).lifecycle());
        }
    }
}
