package dev.delayq.cli;

import dev.delayq.JobContext;
import dev.delayq.JobListener;
import dev.delayq.JobQueue;
import dev.delayq.RetryPolicy;
import dev.delayq.Worker;
import dev.delayq.WorkerMetrics;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntSupplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code delayq work QUEUE --exec COMMAND}: a worker that runs each due job as a shell command. */
@Command(name = "work", mixinStandardHelpOptions = true,
        description = {"Run a worker that runs each due job of the queue as 'sh -c COMMAND', the payload on stdin "
                + "and the job in the environment: DELAYQ_QUEUE, DELAYQ_JOB_ID, DELAYQ_ATTEMPT, DELAYQ_MAX_ATTEMPTS, "
                + "DELAYQ_TOKEN, DELAYQ_DUE_AT (ISO-8601).",
                "Exit 0 completes the job; exit 100 sends it straight to dead; any other exit fails the attempt "
                        + "(retried with exponential backoff until --max-attempts), the tail of its stderr kept as the "
                        + "job's error. The commands' stdout and stderr go to the worker's.",
                "SIGTERM or Ctrl-C stops claiming, lets running commands finish within --shutdown-grace, then stops "
                        + "them and hands their jobs back (commands ignore SIGINT so that Ctrl-C does not kill them "
                        + "mid-job). --verbose prints on stderr a line per finished command and a line per outcome "
                        + "Redis recorded: 'completed|retry_scheduled|dead|refused|handed_back ID attempt A/MAX token T'."},
        footer = {"", "Examples:",
                "  delayq work orders --exec './handle-order.sh' --concurrency 8",
                "  delayq work mail --exec 'sendmail -t' --max-attempts 10 --backoff-cap 6h",
                "  delayq work reports --exec './report.sh \"$DELAYQ_JOB_ID\"' --exit-when-idle 5s"})
public final class WorkCommand implements Callable<Integer> {
    @ParentCommand
    Main main;

    @Parameters(index = "0", paramLabel = "QUEUE", description = "Queue name.")
    String queue;

    @Option(names = "--exec", required = true, paramLabel = "COMMAND",
            description = "Shell command run for each job (through sh -c).")
    String exec;

    @Option(names = "--concurrency", paramLabel = "N", defaultValue = "10",
            description = "Most commands running at once (default: ${DEFAULT-VALUE}).")
    int concurrency;

    @Option(names = "--batch", paramLabel = "N", defaultValue = "100",
            description = "Most jobs leased per claim (default: ${DEFAULT-VALUE}).")
    int batch;

    @Option(names = "--lease", paramLabel = "DUR", defaultValue = "30s", converter = Durations.DurationConverter.class,
            description = "Lease length, renewed while a command runs (default: ${DEFAULT-VALUE}); a crashed worker's "
                    + "jobs run again after it expires.")
    Duration lease;

    @Option(names = "--backoff-base", paramLabel = "DUR", defaultValue = "5s", converter = Durations.DurationConverter.class,
            description = "Shortest delay before a retry (default: ${DEFAULT-VALUE}).")
    Duration backoffBase;

    @Option(names = "--backoff-cap", paramLabel = "DUR", defaultValue = "1h", converter = Durations.DurationConverter.class,
            description = "Longest delay before a retry (default: ${DEFAULT-VALUE}).")
    Duration backoffCap;

    @Option(names = "--max-attempts", paramLabel = "N", defaultValue = "5",
            description = "Attempts in all for jobs without their own (default: ${DEFAULT-VALUE}).")
    int maxAttempts;

    @Option(names = "--shutdown-grace", paramLabel = "DUR", defaultValue = "10s", converter = Durations.DurationConverter.class,
            description = "How long running commands may finish at shutdown before they are stopped and their jobs "
                    + "handed back (default: ${DEFAULT-VALUE}).")
    Duration shutdownGrace;

    @Option(names = "--exit-when-idle", paramLabel = "DUR", converter = Durations.DurationConverter.class,
            description = "Exit 0 once no job has been claimed or running for this long, counted from the start.")
    Duration exitWhenIdle;

