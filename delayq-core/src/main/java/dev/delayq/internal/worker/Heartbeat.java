package dev.delayq.internal.worker;

import dev.delayq.internal.WorkerBeat;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records the worker in its queue's worker registry (asynq's {@code heartbeat.go}, Sidekiq's processes set): every beat
 * interval its name, host, pid, queue, concurrency and the jobs its handlers run with their ages, live for three
 * intervals, so a worker that stops without closing (killed, frozen, cut off) drops out by itself; {@link #close()}
 * removes it at once. Operators read the registry ({@code QueueInspector.workers()}, {@code delayq workers}).
 *
 * <p>A beat that fails (Redis down) is counted and logged at most once a minute, and never stops the worker: the next
 * beat tries again, and a worker cut off long enough drops out of the registry until its beats succeed again.
 */
final class Heartbeat {
    private static final Logger LOG = LoggerFactory.getLogger(Heartbeat.class);
    /** A beat's entry lives this many intervals: two beats may fail before a live worker drops out. */
    static final int TTL_INTERVALS = 3;
    /** Running jobs listed per beat at most (a worker of concurrency 10,000 would write megabytes a beat). */
    static final int MOST_LISTED = 1000;
    private static final long LOG_EVERY_NANOS = TimeUnit.MINUTES.toNanos(1);
    private static final String VERSION = version();

    private final WorkerContext ctx;
    private final WorkerPartition registry;
    private final String id;
    private final String host;
    private final long startNanos;
    private final long intervalMillis;
    private volatile long lastLogNanos;
    private volatile boolean logged;
    private volatile boolean closed;
    private ScheduledThreadPoolExecutor thread;

    /** The heartbeat of the worker {@code ctx}, on {@code host}; its registry is the queue's (asked of partition 0). */
    Heartbeat(WorkerContext ctx, String host) {
        this.ctx = ctx;
        this.registry = ctx.part(0);
        this.host = host;
        this.id = ctx.worker() + "#" + Integer.toString(ThreadLocalRandom.current().nextInt(36 * 36 * 36 * 36), 36);
        this.startNanos = ctx.ticker().nanos();
        this.intervalMillis = ctx.config().heartbeat().toMillis();
    }

    /** The worker's entry in the registry. */
    String id() {
        return id;
    }

    /** Beats now, then every interval, on a thread of its own. */
    void start() {
        thread = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, ctx.worker() + "-heartbeat");
            t.setDaemon(true);
            return t;
        });
        thread.scheduleWithFixedDelay(this::beat, 0, intervalMillis, TimeUnit.MILLISECONDS);
    }

    /**
     * Stops beating and removes the worker from the registry, waiting a little for Redis (else its entry expires). An
     * interrupt does not cut it short (the goodbye is still sent); it is restored on the way out.
     */
    void close() {
        closed = true;
        boolean interrupted = false;
        if (thread != null) {
            thread.shutdownNow();
            try {
                // A beat under way is sent before the goodbye (one connection keeps their order): never after it,
                // which would list a closed worker until its entry expired.
                thread.awaitTermination(2, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        try {
            registry.gone(id).get(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            interrupted = true;
        } catch (Exception e) {
            LOG.debug("worker {}: could not leave the worker registry of queue {} (its entry expires by itself): {}",
                    ctx.worker(), ctx.queue(), e.toString());
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** One beat (what the thread runs each interval); never throws. */
    void beat() {
        if (closed) {
            return;
        }
        try {
            registry.beat(snapshot(), intervalMillis * TTL_INTERVALS).whenComplete((ok, e) -> {
                if (e != null) {
                    failed(e);
                }
            });
        } catch (Throwable e) { // a scheduled task that throws stops forever: never let it
            failed(e);
        }
    }

    /** What the worker is doing now. */
    WorkerBeat snapshot() {
        long now = ctx.ticker().nanos();
        List<WorkerBeat.Run> running = new ArrayList<>();
        for (Running r : ctx.inFlight().all()) {
            if (running.size() < MOST_LISTED && r.started && !r.finished && !r.acking && !r.released) {
                running.add(new WorkerBeat.Run(r.id(), Math.max(0, (now - r.startNanos) / 1_000_000)));
            }
        }
        return new WorkerBeat(id, ctx.worker(), host, ProcessHandle.current().pid(), List.of(ctx.queue()),
                ctx.config().concurrency(), Math.max(0, (now - startNanos) / 1_000_000), VERSION, running);
    }

    private void failed(Throwable e) {
        ctx.metrics().redisError(ctx.queue(), "heartbeat");
        long now = ctx.ticker().nanos();
        if (!logged || now - lastLogNanos >= LOG_EVERY_NANOS) {
            logged = true;
            lastLogNanos = now;
            LOG.warn("worker {}: heartbeat in queue {} failed (logged at most once a minute; the worker goes on): {}",
                    ctx.worker(), ctx.queue(), e.toString());
        }
    }

    /** This machine's host name, or {@code unknown}. */
    static String localHost() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }

    private static String version() {
        try (InputStream in = Heartbeat.class.getResourceAsStream("/dev/delayq/version.properties")) {
            if (in == null) {
                return "unknown";
            }
            Properties p = new Properties();
            p.load(in);
            String v = p.getProperty("version", "unknown");
            return v.startsWith("${") ? "unknown" : v;
        } catch (IOException e) {
            return "unknown";
        }
    }
}
