package dev.delayq.cli;

import dev.delayq.DelayQ;
import dev.delayq.JobQueue;
import dev.delayq.QueueInspector;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/**
 * The {@code delayq} command. Global options may stand before or after the subcommand. Every error a
 * user can cause prints one line on stderr (the stack trace only with {@code --verbose}) and exits
 * non-zero: 1 for a negative answer, 2 for invalid input, 3 when Redis is unreachable or unsafe.
 */
@Command(name = "delayq", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
        description = "A delayed job queue on Redis: enqueue and inspect jobs, run workers, serve the dashboard.",
        subcommands = {
                EnqueueCommand.class,
                WorkCommand.class,
                StatsCommand.class,
                QueuesCommand.class,
                WorkersCommand.class,
                JobCommand.class,
                ListCommand.class,
                CancelCommand.class,
                DeleteCommand.class,
                LimitCommand.class,
                PauseCommand.class,
                PauseCommand.Resume.class,
                ScheduleCommand.class,
                EventsCommand.class,
                RescheduleCommand.class,
                RetryCommand.class,
                PurgeCommand.class,
                CheckCommand.class,
                AclCommand.class,
                DashboardCommand.class,
                CommandLine.HelpCommand.class,
        },
        footer = {"", "Examples:",
                "  ./delayq demo                                 # see it work, on a private Redis (the launcher)",
                "  delayq enqueue orders --id order-731:timeout --delay 30m --payload '{\"order\":731}'",
                "  delayq work orders --exec './handle-order.sh' --concurrency 8",
                "  delayq stats orders --json",
                "", "Exit status: 0 ok, 1 negative answer (e.g. check found problems), 2 invalid input, 3 Redis unreachable."})
public final class Main implements Callable<Integer> {
    static final String DEFAULT_REDIS = "redis://127.0.0.1:6379";

    @Option(names = "--redis", scope = ScopeType.INHERIT, paramLabel = "URL",
            description = "Redis server: redis://[user:password@]host:port[/db], rediss:// (TLS), or "
                    + "redis-sentinel://host:port[,host:port]#master (Sentinel). "
                    + "Default: $DELAYQ_REDIS_URL, else " + DEFAULT_REDIS + ".")
    String redis;

    @Option(names = "--prefix", scope = ScopeType.INHERIT, paramLabel = "PREFIX", defaultValue = "dq",
            description = "Key prefix (default: ${DEFAULT-VALUE}).")
    String prefix;

    @Option(names = "--json", scope = ScopeType.INHERIT, description = "Print data as JSON (one object per line).")
    boolean json;

    @Option(names = "--timeout", scope = ScopeType.INHERIT, paramLabel = "DUR", defaultValue = "10s",
            converter = Durations.DurationConverter.class,
            description = "Fail a Redis call that takes longer than this (default: ${DEFAULT-VALUE}).")
    Duration timeout;

    @Option(names = "--verbose", scope = ScopeType.INHERIT, description = "Show stack traces of errors.")
    boolean verbose;

    @Option(names = "--cluster", scope = ScopeType.INHERIT,
            description = "--redis names a node of a Redis Cluster: use the cluster client (it discovers the other "
                    + "nodes and follows failovers).")
    boolean cluster;

    @Option(names = "--partitions", scope = ScopeType.INHERIT, paramLabel = "N",
            description = "Partitions of the queue when it is first used (recorded in Redis; later uses find it). "
                    + "Default: as recorded, else 1.")
    int partitions;

    @Option(names = "--tls-ca", scope = ScopeType.INHERIT, paramLabel = "FILE",
            description = "For rediss:// servers signed by a private CA: trust the CA certificates in this PEM file.")
    java.nio.file.Path tlsCa;

    @Option(names = "--allow-eviction", scope = ScopeType.INHERIT,
            description = "Accept a Redis whose maxmemory-policy evicts keys (jobs can then be lost).")
    boolean allowEviction;

    @Option(names = "--redis-password-file", scope = ScopeType.INHERIT, paramLabel = "FILE",
            description = "Read the Redis password from the first line of this file, so that it is not in the command "
                    + "line (a user name may stay in the URL: redis://user@host:port). Default: $"
                    + RedisTarget.PASSWORD_ENV + ", else the password in the URL.")
    java.nio.file.Path passwordFile;

    @Option(names = "--max-payload", scope = ScopeType.INHERIT, paramLabel = "BYTES", converter = Bytes.Converter.class,
            description = "Largest payload accepted, in bytes; 512k or 4m also work (default: 256k = 262144, "
                    + "at most 256m).")
    Integer maxPayload;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    private DelayQ client;
    private RedisTarget target;
    /** The command's environment: the process's, or a test's (in-process runs). */
    private java.util.Map<String, String> env = System.getenv();
    private CliTracing tracing = CliTracing.OFF;
    private boolean processStreams;
    private final java.util.Map<String, java.util.Optional<String>> queueWarnings = new java.util.HashMap<>();

