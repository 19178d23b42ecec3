package dev.delayq.demo;

import dev.delayq.DelayQ;
import dev.delayq.Job;
import dev.delayq.JobContext;
import dev.delayq.JobQueue;
import dev.delayq.QueueStats;
import dev.delayq.Worker;
import dev.delayq.WorkerMetrics;
import dev.delayq.cli.RedisTarget;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.HdrHistogram.ConcurrentHistogram;

/**
 * One demo run: enqueue the jobs, run the workers (one of them in a child JVM, killed with SIGKILL
 * mid-run), show progress, and gather what the report needs.
 */
final class DemoRun {
    static final String QUEUE = "demo";
    static final Duration LEASE = Duration.ofSeconds(2);
    private static final int CHILD_CONCURRENCY = 8;

    private final DelayQ dq;
    private final String uri;
    private final RedisTarget credentials;
    private final String prefix;
    private final int jobs;
    private final int workers;
    private final Duration spread;
    private final PrintWriter err;
    private final boolean terminal;
    private final Map<String, AtomicInteger> starts = new ConcurrentHashMap<>();
    private final Map<Integer, Long> firstTokens = new ConcurrentHashMap<>();
    private final ConcurrentHistogram lag = new ConcurrentHistogram(3_600_000_000L, 3);

    /**
     * @param uri         the server, for the child worker's client
     * @param credentials the credentials given apart from {@code uri} (passed to the child worker in its
     *                    environment, never on its command line), or {@code null}
     * @param terminal    whether {@code err} is a terminal (progress redrawn in place)
     */
    DemoRun(DelayQ dq, String uri, RedisTarget credentials, String prefix, int jobs, int workers, Duration spread,
            PrintWriter err, boolean terminal) {
        this.terminal = terminal;
        this.dq = dq;
        this.uri = uri;
        this.credentials = credentials;
        this.prefix = prefix;
        this.jobs = jobs;
        this.workers = workers;
        this.spread = spread;
        this.err = err;
    }

    /** The size of the group of jobs due at one and the same millisecond. */
    int sameMsGroup() {
        return Math.max(2, Math.min(500, jobs / 10));
    }

    DemoReport run(Path tmp) throws IOException, InterruptedException {
        JobQueue q = dq.queue(QUEUE);
        Path startsFile = tmp.resolve("doomed-starts.txt");
        Files.createFile(startsFile);
        Path holdFile = tmp.resolve("doomed-hold");
        Path doomedLog = tmp.resolve("doomed.log");
        Process doomed = startDoomed(startsFile, holdFile, doomedLog);
        List<Worker> live = new ArrayList<>();
        long killedAtDone = -1;
        try {
            for (int w = 1; w < workers; w++) {
                live.add(Worker.builder(q, this::handle).name("demo-" + w).concurrency(16).leaseDuration(LEASE)
                        .retryPolicy(DemoJobs.POLICY).metrics(lagRecorder()).build().start());
            }
            long enqueueNanos = enqueue(q);
            Progress progress = new Progress(err, jobs, terminal);
            long deadline = System.nanoTime() + spread.toNanos() + TimeUnit.SECONDS.toNanos(60);
            QueueStats s = q.inspector().stats();
            while (s.done() + s.dead() < jobs && System.nanoTime() < deadline) {
                if (doomed.isAlive() && (s.done() + s.dead() >= jobs * 3L / 10 || s.scheduled() == 0)) {
                    killHoldingAJob(doomed, holdFile, doomedLog);
                    killedAtDone = s.done();
                }
                progress.show(s, !doomed.isAlive());
                TimeUnit.MILLISECONDS.sleep(100); // the progress bar's refresh period
                s = q.inspector().stats();
            }
            progress.show(s, !doomed.isAlive());
            progress.finish();
            live.forEach(Worker::close);
            readDoomedStarts(startsFile);
            return new DemoReport(jobs, workers, enqueueNanos, q.inspector().stats(), duplicates(), lag, sameMsInOrder(q),
                    sameMsGroup(), killedAtDone, q.inspector().check(), dq.serverVersion());
        } finally {
            live.forEach(Worker::close);
            if (doomed.isAlive()) {
                doomed.destroyForcibly();
            }
        }
    }

