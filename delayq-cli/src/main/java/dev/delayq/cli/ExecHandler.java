package dev.delayq.cli;

import dev.delayq.JobContext;
import dev.delayq.JobHandler;
import dev.delayq.NonRetryableException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs a job as a shell command: {@code sh -c COMMAND} with the payload on stdin and the job in
 * {@code DELAYQ_*} environment variables. Exit 0 completes the job, exit {@value #NON_RETRYABLE_EXIT} sends it
 * straight to dead, any other exit fails the attempt; the tail of the command's stderr becomes the job's error
 * summary. The command's stdout and stderr are copied, line by line, to the worker's.
 */
final class ExecHandler implements JobHandler {
    /** The exit status that means "do not retry". */
    static final int NON_RETRYABLE_EXIT = 100;
    /** Stderr bytes kept for the error summary; with the "exit N: " prefix it stays under the core's 2 KiB cut. */
    static final int STDERR_TAIL_BYTES = 2000;
    /** How long a stopped command gets between SIGTERM and SIGKILL. */
    private static final long STOP_GRACE_MS = 2000;
    /** How long output still buffered in the pipes is read after the command exits (a background child may hold them). */
    private static final long DRAIN_MS = 2000;
    /** How often a running command's lease is looked at; the command's exit itself wakes the wait at once. */
    private static final long LEASE_CHECK_MS = 250;

    /** What the worker learns about each run. */
    interface Listener {
        /** The command for {@code job} is about to start. */
        void started(JobContext job);

        /** The run ended; {@code outcome} is a short status such as {@code ok in 12 ms} or {@code exit 3, retry}. */
        void finished(JobContext job, String outcome);
    }

    private final List<String> command;
    private final PrintWriter out;
    private final PrintWriter err;
    private final Listener listener;
    private final Set<Process> children = ConcurrentHashMap.newKeySet();
    private final ExecutorService pipes;

    /**
     * @param exec     the shell command
     * @param out      where the commands' stdout goes
     * @param err      where the commands' stderr goes
     * @param listener told about every run
     */
    ExecHandler(String exec, PrintWriter out, PrintWriter err, Listener listener) {
        // SIGINT is ignored in the command (an ignored signal stays ignored across exec): a Ctrl-C in the terminal
        // reaches the whole process group, and the worker's graceful shutdown, not the signal, decides when a
        // running job is stopped.
        this.command = List.of("sh", "-c", "trap '' INT\n" + exec);
        this.out = out;
        this.err = err;
        this.listener = listener;
        AtomicInteger n = new AtomicInteger();
        this.pipes = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "delayq-exec-pipe-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    @Override
    public void handle(JobContext job) throws Exception {
        long start = System.nanoTime();
        listener.started(job);
        String outcome = null;
        try {
            Run run = run(job);
            if (run.exit() == 0) {
                outcome = "ok in " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms";
                return;
            }
            String summary = "exit " + run.exit() + (run.stderrTail().isEmpty() ? "" : ": " + run.stderrTail());
            if (run.exit() == NON_RETRYABLE_EXIT) {
                outcome = "exit " + run.exit() + ", dead (not retryable)";
                throw new Dead(summary);
            }
            outcome = "exit " + run.exit() + (job.attempt() < job.maxAttempts() ? ", will retry" : ", dead (attempts used up)");
            throw new Failed(summary);
        } catch (RuntimeException | Error e) {
            if (outcome == null) {
                outcome = e.toString();
            }
            throw e;
        } finally {
            listener.finished(job, outcome != null ? outcome : "failed");
        }
    }

    private record Run(int exit, String stderrTail) {
    }

    private Run run(JobContext job) {
        ProcessBuilder pb = new ProcessBuilder(command);
        Map<String, String> env = pb.environment();
        env.put("DELAYQ_QUEUE", job.queue());
        env.put("DELAYQ_JOB_ID", job.id());
        env.put("DELAYQ_ATTEMPT", Integer.toString(job.attempt()));
        env.put("DELAYQ_MAX_ATTEMPTS", Integer.toString(job.maxAttempts()));
        env.put("DELAYQ_TOKEN", Long.toString(job.token()));
        env.put("DELAYQ_DUE_AT", job.dueAt().toString());
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            throw new Failed("cannot start sh: " + e.getMessage());
        }
        children.add(p);
        try {
            byte[] payload = job.payload();
            Future<?> stdin = pipes.submit(() -> {
                try (OutputStream o = p.getOutputStream()) {
                    o.write(payload);
                } catch (IOException e) {
                    // The command exited or closed stdin without reading it all: its choice, not a failure.
                }
            });
            Tail tail = new Tail(STDERR_TAIL_BYTES);
            Future<?> stdout = pipes.submit(() -> copyLines(p.getInputStream(), out, null));
            Future<?> stderr = pipes.submit(() -> copyLines(p.getErrorStream(), err, tail));
            int exit = await(p, job);
            drain(stdin);
            drain(stdout);
            drain(stderr);
            return new Run(exit, tail.text());
        } finally {
            children.remove(p);
        }
    }

    /** Waits for the command; stops it when the worker hands the job back or the lease is lost. */
    private int await(Process p, JobContext job) {
        try {
            while (!p.waitFor(LEASE_CHECK_MS, TimeUnit.MILLISECONDS)) {
                if (job.leaseLost()) {
                    stop(List.of(p));
                    throw new Failed("stopped: the lease was lost (handed back at shutdown, or recovered by another worker)");
                }
            }
            return p.exitValue();
        } catch (InterruptedException e) {
            // The worker is shutting down and the grace period is over: the job was handed back.
            stop(List.of(p));
            throw new Failed("stopped: the worker shut down");
        }
    }

    private static void drain(Future<?> f) {
        try {
            f.get(DRAIN_MS, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            // A background process of the command still holds the pipe open; it is copied until it closes.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            throw new IllegalStateException("copying the command's output failed", e.getCause());
        }
    }

    /** Stops every command still running (after the worker was closed). */
    void stopAll() {
        stop(new ArrayList<>(children));
        pipes.shutdown();
    }

    /** SIGTERM to each command and its descendants, SIGKILL to whatever is left after {@link #STOP_GRACE_MS}. */
    private static void stop(List<Process> processes) {
        if (processes.isEmpty()) {
            return;
        }
        List<ProcessHandle> all = new ArrayList<>();
        for (Process p : processes) {
            // Descendants first, and listed before the shell dies: orphans are no longer its descendants.
            p.descendants().forEach(all::add);
            all.add(p.toHandle());
        }
        all.forEach(ProcessHandle::destroy);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(STOP_GRACE_MS);
        boolean interrupted = false;
        for (ProcessHandle h : all) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                break;
            }
            try {
                h.onExit().get(left, TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                interrupted = true;
                break;
            } catch (ExecutionException | TimeoutException e) {
                break;
            }
        }
        all.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Copies a stream to {@code to} line by line (UTF-8), keeping its last bytes in {@code tail} when given. */
    private static void copyLines(InputStream in, PrintWriter to, Tail tail) {
        byte[] buf = new byte[8192];
        Line line = new Line();
        try (in) {
            int n;
            while ((n = in.read(buf)) > 0) {
                if (tail != null) {
                    tail.add(buf, n);
                }
                int from = 0;
                for (int i = 0; i < n; i++) {
                    if (buf[i] == '\n') {
                        line.append(buf, from, i - from);
                        to.println(line.take());
                        from = i + 1;
                    }
                }
                line.append(buf, from, n - from);
            }
        } catch (IOException e) {
            // The pipe was closed under us (the command was stopped): keep what was read.
        }
        if (line.size() > 0) {
            to.println(line.take());
        }
        to.flush();
    }

    /** A growing line buffer. */
    private static final class Line {
        private byte[] bytes = new byte[256];
        private int size;

        void append(byte[] b, int off, int len) {
            if (size + len > bytes.length) {
                bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + len));
            }
            System.arraycopy(b, off, bytes, size, len);
            size += len;
        }

        int size() {
            return size;
        }

        String take() {
            int end = size > 0 && bytes[size - 1] == '\r' ? size - 1 : size;
            String s = new String(bytes, 0, end, StandardCharsets.UTF_8);
            size = 0;
            return s;
        }
    }

    /** The last {@code limit} bytes written to it. */
    static final class Tail {
        private final int limit;
        private byte[] bytes;
        private int size;

        Tail(int limit) {
            this.limit = limit;
            this.bytes = new byte[limit * 2];
        }

        synchronized void add(byte[] b, int len) {
            if (len >= limit) {
                System.arraycopy(b, len - limit, bytes, 0, limit);
                size = limit;
                return;
            }
            if (size + len > bytes.length) { // keep the last limit - len bytes, then append
                int keep = limit - len;
                System.arraycopy(bytes, size - keep, bytes, 0, keep);
                size = keep;
            }
            System.arraycopy(b, 0, bytes, size, len);
            size += len;
        }

        /** The tail as text: at most {@code limit} bytes, never starting inside a UTF-8 sequence, trailing blanks cut. */
        synchronized String text() {
            int from = Math.max(0, size - limit);
            while (from < size && (bytes[from] & 0xC0) == 0x80) {
                from++;
            }
            String s;
            try {
                s = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPLACE)
                        .onUnmappableCharacter(CodingErrorAction.REPLACE)
                        .decode(ByteBuffer.wrap(bytes, from, size - from)).toString();
            } catch (java.nio.charset.CharacterCodingException e) {
                throw new IllegalStateException(e); // cannot happen with REPLACE
            }
            return s.stripTrailing();
        }
    }

    /** A failed attempt; the message is the whole error summary (no class name, no stack trace). */
    static final class Failed extends RuntimeException {
        Failed(String summary) {
            super(summary, null, false, false);
        }

        @Override
        public String toString() {
            return getMessage();
        }
    }

    /** A run that must not be retried (exit {@value #NON_RETRYABLE_EXIT}); the message is the error summary. */
    static final class Dead extends NonRetryableException {
        Dead(String summary) {
            super(summary);
            setStackTrace(new StackTraceElement[0]);
        }

        @Override
        public synchronized Throwable fillInStackTrace() {
            return this; // the summary is the command's stderr: a Java stack trace would only crowd it out
        }

        @Override
        public String toString() {
            return getMessage();
        }
    }
}
