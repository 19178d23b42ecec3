package dev.delayq.cli;

import dev.delayq.JobQueue;
import dev.delayq.RetryPolicy;
import dev.delayq.Worker;
import dev.delayq.internal.base.Validation;
import dev.delayq.internal.present.DurationText;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code delayq work QUEUE --exec COMMAND}: a worker that runs each due job as a shell command. */
@Command(name = "work", mixinStandardHelpOptions = true,
        description = {"Run a worker that runs each due job of the queue as 'sh -c COMMAND', the payload on stdin "
                + "and the job in the environment: DELAYQ_QUEUE, DELAYQ_JOB_ID, DELAYQ_JOB_NAME (empty when the job has "
                + "no name), DELAYQ_JOB_GROUP (empty when it has no group), DELAYQ_ATTEMPT, DELAYQ_MAX_ATTEMPTS, DELAYQ_STALLS (expired leases so far), DELAYQ_TOKEN, "
                + "DELAYQ_DUE_AT (ISO-8601).",
                "Results (docs/flows.md): DELAYQ_RESULT_FILE names a fresh empty file; what it holds after exit 0 is "
                        + "the job's result (at most 64 KiB, else the attempt fails), kept with the done job. A job "
                        + "whose parents left results gets DELAYQ_PARENT_RESULTS_FILE: a JSON object of parent id to "
                        + "its result as text, or {\"base64\": \"...\"} for binary. Both files are deleted after the attempt.",
                "Tracing: any OTEL_* variable turns on OpenTelemetry (the SDK configured from the standard OTEL_* "
                        + "variables) and each attempt runs in a span; the command gets TRACEPARENT (and TRACESTATE) of "
                        + "that span, or without tracing the context the job carries (docs/tracing.md).",
                "Exit 0 completes the job; exit 100 sends it straight to dead; any other exit fails the attempt "
                        + "(retried with exponential backoff until --max-attempts), the tail of its stderr kept as the "
                        + "job's error. The commands' stdout and stderr go to the worker's.",
                "SIGTERM or Ctrl-C stops claiming, lets running commands finish within --shutdown-grace, then stops "
                        + "them and hands their jobs back (commands ignore SIGINT so that Ctrl-C does not kill them "
                        + "mid-job).",
                "On stderr: a start line, a summary line when the worker stops, each line a command writes on stderr "
                        + "prefixed with '[job ID] ', and one warning per failed attempt, once Redis has recorded it: "
                        + "'HH:MM:SS.mmm WARN dev.delayq.jobs - job failed: queue=Q id=ID name=NAME attempt=A/MAX "
                        + "next=DUE_AT|dead error=FIRST_LINE' (a lost lease: 'job lease lost: ...'; docs/logging.md). "
                        + "--verbose adds a line per command that completed or was stopped ('job ID attempt A/MAX: ok in "
                        + "12 ms') and a line per outcome Redis recorded: "
                        + "'completed|retry_scheduled|dead|refused|handed_back ID attempt A/MAX token T'.",
                "With --exit-when-idle the exit status is 0 only if every claim succeeded: when claims failed during "
                        + "the run (Redis unreachable or refusing), the worker says how many and exits 3.",
                "--metrics-port serves the worker's own meters (jobs claimed, completed, failed, retried, dead, "
                        + "dispatch lag and run time histograms, jobs in flight, Redis errors) in the Prometheus text "
                        + "format at http://ADDRESS:PORT/metrics."},
        footer = {"", "Examples:",
                "  delayq work orders --exec './handle-order.sh' --concurrency 8 --metrics-port 9400",
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
            description = "Exit once no job has been claimed or running for this long, counted from the start: 0, "
                    + "or 3 when claims failed during the run.")
    Duration exitWhenIdle;

    @Option(names = "--job-timeout", paramLabel = "DUR", converter = Durations.DurationConverter.class,
            description = "Stop a command that runs longer than this, 1ms to 1d (its whole process group) and fail the "
                    + "attempt with the error 'timed out after DUR' (retried like any failure). A job's own timeout "
                    + "('enqueue --job-timeout') has the same bound. Default: no limit.")
    Duration jobTimeout;

    @Option(names = "--max-stalls", paramLabel = "N", defaultValue = "5",
            description = "How many expired leases (a worker died, or a claim's reply was lost) a job survives before "
                    + "it goes to dead with the error 'lease expired N times'; they do not use up attempts (default: "
                    + "${DEFAULT-VALUE}; 0 to " + MAX_STALLS + ").")
    int maxStalls;

    @Option(names = "--metrics-port", paramLabel = "PORT",
            description = "Serve this worker's meters for Prometheus at http://ADDRESS:PORT/metrics (0 = any free port; "
                    + "the start line names it). Default: not served.")
    Integer metricsPort;

    @Option(names = "--metrics-bind", paramLabel = "ADDRESS",
            description = "Address of --metrics-port (default: 127.0.0.1, this machine only; 0.0.0.0 for a Prometheus "
                    + "server elsewhere: the meters carry queue names, no job data, and no token is asked).")
    String metricsBind;

    @Option(names = "--max-jobs", paramLabel = "N",
            description = "Exit 0 after this many jobs have finished (completed or failed); no job starts after "
                    + "that (one leased meanwhile is handed back).")
    Long maxJobs;

    /** The longest lease: a crashed worker's jobs come back when their leases expire, so not days later. */
    static final Duration MAX_LEASE = Duration.ofHours(24);
    /** The longest retry delay: a job retried months later is a job forgotten. */
    static final Duration MAX_BACKOFF = Duration.ofDays(30);
    /** The longest --shutdown-grace. */
    static final Duration MAX_RUN = Duration.ofDays(30);
    /** The most --max-stalls (the core's bound). */
    static final int MAX_STALLS = 1000;

    @Override
    public Integer call() throws InterruptedException {
        // Everything that needs no Redis is checked first, so bad input never waits for a connection.
        RetryPolicy policy = policy();
        if (exec.isBlank()) {
            throw new IllegalArgumentException("--exec is empty: give the shell command to run for each job");
        }
        if (exitWhenIdle != null) {
            DurationText.check("--exit-when-idle", exitWhenIdle, Duration.ofMillis(1), DurationText.MAX);
        }
        if (maxJobs != null && maxJobs < 1) {
            throw new IllegalArgumentException("--max-jobs is " + maxJobs + ": it must be at least 1");
        }
        WorkMetricsEndpoint endpoint = WorkMetricsEndpoint.of(metricsPort, metricsBind);
        // With --max-jobs, never lease more jobs than may still run: the rest would only be handed back.
        int slots = maxJobs != null ? (int) Math.min(concurrency, maxJobs) : concurrency;
        int claim = maxJobs != null ? (int) Math.min(batch, maxJobs) : batch;

        RedisTarget target = main.target();
        if (target.passwordInArgs()) {
            main.err().println("delayq: warning: the Redis password in --redis is visible to other users in process "
                    + "listings (ps) while the worker runs: use --redis-password-file FILE or $"
                    + RedisTarget.PASSWORD_ENV + " instead");
        }
        WorkActivity activity = new WorkActivity(main.verbose ? main.err() : null);
        CliTracing tracing = main.tracing(); // before the client: its workers trace their attempts when OTEL_* asks
        ExecHandler handler = new ExecHandler(exec, jobTimeout, target.secrets(), main.out(), main.err(), activity, tracing);
        JobQueue q = main.client().queue(queue, main.partitions());
        Worker.Builder builder = Worker.builder(q, handler).concurrency(slots).batchSize(claim).leaseDuration(lease)
                .retryPolicy(policy).shutdownGrace(shutdownGrace).metrics(endpoint.metrics(activity)).listener(activity);
        LimitedExecutor limited = maxJobs != null ? new LimitedExecutor(slots, activity::finishedRuns, maxJobs) : null;
        if (limited != null) {
            builder.executor(limited);
        }
        Worker worker = builder.build();
        String unknown = main.warnIfUnknown(queue, false); // after the settings were checked: bad ones come first
        endpoint.start(); // before the worker: a port in use stops the command before any job is claimed
        // The start line comes first: once the worker starts, a job may fail, and its warning be logged, at once.
        main.err().printf("delayq: working on queue '%s'%s: concurrency %d, lease %s, Redis %s, %s%s%s%s%n", queue,
                main.prefix().equals("dq") ? "" : " (prefix '" + main.prefix() + "')", slots, DurationText.format(lease),
                target.display(), handler.isolation(),
                jobTimeout != null ? ", job timeout " + DurationText.format(jobTimeout) : "",
                endpoint.url() != null ? ", metrics " + endpoint.url() : "",
                unknown != null ? "; the queue is not known yet (see the warning above)" : "");
        main.err().flush();
        worker.start();
        // Idleness counts from here, not from the JVM's start: connecting and loading classes can take seconds
        // on a busy machine, and a claim issued just as the idle limit ran out would be cut short.
        activity.touch(0, 0);
        // The JVM runs this on SIGTERM and Ctrl-C; on a normal exit it is removed and the same steps run below.
        java.util.concurrent.atomic.AtomicBoolean stopped = new java.util.concurrent.atomic.AtomicBoolean();
        Thread hook = new Thread(() -> {
            int left = stop(worker, handler, limited, activity, endpoint, true, stopped);
            if (Main.standalone()) {
                // Stopped gracefully by a signal: exit 0 (3 if outcomes were left unacknowledged) rather than with
                // the signal's status, which shells report as "Terminated" and scripts as a failure.
                Main.halt(left > 0 ? Exit.REDIS : Exit.OK, main);
            }
        }, "delayq-work-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        if (main.verbose) {
            main.err().printf("delayq: worker %s on queue '%s': concurrency %d, lease %s, %d attempts, backoff %s to %s%n",
                    worker.name(), queue, slots, DurationText.format(lease), maxAttempts,
                    DurationText.format(backoffBase), DurationText.format(backoffCap));
        }
        main.err().flush();
        boolean idle;
        int unacknowledged;
        try {
            idle = activity.awaitStop(exitWhenIdle, maxJobs, worker::inFlight);
        } finally {
            unacknowledged = stop(worker, handler, limited, activity, endpoint, false, stopped);
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
            // Claims that fail (Redis down) also look idle: exit 0 only if every claim succeeded and Redis answers
            // now, so that a script's "drain, then exit" never reports success while the queue could not be read.
            long failed = activity.failedClaims();
            if (failed > 0) {
                throw new CliException(Exit.REDIS, failed + " claim(s) failed during the run (Redis at "
                        + main.client().server() + " unreachable or refusing; see the log above): the queue may still "
                        + "hold due jobs this worker could not claim");
            }
            q.inspector().stats();
        }
        return Exit.OK;
    }

    /** The retry policy of the options, checked with messages in the command line's own units. */
    private RetryPolicy policy() {
        DurationText.check("--lease", lease, Duration.ofMillis(100), MAX_LEASE);
        DurationText.check("--backoff-base", backoffBase, Duration.ofMillis(1), MAX_BACKOFF);
        DurationText.check("--backoff-cap", backoffCap, Duration.ofMillis(1), MAX_BACKOFF);
        if (backoffCap.compareTo(backoffBase) < 0) {
            throw new IllegalArgumentException("--backoff-cap " + DurationText.format(backoffCap)
                    + " is shorter than --backoff-base " + DurationText.format(backoffBase) + ": the cap must be at least the base");
        }
        DurationText.check("--shutdown-grace", shutdownGrace, Duration.ZERO, MAX_RUN);
        if (jobTimeout != null) {
            Validation.jobTimeout("--job-timeout", jobTimeout); // the core's rule, as for a job's own timeout
        }
        if (maxStalls < 0 || maxStalls > MAX_STALLS) {
            throw new IllegalArgumentException("--max-stalls is " + maxStalls + ": it must be between 0 and " + MAX_STALLS);
        }
        return RetryPolicy.builder().maxAttempts(maxAttempts).base(backoffBase).cap(backoffCap).maxStalls(maxStalls)
                .build();
    }

    /**
     * Closes the worker gracefully, once (a signal and the normal end may both ask) and prints the summary line;
     * returns how many of its jobs Redis has not acknowledged (0 normally).
     */
    private int stop(Worker worker, ExecHandler handler, LimitedExecutor limited, WorkActivity activity,
                     WorkMetricsEndpoint endpoint, boolean signalled, java.util.concurrent.atomic.AtomicBoolean stopped) {
        if (!stopped.compareAndSet(false, true)) {
            return worker.inFlight();
        }
        if (signalled && worker.inFlight() > 0) {
            main.err().printf("delayq: stopping: letting running jobs finish (up to %s), then handing back the rest%n",
                    DurationText.format(shutdownGrace));
            main.err().flush();
        }
        worker.close();
        handler.stopAll();
        if (limited != null) {
            limited.shutdown();
        }
        // Worker.close() can return while the outcome of a job that finished during the grace period is still
        // on its way to Redis (it may judge the acknowledger idle just before the outcome reaches it). Exiting
        // then would leave that job processing until its lease expires and run it twice: wait for in-flight
        // jobs to be acknowledged, bounded by the Redis timeout.
        activity.awaitDrained(worker::inFlight, main.timeout().plusSeconds(5));
        endpoint.close(); // after the last outcome: a final scrape during the grace period still sees it
        main.tracing().close(); // the spans still buffered, exported before a signal's halt
        main.err().println("delayq: worker stopped: " + activity.summary());
        main.err().flush();
        return worker.inFlight();
    }
}