    /**
     * The server and credentials: --redis, else $DELAYQ_REDIS_URL, else the local default; the password from
     * --redis-password-file, else $DELAYQ_REDIS_PASSWORD, else the URL. Checked (exit 2) before any connection.
     */
    public RedisTarget target() {
        if (target == null) {
            target = RedisTarget.resolve(redis, passwordFile, DEFAULT_REDIS, System.getenv());
            if (tlsCa != null && !target.url().tls()) {
                throw new CliException(Exit.USAGE, "--tls-ca is for TLS connections, but " + target.source() + " "
                        + target.display() + " is not one: use rediss://host:port (or rediss-sentinel://) to encrypt "
                        + "the traffic, or leave out --tls-ca");
            }
        }
        return target;
    }

    /**
     * {@code text} with every secret the command line knows masked: credentials in URLs, the password given in
     * any way. Every message the CLI prints goes through this.
     */
    public String redact(String text) {
        java.util.List<String> secrets = new java.util.ArrayList<>(RedisTarget.secretsOf(redis));
        secrets.addAll(RedisTarget.secretsOf(System.getenv(RedisTarget.URL_ENV)));
        String envPassword = System.getenv(RedisTarget.PASSWORD_ENV);
        if (envPassword != null && !envPassword.isBlank()) {
            secrets.add(envPassword);
        }
        if (target != null) {
            secrets.addAll(target.secrets());
        }
        return RedisTarget.redact(text, secrets);
    }

    /** The largest payload accepted: --max-payload, else the client's default. */
    public int maxPayloadBytes() {
        return maxPayload != null ? maxPayload : dev.delayq.Bounds.DEFAULT_MAX_PAYLOAD;
    }

    /** How a message about the payload limit ends: the limit and how to raise it. */
    public String payloadLimitHint() {
        return "the payload limit is " + Bytes.describe(maxPayloadBytes()) + "; raise it with --max-payload BYTES "
                + "(up to 256m)";
    }

    /** Whether --redis was given on the command line. */
    public boolean redisGiven() {
        return redis != null;
    }

    public String prefix() {
        return prefix;
    }

    public boolean json() {
        return json;
    }

    public Duration timeout() {
        return timeout;
    }

    public boolean verbose() {
        return verbose;
    }

    public boolean allowEviction() {
        return allowEviction;
    }

    /** The client, connected on first use and closed when the command ends. */
    public DelayQ client() {
        if (client == null) {
            client = tracing.apply(builder("delayq-cli")).build();
        }
        return client;
    }

    /** The command's environment variables. */
    java.util.Map<String, String> env() {
        return env;
    }

    /**
     * Tracing for this command (enqueue and work ask, before they use the client): on when an {@code OTEL_*} variable
     * is set ({@link CliTracing}), else off; closed with the client.
     */
    CliTracing tracing() {
        if (tracing == CliTracing.OFF && client == null && CliTracing.requested(env)) {
            tracing = CliTracing.of(env);
        }
        return tracing;
    }

    /** A client builder with every global setting applied (server, credentials, TLS, timeout, limits). */
    public DelayQ.Builder builder(String clientName) {
        return target().apply(DelayQ.builder()).cluster(cluster).prefix(prefix).timeout(timeout)
                .tlsTrustedCertificates(tlsCa).allowEvictingMemoryPolicy(allowEviction)
                .maxPayloadBytes(maxPayloadBytes()).clientName(clientName);
    }

    /**
     * A queue of the client, with the --partitions given (or as recorded in Redis). When the queue is not in the
     * prefix's registry, prints a one-line warning on stderr (once per name) and the command goes on.
     */
    public JobQueue queue(String name) {
        return queue(name, false);
    }

    /** The operator's view of the queue {@code name}, as {@link #queue(String)} opens it. */
    public QueueInspector inspector(String name) {
        return queue(name).inspector();
    }

    /**
     * As {@link #queue(String)}; with {@code onlyIfSimilar} (enqueue, which creates queues) the warning is printed
     * only when a known queue has a similar name.
     */
    public JobQueue queue(String name, boolean onlyIfSimilar) {
        JobQueue q = client().queue(name, partitions);
        warnIfUnknown(name, onlyIfSimilar);
        return q;
    }

    /**
     * The queue a command changes a setting of ({@code pause}, {@code resume}, {@code limit}, {@code events}), or reads
     * one of: one that is not in the prefix's registry is refused (exit 2) before anything is written, naming the known
     * queues. A setting stays in Redis whether the queue exists or not, so a mistyped name would otherwise leave it
     * behind for a queue nobody uses, and a queue created later under that name would start with it (paused, limited).
     * Even opening a queue writes (its partition count is recorded on first use), so an unknown one is never opened.
     * With {@code create} the queue is recorded in the registry first and the command goes on.
     *
     * @param refused how the refusal ends, after the known queues: what was not done and how --create does it
     */
    public JobQueue knownQueue(String name, boolean create, String refused) {
        dev.delayq.internal.base.Validation.queueName(name); // an invalid name is told as such, not as an unknown one
        if (create) {
            JobQueue q = client().createQueue(name, partitions);
            queueWarnings.put(name, java.util.Optional.empty());
            return q;
        }
        String unknown = KnownQueues.warning(client(), name, false);
        if (unknown != null) {
            throw new CliException(Exit.USAGE, unknown + (unknown.endsWith("?") ? " " : ". ") + refused);
        }
        queueWarnings.put(name, java.util.Optional.empty());
        return client().queue(name, partitions);
    }

