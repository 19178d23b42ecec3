package dev.delayq.cli;

import dev.delayq.DelayQTimeoutException;
import dev.delayq.EnqueueResult;
import dev.delayq.Job;
import dev.delayq.JobQueue;
import dev.delayq.internal.present.DurationText;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Bulk enqueue from JSON Lines, streamed: a reader thread parses lines into batches and sends each batch as
 * one {@code enqueueAllAsync} call as soon as it is full (or as soon as the input has nothing more ready, so
 * a slow producer on stdin is not held back); the calling thread waits for the batches in file order and
 * prints each job's result once Redis has acknowledged its batch. At most {@link #WINDOW} batches are in
 * flight, which keeps Redis busy (pipelined calls) while bounding memory for inputs of any length.
 */
final class JsonlEnqueue {
    /** Jobs per call: the core runs up to 500 jobs in one script call, so a batch is one atomic round trip. */
    static final int BATCH = 500;
    /** Batches in flight at once (sent, not yet printed). */
    static final int WINDOW = 8;
    private final JobQueue queue;
    private final JsonlJob parser;
    private final int maxPayloadBytes;
    private final String limitHint;
    private final Duration timeout;
    private final String server;
    private final boolean json;
    private final PrintWriter out;
    private final PrintWriter err;
    private final BlockingQueue<Batch> sent = new ArrayBlockingQueue<>(WINDOW);
    private volatile boolean stopped;
    private CliTracing tracing = CliTracing.OFF;
    private String[] parent;

    /**
     * @param limitHint how a message about the payload limit ends (the limit and how to raise it)
     */
    JsonlEnqueue(JobQueue queue, int maxPayloadBytes, String limitHint, Duration timeout, String server, boolean json,
                 PrintWriter out, PrintWriter err) {
        this.queue = queue;
        this.parser = new JsonlJob(maxPayloadBytes, limitHint);
        this.maxPayloadBytes = maxPayloadBytes;
        this.limitHint = limitHint;
        this.timeout = timeout;
        this.server = server;
        this.json = json;
        this.out = out;
        this.err = err;
    }

    /**
     * One input line: the job it describes, or why it is bad ({@code error}), or neither when it is blank;
     * {@code requested} is the id the line asked for (generated when it names none), when known.
     */
    private record Line(long number, Job job, String requested, String error) {
        boolean blank() {
            return job == null && error == null;
        }
    }

    /** What Redis said about one job: its result, or why it refused it. */
    private record Outcome(EnqueueResult result, String error) {
    }

    /**
     * Lines sent together; {@code results} has one outcome per line that held a job. The last batch has
     * {@code end} set, and {@code failure} when reading the input failed.
     */
    private record Batch(List<Line> lines, CompletableFuture<List<Outcome>> results, boolean end, Throwable failure) {
    }

    /**
     * Enqueues every line of {@code in} and prints the results.
     *
     * @param source how to name the input in an error message
     * @return {@link Exit#OK}, or {@link Exit#FAILED} when some line was bad
     * @throws CliException with {@link Exit#USAGE} when the input cannot be read; Redis failures propagate
     */
    /** Enqueues under {@code parent} ({@link CliTracing#parent}; null: none) with {@code tracing}. */
    JsonlEnqueue traced(CliTracing tracing, String[] parent) {
        this.tracing = tracing;
        this.parent = parent;
        return this;
    }