    @Option(names = "--max-jobs", paramLabel = "N",
            description = "Exit 0 after this many jobs have finished (completed or failed).")
    Long maxJobs;

    @Override
    public Integer call() throws InterruptedException {
        // Everything that needs no Redis is checked first, so bad input never waits for a connection.
        RetryPolicy policy = RetryPolicy.builder().maxAttempts(maxAttempts).base(backoffBase).cap(backoffCap).build();
        if (exec.isBlank()) {
            throw new IllegalArgumentException("--exec is empty: give the shell command to run for each job");
        }
        if (exitWhenIdle != null && (exitWhenIdle.isZero() || exitWhenIdle.isNegative())) {
            throw new IllegalArgumentException("--exit-when-idle is " + exitWhenIdle + ": it must be positive");
        }
        if (maxJobs != null && maxJobs < 1) {
            throw new IllegalArgumentException("--max-jobs is " + maxJobs + ": it must be at least 1");
        }
        // With --max-jobs, never lease more jobs than may still run: the rest would only be handed back.
        int slots = maxJobs != null ? (int) Math.min(concurrency, maxJobs) : concurrency;
        int claim = maxJobs != null ? (int) Math.min(batch, maxJobs) : batch;

        Activity activity = new Activity(main.verbose ? main.err() : null);
        ExecHandler handler = new ExecHandler(exec, main.out(), main.err(), activity);
        JobQueue q = main.queue(queue);
        Worker worker = Worker.builder(q, handler).concurrency(slots).batchSize(claim).leaseDuration(lease)
                .retryPolicy(policy).shutdownGrace(shutdownGrace).metrics(activity).listener(activity).build();
        worker.start();
        // Idleness counts from here, not from the JVM's start: connecting and loading classes can take seconds
        // on a busy machine, and a claim issued just as the idle limit ran out would be cut short.
        activity.touch(0, 0);
        // The JVM runs this on SIGTERM and Ctrl-C; on a normal exit it is removed and the same steps run below.
        Thread hook = new Thread(() -> stop(worker, handler, activity, true), "delayq-work-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        if (main.verbose) {
            main.err().printf("delayq: worker %s on queue '%s': concurrency %d, lease %s, %d attempts, backoff %s to %s%n",
                    worker.name(), queue, slots, human(lease), maxAttempts, human(backoffBase), human(backoffCap));
        }
        boolean idle;
        int unacknowledged;
        try {
            idle = activity.awaitStop(exitWhenIdle, maxJobs, worker::inFlight);
        } finally {
            unacknowledged = stop(worker, handler, activity, false);
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the JVM is exiting: the hook is running or has run
            }
        }
        if (unacknowledged > 0) {
            throw new CliException(Exit.REDIS, unacknowledged + " job outcome(s) were not acknowledged by Redis at "
                    + main.client().server() + " before the worker stopped: those jobs run again when their leases expire");
        }
        if (idle) {
            // Claims that fail (Redis down) also look idle: exit 0 only if Redis answers, so that a script's
            // "drain, then exit" does not report success while the queue could not be read.
            q.stats();
        }
        return Exit.OK;
    }

    /** Closes the worker gracefully; returns how many of its jobs Redis has not acknowledged (0 normally). */
    private int stop(Worker worker, ExecHandler handler, Activity activity, boolean signalled) {
        if (signalled && worker.inFlight() > 0) {
            main.err().printf("delayq: stopping: letting running jobs finish (up to %s), then handing back the rest%n",
                    human(shutdownGrace));
            main.err().flush();
        }
        worker.close();
        handler.stopAll();
        // Worker.close() can return while the outcome of a job that finished during the grace period is still
        // on its way to Redis (it may judge the acknowledger idle just before the outcome reaches it). Exiting
        // then would leave that job processing until its lease expires and run it twice: wait for in-flight
        // jobs to be acknowledged, bounded by the Redis timeout.
        activity.awaitDrained(worker::inFlight, main.timeout().plusSeconds(5));
        return worker.inFlight();
    }

    private static String human(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + "s" : d.toMillis() + "ms";
    }

    /**
     * Follows the worker: claims (metrics), runs (handler) and acknowledgements, to decide when it is idle or
     * has done its --max-jobs, and prints a status line per finished job when verbose.
     */
    static final class Activity implements WorkerMetrics, ExecHandler.Listener, JobListener {
        /** Re-check while jobs wait for acknowledgement without a callback (e.g. handed back). */
        private static final long ACK_RECHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

        private final ReentrantLock lock = new ReentrantLock();
        private final Condition changed = lock.newCondition();
        private final java.io.PrintWriter status;
        private long lastNanos = System.nanoTime();
        private int running;
        private long finished;

        Activity(java.io.PrintWriter status) {
            this.status = status;
        }

        private void touch(int runningDelta, int finishedDelta) {
            lock.lock();
            try {
                lastNanos = System.nanoTime();
                running += runningDelta;
                finished += finishedDelta;
                changed.signalAll();
            } finally {
                lock.unlock();
            }
        }

        private void signal() {
            lock.lock();
            try {
                changed.signalAll();
            } finally {
                lock.unlock();
            }
        }

        @Override
        public void claimed(String queue, int n) {
            touch(0, 0);
        }

        @Override
        public void completed(String queue, long nanos) {
            signal(); // an acknowledgement: in-flight went down
        }

        @Override
        public void retried(String queue) {
            signal();
        }

        @Override
        public void dead(String queue) {
            signal();
        }

        @Override
        public void leaseLost(String queue) {
            signal();
        }

        @Override
        public void started(JobContext job) {
            touch(1, 0);
        }

        @Override
        public void finished(JobContext job, String outcome) {
            if (status != null) {
                status.println("job " + job.id() + " attempt " + job.attempt() + "/" + job.maxAttempts() + ": " + outcome);
            }
            touch(-1, 1);
        }

        /**
         * What Redis recorded, one line per run with {@code --verbose}:
         * {@code completed|retry_scheduled|dead|refused|handed_back <id> attempt <a>/<max> token <token>}.
         * A {@code completed} line means Redis accepted that run's completion, fenced by that token.
         */
        @Override
        public void onOutcome(JobContext job, Outcome outcome) {
            if (status != null) {
                synchronized (status) {
                    status.println(outcome.name().toLowerCase(java.util.Locale.ROOT) + " " + job.id() + " attempt "
                            + job.attempt() + "/" + job.maxAttempts() + " token " + job.token());
                    status.flush();
                }
            }
        }

        /** Waits until {@code inFlight} is zero (every outcome acknowledged by Redis), at most {@code limit}. */
        void awaitDrained(IntSupplier inFlight, Duration limit) {
            long deadline = System.nanoTime() + limit.toNanos();
            lock.lock();
            try {
                long left;
                while (inFlight.getAsInt() > 0 && (left = deadline - System.nanoTime()) > 0) {
                    changed.awaitNanos(Math.min(left, ACK_RECHECK_NANOS));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                lock.unlock();
            }
        }

        /**
         * Blocks until {@code maxJobs} runs have finished or, with {@code idle}, nothing was claimed, running or
         * unacknowledged for that long; without either, until the JVM exits.
         *
         * @return {@code true} when it stopped for idleness
         */
        boolean awaitStop(Duration idle, Long maxJobs, IntSupplier inFlight) throws InterruptedException {
            lock.lock();
            try {
                while (true) {
                    if (maxJobs != null && finished >= maxJobs) {
                        return false;
                    }
                    if (idle == null) {
                        changed.await();
                        continue;
                    }
                    long quiet = System.nanoTime() - lastNanos;
                    long left = idle.toNanos() - quiet;
                    if (left <= 0 && running == 0 && inFlight.getAsInt() == 0) {
                        return true;
                    }
                    changed.awaitNanos(left > 0 ? left : ACK_RECHECK_NANOS);
                }
            } finally {
                lock.unlock();
            }
        }
    }
}