    /**
     * Prints {@code delayq: warning: queue 'X' is not known under prefix ...} on stderr, once per name, when the
     * queue is not in the prefix's registry; returns the warning, or {@code null}.
     */
    public String warnIfUnknown(String name, boolean onlyIfSimilar) {
        if (!queueWarnings.containsKey(name)) {
            String warning;
            try {
                warning = KnownQueues.warning(client(), name, onlyIfSimilar);
            } catch (dev.delayq.DelayQException e) {
                throw e;
            } catch (RuntimeException e) {
                warning = null; // an unreadable registry must not stop the command itself
            }
            queueWarnings.put(name, java.util.Optional.ofNullable(warning));
            if (warning != null) {
                err().println("delayq: warning: " + warning);
                err().flush();
            }
        }
        return queueWarning(name);
    }

    /** The warning printed about {@code name} by {@link #queue(String)}, or {@code null}. */
    public String queueWarning(String name) {
        return queueWarnings.getOrDefault(name, java.util.Optional.empty()).orElse(null);
    }

    /** The --partitions given, 0 when none. */
    public int partitions() {
        return partitions;
    }

    /** Whether --cluster was given. */
    public boolean cluster() {
        return cluster;
    }

    public PrintWriter out() {
        return spec.commandLine().getOut();
    }

    public PrintWriter err() {
        return spec.commandLine().getErr();
    }

    void closeClient() {
        if (client != null) {
            client.close();
            client = null;
        }
        tracing.close(); // after the client: the spans of its last calls are exported
    }

    @Override
    public Integer call() {
        spec.commandLine().usage(out());
        return Exit.USAGE;
    }

    /** Whether this JVM runs the command line as its program (not a test running it in-process). */
    private static volatile boolean standalone;

    /** Whether this JVM runs the command line as its program, so that a command may decide its exit status. */
    static boolean standalone() {
        return standalone;
    }

    /** Whether this command prints to the process's own stdout and stderr (not to streams a test captures). */
    public boolean standaloneStreams() {
        return standalone && processStreams;
    }

    /**
     * Ends the JVM now with {@code code}, after flushing every output: for a shutdown hook (a signal), which
     * otherwise ends with the signal's status.
     */
    static void halt(int code, Main main) {
        main.out().flush();
        main.err().flush();
        System.out.flush();
        System.err.flush();
        Runtime.getRuntime().halt(code);
    }

    public static void main(String[] args) {
        launch(args);
    }

    /**
     * Runs the command line as this JVM's program, with {@code more} commands besides its own (the harness module adds
     * {@code demo} and {@code bench}), and exits with its status.
     */
    public static void launch(String[] args, Class<?>... more) {
        standalone = true;
        int code = run(args, System.out, System.err, more);
        System.out.flush();
        System.err.flush();
        System.exit(code);
    }

    /**
     * Runs the command line with these streams and returns the exit status (used by tests, in-process); {@code more}
     * are picocli commands added beside the command line's own, each with {@code @ParentCommand Main} for the global
     * options and the client.
     */
    public static int run(String[] args, PrintStream out, PrintStream err, Class<?>... more) {
        return run(args, out, err, System.getenv(), more);
    }

    /** As {@link #run(String[], PrintStream, PrintStream, Class[])}, with {@code env} as the environment (tests). */
    static int run(String[] args, PrintStream out, PrintStream err, java.util.Map<String, String> env, Class<?>... more) {
        Main main = new Main();
        main.env = env;
        main.processStreams = out == System.out && err == System.err;
        CommandLine cl = new CommandLine(main);
        for (Class<?> c : more) {
            cl.addSubcommand(c);
        }
        PrintWriter o = new PrintWriter(new java.io.OutputStreamWriter(out, StandardCharsets.UTF_8), true);
        PrintWriter e = new PrintWriter(new java.io.OutputStreamWriter(err, StandardCharsets.UTF_8), true);
        cl.setOut(o).setErr(e);
        HelpLayout.apply(cl);
        cl.setExecutionExceptionHandler((ex, line, parsed) -> Failures.report(ex, line, main));
        cl.setParameterExceptionHandler((ex, args2) -> {
            CommandLine c = ex.getCommandLine();
            c.getErr().println("delayq: " + main.redact(Suggestions.message(ex)));
            c.getErr().println("Try '" + c.getCommandSpec().qualifiedName() + " --help' for usage and examples.");
            return Exit.USAGE;
        });
        try {
            return cl.execute(args);
        } finally {
            main.closeClient();
            o.flush();
            e.flush();
        }
    }

    /** Prints the version of the jar. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = Main.class.getPackage().getImplementationVersion();
            return new String[] {"delayq " + (v != null ? v : "development build"), "Java " + Runtime.version()};
        }
    }
}