    int run(InputStream in, String source) {
        Thread reader = new Thread(() -> read(in), "delayq-jsonl-reader");
        reader.setDaemon(true); // a read blocked on stdin must not keep the JVM alive after a Redis failure
        reader.start();
        boolean bad = false;
        try {
            while (true) {
                Batch b = sent.take();
                bad |= print(b);
                if (b.end()) {
                    if (b.failure() instanceof IOException io) {
                        throw new CliException(Exit.USAGE, "cannot read " + source + ": " + EnqueueCommand.reason(io));
                    }
                    if (b.failure() != null) {
                        throw new IllegalStateException("reading " + source + " failed: " + b.failure(), b.failure());
                    }
                    return bad ? Exit.FAILED : Exit.OK;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliException(Exit.FAILED, "interrupted");
        } finally {
            stopped = true;
            reader.interrupt();
        }
    }

    // ---- reader thread ---------------------------------------------------------------------------------

    /**
     * The longest line read: a payload at the limit written entirely as {@code \u0001} escapes (6 bytes each)
     * plus room for the other keys. A longer line is refused while it is read, so memory stays bounded.
     */
    long maxLineBytes() {
        return Math.min(Integer.MAX_VALUE - 64, 6L * maxPayloadBytes + 16 * 1024);
    }

    private void read(InputStream in) {
        try (CliTracing.Current ignored = tracing.current(parent)) { // the parent of the enqueues' spans
            readLines(in);
        }
    }

    private void readLines(InputStream in) {
        BoundedLines r = new BoundedLines(in, (int) maxLineBytes());
        List<Line> lines = new ArrayList<>();
        List<Job> jobs = new ArrayList<>();
        long number = 0;
        Throwable failure = null;
        try {
            BoundedLines.Line raw;
            while (!stopped && (raw = r.next()) != null) {
                number++;
                Line line = raw.tooLong()
                        ? new Line(number, null, null, "line is longer than " + maxLineBytes()
                                + " bytes (the longest a job can be as JSON): " + limitHint)
                        : parse(number, new String(raw.bytes(), StandardCharsets.UTF_8));
                lines.add(line);
                if (line.job() != null) {
                    jobs.add(tracing.carry(line.job(), parent));
                }
                // Send when full, or when the producer has nothing more for now: a slow stream is never held
                // back waiting for a batch to fill.
                if (lines.size() >= BATCH || (!lines.isEmpty() && !r.ready())) {
                    send(lines, jobs, false, null);
                    lines = new ArrayList<>();
                    jobs = new ArrayList<>();
                }
            }
        } catch (InterruptedException e) {
            return; // the printer stopped (a Redis failure): nothing more to send
        } catch (IOException | RuntimeException | Error e) {
            failure = e; // reported by the printer after the lines before it, so it never waits forever
        }
        try {
            send(lines, jobs, true, failure);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void send(List<Line> lines, List<Job> jobs, boolean end, Throwable error) throws InterruptedException {
        CompletableFuture<List<Outcome>> results = jobs.isEmpty()
                ? CompletableFuture.completedFuture(List.of()) : enqueue(jobs);
        sent.put(new Batch(lines, results, end, error)); // blocks while WINDOW batches are in flight
    }

    private CompletableFuture<List<Outcome>> enqueue(List<Job> jobs) {
        CompletableFuture<List<EnqueueResult>> call;
        try {
            call = queue.enqueueAllAsync(jobs);
        } catch (RuntimeException e) {
            call = CompletableFuture.failedFuture(e);
        }
        return call.thenApply(rs -> {
            List<Outcome> out = new ArrayList<>(rs.size());
            rs.forEach(r -> out.add(new Outcome(r, null)));
            return out;
        }).exceptionallyCompose(e -> {
            Throwable c = unwrap(e);
            if (!(c instanceof IllegalArgumentException)) {
                return CompletableFuture.failedFuture(c);
            }
            if (jobs.size() == 1) {
                return CompletableFuture.completedFuture(List.of(new Outcome(null, c.getMessage())));
            }
            // Redis refused one job of the batch (a due time past year 9999 on its clock) and, the batch being
            // all or nothing, wrote none of them: send each job alone to find the bad one(s).
            List<CompletableFuture<List<Outcome>>> each = new ArrayList<>(jobs.size());
            for (Job j : jobs) {
                each.add(enqueue(List.of(j)));
            }
            return CompletableFuture.allOf(each.toArray(new CompletableFuture<?>[0])).thenApply(v -> {
                List<Outcome> out = new ArrayList<>(jobs.size());
                each.forEach(f -> out.addAll(f.join()));
                return out;
            });
        });
    }

    /** Parses one line into a job; every problem becomes the line's error, never an exception. */
    private Line parse(long number, String text) {
        if (text.isBlank()) {
            return new Line(number, null, null, null);
        }
        JsonlJob.Parsed p = parser.parse(text);
        return new Line(number, p.job(), p.requested(), p.error());
    }

    // ---- printing (calling thread) ---------------------------------------------------------------------

    /** Waits for a batch's acknowledgement and prints its lines in order; returns whether one was bad. */
    private boolean print(Batch b) throws InterruptedException {
        List<Outcome> results;
        try {
            // Lettuce fails the call after the command timeout; the margin only guards against a lost callback.
            results = b.results().get(timeout.toMillis() + 5_000, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable c = unwrap(e);
            throw c instanceof RuntimeException re ? re : new CompletionException(c);
        } catch (TimeoutException e) {
            throw new DelayQTimeoutException("enqueue: Redis at " + server + " did not answer within "
                    + timeout.toMillis() + " ms", e);
        }
        boolean bad = false;
        StringBuilder o = new StringBuilder();
        StringBuilder e = new StringBuilder();
        int next = 0;
        for (Line line : b.lines()) {
            String error = line.error();
            EnqueueResult result = null;
            if (line.job() != null) {
                Outcome r = results.get(next++);
                result = r.result();
                error = r.error();
            }
            error = DurationText.humanizeIso(error); // the library prints durations as Java does (PT30S)
            if (error != null) {
                bad = true;
                e.append("delayq: line ").append(line.number()).append(": ").append(Text.oneLine(error, 500)).append('\n');
            }
            o.append(format(line, result, error)).append('\n');
        }
        // One write per batch: per-line flushing would cost a system call per job.
        if (e.length() > 0) {
            err.print(e);
            err.flush();
        }
        if (o.length() > 0) {
            out.print(o);
            out.flush();
        }
        return bad;
    }

    /**
     * The result line of one input line: {@code created <id>}, {@code replaced <id of the job replaced>} (debounce),
     * {@code duplicate <owner id>} (with
     * {@code requested=<id>} when the owner is another job, then what became of an owner that ended or no longer
     * exists, see {@link Duplicates#note}), {@code error <line> <message>}, or {@code skipped <line> blank line};
     * with --json one object with the keys {@code line, id} (requested), {@code result, owner, error, ownerState,
     * heldUntil}.
     */
    private String format(Line line, EnqueueResult r, String error) {
        String result = error != null ? "error" : r == null ? "skipped" : r.created() ? "created"
                : r.replaced() ? "replaced" : "duplicate";
        if (json) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("line", line.number());
            m.put("id", line.requested());
            m.put("result", result);
            m.put("owner", r != null && error == null ? r.id() : null);
            m.put("error", error != null ? Text.oneLine(error, 500) : null);
            Duplicates.put(m, error == null ? r : null);
            return Json.line(m);
        }
        return switch (result) {
            case "error" -> "error " + line.number() + " " + Text.oneLine(error, 500);
            case "skipped" -> "skipped " + line.number() + " blank line";
            default -> result + " " + r.id()
                    + (line.requested() != null && !line.requested().equals(r.id()) ? " requested=" + line.requested() : "")
                    + Duplicates.note(r);
        };
    }

    private static Throwable unwrap(Throwable e) {
        Throwable c = e;
        while ((c instanceof CompletionException || c instanceof ExecutionException) && c.getCause() != null) {
            c = c.getCause();
        }
        return c;
    }
}
