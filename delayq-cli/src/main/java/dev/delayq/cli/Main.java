package dev.delayq.cli;

import dev.delayq.DelayQ;
import dev.delayq.DelayQConfigurationException;
import dev.delayq.DelayQConnectionException;
import dev.delayq.DelayQTimeoutException;
import dev.delayq.JobQueue;
import dev.delayq.cli.bench.BenchCommand;
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
        description = "A delayed job queue on Redis: run the demo, enqueue and inspect jobs, run workers, benchmark.",
        subcommands = {
                dev.delayq.cli.demo.DemoCommand.class,
                EnqueueCommand.class,
                WorkCommand.class,
                StatsCommand.class,
                QueuesCommand.class,
                JobCommand.class,
                ListCommand.class,
                CancelCommand.class,
                RescheduleCommand.class,
                RetryCommand.class,
                PurgeCommand.class,
                CheckCommand.class,
                DashboardCommand.class,
                BenchCommand.class,
                CommandLine.HelpCommand.class,
        },
        footer = {"", "Examples:",
                "  delayq demo                                   # see it work, on a private Redis",
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

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    private DelayQ client;

    /** The Redis URL: --redis, else $DELAYQ_REDIS_URL, else the local default. */
    public String redisUrl() {
        if (redis != null) {
            return redis;
        }
        String env = System.getenv("DELAYQ_REDIS_URL");
        return env != null && !env.isBlank() ? env : DEFAULT_REDIS;
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
            client = DelayQ.builder().redis(redisUrl()).cluster(cluster).prefix(prefix).timeout(timeout)
                    .tlsTrustedCertificates(tlsCa).allowEvictingMemoryPolicy(allowEviction).clientName("delayq-cli").build();
        }
        return client;
    }

    /** A queue of the client, with the --partitions given (or as recorded in Redis). */
    public JobQueue queue(String name) {
        return client().queue(name, partitions);
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
    }

    @Override
    public Integer call() {
        spec.commandLine().usage(out());
        return Exit.USAGE;
    }

    public static void main(String[] args) {
        int code = run(args, System.out, System.err);
        System.out.flush();
        System.err.flush();
        System.exit(code);
    }

    /** Runs the command line with these streams and returns the exit status (used by tests, in-process). */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        Main main = new Main();
        CommandLine cl = new CommandLine(main);
        PrintWriter o = new PrintWriter(new java.io.OutputStreamWriter(out, StandardCharsets.UTF_8), true);
        PrintWriter e = new PrintWriter(new java.io.OutputStreamWriter(err, StandardCharsets.UTF_8), true);
        cl.setOut(o).setErr(e);
        cl.setExecutionExceptionHandler((ex, line, parsed) -> report(ex, line, main));
        cl.setParameterExceptionHandler((ex, args2) -> {
            CommandLine c = ex.getCommandLine();
            c.getErr().println("delayq: " + ex.getMessage());
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

    private static int report(Exception ex, CommandLine line, Main main) {
        PrintWriter err = line.getErr();
        Throwable e = ex;
        while (e instanceof java.util.concurrent.CompletionException && e.getCause() != null) {
            e = e.getCause();
        }
        int code;
        String message;
        if (e instanceof CliException ce) {
            code = ce.exitCode();
            message = ce.getMessage();
        } else if (e instanceof IllegalArgumentException) {
            code = Exit.USAGE;
            message = e.getMessage();
        } else if (e instanceof DelayQConnectionException || e instanceof DelayQTimeoutException
                || e instanceof DelayQConfigurationException) {
            code = Exit.REDIS;
            message = e.getMessage();
        } else {
            code = Exit.FAILED;
            message = e.getMessage() == null ? e.toString() : e.getMessage();
        }
        err.println("delayq: " + message);
        if (main.verbose) {
            e.printStackTrace(err);
        }
        err.flush();
        return code;
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
