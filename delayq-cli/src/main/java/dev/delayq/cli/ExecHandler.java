package dev.delayq.cli;

import dev.delayq.JobContext;
import dev.delayq.JobHandler;
import dev.delayq.NonRetryableException;
import dev.delayq.internal.present.DurationText;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
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
 * {@code DELAYQ_*} environment variables, in a process group of its own that is ended with the job (see
 * {@link JobProcesses}). Exit 0 completes the job, exit {@value #NON_RETRYABLE_EXIT} sends it straight to dead,
 * any other exit fails the attempt; the tail of the command's stderr becomes the job's error summary. The
 * command's stdout and stderr are copied to the worker's in bounded memory, each stderr line prefixed with
 * {@code [job <id>]}.
 *
 * <p>The command's environment is the worker's without any {@code DELAYQ_*} variable it inherited and without
 * any variable holding a Redis secret (the URL with its password, the password itself), so that a job never
 * sees the worker's credentials. {@code TRACEPARENT} and {@code TRACESTATE} carry the attempt's trace context
 * ({@link CliTracing#environment}), never the ones the worker inherited.
 */
final class ExecHandler implements JobHandler {
    /** The exit status that means "do not retry". */
    static final int NON_RETRYABLE_EXIT = 100;
    /** Stderr bytes kept for the error summary; with the "exit N: " prefix it stays under the core's 2 KiB cut. */
    static final int STDERR_TAIL_BYTES = 2000;
    /** How long output still buffered in the pipes is read after the command exits. */
    private static final long DRAIN_MS = 2000;
    /** How often a running command's lease and deadline are looked at; its exit wakes the wait at once. */
    private static final long CHECK_MS = 250;

    /** What the worker learns about each run. */
    interface Listener {
        /** The command for {@code job} is about to start. */
        void started(JobContext job);

        /**
         * The run ended; {@code outcome} is a short status such as {@code ok in 12 ms} or {@code exit 3, will retry};
         * {@code failedAttempt}: the run failed its attempt (a non-zero exit, a time-out, a command that could not
         * start), which the worker logs itself once Redis has recorded it, rather than being stopped or not started
         * because the job was handed back or its lease lost.
         */
        void finished(JobContext job, String outcome, boolean failedAttempt);
    }

    private final String script;
    private final Duration timeout;
    private final List<String> secrets;
    private final PrintWriter out;
    private final PrintWriter err;
    private final Listener listener;
    private final JobProcesses processes;
    private final Set<Process> children = ConcurrentHashMap.newKeySet();
    private final ExecutorService pipes;
    private final CliTracing tracing;

    /**
     * @param exec     the shell command
     * @param timeout  the longest a command may run, or {@code null}
     * @param secrets  values no job's environment may contain (the Redis URL with its password, the password)
     * @param out      where the commands' stdout goes
     * @param err      where the commands' stderr goes
     * @param listener told about every run
     * @param tracing  what sets the commands' TRACEPARENT and TRACESTATE
     */
    ExecHandler(String exec, Duration timeout, List<String> secrets, PrintWriter out, PrintWriter err, Listener listener,
                CliTracing tracing) {
        // SIGINT is ignored in the command (an ignored signal stays ignored across exec): the worker's graceful
        // shutdown, not a Ctrl-C in the terminal, decides when a running job is stopped.
        this.script = "trap '' INT\n" + exec;
        this.timeout = timeout;
        this.secrets = List.copyOf(secrets);
        this.out = out;
        this.err = err;
        this.listener = listener;
        this.tracing = tracing;
        this.processes = JobProcesses.detect();
        AtomicInteger n = new AtomicInteger();
        this.pipes = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "delayq-exec-pipe-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    /** How job processes are isolated, for the start line. */
    String isolation() {
        return processes.describe();
    }

    @Override
    public void handle(JobContext job) throws Exception {
        long start = System.nanoTime();
        listener.started(job);
        String outcome = null;
        boolean failedAttempt = false;
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
        } catch (Failed | Dead e) {
            if (outcome == null) {
                outcome = e.getMessage();
            }
            failedAttempt = !(e instanceof Failed f && f.stopped);
            throw e;
        } catch (RuntimeException | Error e) {
            // A fault of the worker, not of the command: the job's error names it without a Java stack trace.
            outcome = "worker error: " + e;
            failedAttempt = true;
            throw new Failed("worker error: " + e);
        } finally {
            listener.finished(job, outcome != null ? outcome : "failed", failedAttempt);
        }
    }

    private record Run(int exit, String stderrTail) {
    }

    private Run run(JobContext job) {
        if (job.leaseLost()) {
            // Handed back by a worker shutting down (or recovered elsewhere) just as it was being started: running
            // the command now would only run it twice.
            throw Failed.stopped("not started: the job was handed back or its lease lost before its command started");
        }
        ProcessBuilder pb = new ProcessBuilder(processes.command(script));
        environment(pb.environment(), job);
        ResultFiles files = ResultFiles.create(job);
        files.environment(pb.environment());
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            files.delete();
            throw new Failed("cannot start " + pb.command().get(0) + ": " + e.getMessage());
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
            OutputPump.Tail tail = new OutputPump.Tail(STDERR_TAIL_BYTES);
            Future<?> stdout = pipes.submit(new OutputPump(p.getInputStream(), out, "", null));
            Future<?> stderr = pipes.submit(new OutputPump(p.getErrorStream(), err, "[job " + job.id() + "] ", tail));
            int exit = await(p, job);
            drain(stdin);
            drain(stdout);
            drain(stderr);
            if (exit == 0) {
                files.keepResult(job);
            }
            return new Run(exit, tail.text());
        } finally {
            children.remove(p);
            files.delete();
        }
    }

    /**
     * The worker's environment without secrets and inherited DELAYQ_* variables, plus the job's, and its trace context
     * in TRACEPARENT/TRACESTATE (never the ones the worker inherited).
     */
    private void environment(Map<String, String> env, JobContext job) {
        env.keySet().removeIf(k -> k.startsWith("DELAYQ_"));
        env.values().removeIf(v -> secrets.stream().anyMatch(s -> v.equals(s) || (s.length() >= 3 && v.contains(s))));
        env.put("DELAYQ_QUEUE", job.queue());
        env.put("DELAYQ_JOB_ID", job.id());
        env.put("DELAYQ_JOB_NAME", job.name() != null ? job.name() : ""); // set even when empty: safe under set -u
        env.put("DELAYQ_JOB_GROUP", job.group() != null ? job.group() : "");
        env.put("DELAYQ_ATTEMPT", Integer.toString(job.attempt()));
        env.put("DELAYQ_MAX_ATTEMPTS", Integer.toString(job.maxAttempts()));
        env.put("DELAYQ_TOKEN", Long.toString(job.token()));
        env.put("DELAYQ_DUE_AT", job.dueAt().toString());
        env.put("DELAYQ_STALLS", Integer.toString(job.stalls()));
        tracing.environment(env, job); // TRACEPARENT: the attempt's span, or the job's own context
    }

    /** Waits for the command; stops it at its deadline, when the worker hands the job back, or the lease is lost. */
    private int await(Process p, JobContext job) {
        long deadline = timeout == null ? 0 : System.nanoTime() + timeout.toNanos();
        try {
            while (true) {
                long wait = CHECK_MS;
                if (timeout != null) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0 && p.isAlive()) {
                        processes.stop(List.of(p));
                        throw new Failed("timed out after " + DurationText.format(timeout));
                    }
                    wait = Math.max(1, Math.min(wait, TimeUnit.NANOSECONDS.toMillis(left) + 1));
                }
                if (p.waitFor(wait, TimeUnit.MILLISECONDS)) {
                    return p.exitValue();
                }
                if (job.leaseLost()) {
                    processes.stop(List.of(p));
                    throw Failed.stopped("stopped: the lease was lost (handed back at shutdown, or recovered by another worker)");
                }
            }
        } catch (InterruptedException e) {
            // The worker is shutting down and the grace period is over: the job was handed back.
            processes.stop(List.of(p));
            throw Failed.stopped("stopped: the worker shut down");
        }
    }

    private static void drain(Future<?> f) {
        try {
            f.get(DRAIN_MS, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            // A process that left the job's group still holds the pipe open; it is copied until it closes.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            // The copy failed: the command's outcome stands, its output is the worker's loss, not the job's.
        }
    }

    /** Stops every command still running (after the worker was closed). */
    void stopAll() {
        processes.stop(new ArrayList<>(children));
        pipes.shutdown();
    }

    /** A failed attempt; the message is the whole error summary (no class name, no stack trace). */
    static final class Failed extends RuntimeException {
        /** The command was stopped, or not started, because the job was no longer this run's: not a failed attempt. */
        final boolean stopped;

        Failed(String summary) {
            this(summary, false);
        }

        private Failed(String summary, boolean stopped) {
            super(summary, null, false, false);
            this.stopped = stopped;
        }

        static Failed stopped(String summary) {
            return new Failed(summary, true);
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