    private long enqueue(JobQueue q) {
        Instant now = dq.serverTime();
        Instant first = now.plusSeconds(1);
        long spreadMs = Math.max(1, spread.toMillis());
        Instant sameMs = first.plusMillis(spreadMs / 3);
        int group = sameMsGroup();
        List<Job> batch = new ArrayList<>(jobs);
        for (int i = 0; i < jobs; i++) {
            Instant due = i < group ? sameMs : first.plusMillis(ThreadLocalRandom.current().nextLong(spreadMs));
            batch.add(Job.builder().id(DemoJobs.id(i)).payload("{\"order\":" + i + "}").runAt(due).build());
        }
        long start = System.nanoTime();
        q.enqueueAll(batch);
        return System.nanoTime() - start;
    }

    private void handle(JobContext job) throws InterruptedException {
        starts.computeIfAbsent(job.id() + "#" + job.token(), k -> new AtomicInteger()).incrementAndGet();
        firstTokens.merge(DemoJobs.index(job.id()), job.token(), Math::min); // the first claim has the lowest token
        TimeUnit.MILLISECONDS.sleep(1 + ThreadLocalRandom.current().nextInt(3)); // a little work
        DemoJobs.maybeFail(job);
    }

    private WorkerMetrics lagRecorder() {
        return new WorkerMetrics() {
            @Override
            public void started(String queue, double lagMillis) {
                lag.recordValue(Math.max(0, (long) (lagMillis * 1000))); // microseconds
            }
        };
    }

    /**
     * SIGKILL, once the doomed worker holds a job (at most 30 s after asking it to hold the next one it finishes): its
     * leased jobs are abandoned, mid-run, and at least one lease is left to expire and be recovered.
     */
    private static void killHoldingAJob(Process doomed, Path holdFile, Path log) throws IOException, InterruptedException {
        Files.createFile(holdFile);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30); // a busy machine starts a JVM slowly
        while (doomed.isAlive() && !Files.readString(log).contains("holding ") && System.nanoTime() < deadline) {
            TimeUnit.MILLISECONDS.sleep(20); // waiting for another process's output file
        }
        doomed.destroyForcibly();
        doomed.waitFor(10, TimeUnit.SECONDS);
    }

    private Process startDoomed(Path startsFile, Path holdFile, Path log) throws IOException, InterruptedException {
        String java = ProcessHandle.current().info().command().orElse("java");
        ProcessBuilder pb = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                DemoChildWorker.class.getName(), prefix, QUEUE, String.valueOf(LEASE.toMillis()),
                String.valueOf(CHILD_CONCURRENCY), startsFile.toString(), holdFile.toString())
                .redirectErrorStream(true).redirectOutput(log.toFile());
        // The server and its credentials go in the environment: a command line is visible to every user (ps).
        pb.environment().put(DemoChildWorker.URL_ENV, uri);
        pb.environment().remove(RedisTarget.PASSWORD_ENV);
        pb.environment().remove(DemoChildWorker.USER_ENV);
        if (credentials != null && credentials.password() != null) {
            pb.environment().put(RedisTarget.PASSWORD_ENV, new String(credentials.password()));
            if (credentials.username() != null) {
                pb.environment().put(DemoChildWorker.USER_ENV, credentials.username());
            }
        }
        Process p = pb.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!Files.readString(log).contains("ready")) {
            if (!p.isAlive() || System.nanoTime() > deadline) {
                p.destroyForcibly();
                throw new IOException("the demo's child worker did not start: " + Files.readString(log));
            }
            TimeUnit.MILLISECONDS.sleep(20); // waiting for another process's output file
        }
        return p;
    }

    private void readDoomedStarts(Path file) throws IOException {
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            String[] f = line.split(" ");
            if (f.length == 3) {
                starts.computeIfAbsent(f[0] + "#" + f[2], k -> new AtomicInteger()).incrementAndGet();
                firstTokens.merge(DemoJobs.index(f[0]), Long.parseLong(f[2]), Math::min);
            }
        }
    }

    /** Starts beyond one per claim (fencing token): a job handed to two workers by one claim. */
    private long duplicates() {
        return starts.values().stream().mapToLong(n -> n.get() - 1).sum();
    }

    /**
     * Whether the jobs due at the same ms were claimed in enqueue order (first-attempt fencing tokens increase).
     * A job whose lease expired (a stall: the killed worker held it, perhaps leased ahead of its due time and never
     * started) was claimed again later under a new token, so it says nothing about the first claim's order.
     */
    private boolean sameMsInOrder(JobQueue q) {
        long last = 0;
        for (int i = 0; i < sameMsGroup(); i++) {
            Long token = firstTokens.get(i);
            if (token == null || q.get(DemoJobs.id(i)).map(j -> j.stalls() > 0).orElse(true)) {
                continue; // first claimed by the killed worker: its first token is not known
            }
            if (token <= last) {
                return false;
            }
            last = token;
        }
        return true;
    }
}
