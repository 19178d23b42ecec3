package dev.delayq.bench;

import dev.delayq.cli.CliException;
import dev.delayq.cli.Durations;
import dev.delayq.cli.Exit;
import dev.delayq.cli.Main;
import dev.delayq.internal.present.DurationText;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code delayq bench}: runs the benchmark workloads of docs/WORKLOADS.md against a private
 * Redis (or, with {@code --redis}, under a unique prefix that is deleted afterwards), repeats each, and prints
 * one table of medians with min – max, or one JSON object per workload.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = {
                "Benchmark delayq: enqueue and drain rates, dispatch lag, Redis load when busy and idle, memory per "
                        + "job, claims beside a million scheduled jobs, and the ceiling Redis allows on this machine.",
                "",
                "It runs on a private redis-server it starts itself ($DELAYQ_REDIS_URL is ignored). With --redis it "
                        + "uses that server under a unique key prefix, deleted afterwards (never FLUSHALL); commands/s "
                        + "and memory then include other clients' activity.",
                "",
                "Workloads (defined in docs/WORKLOADS.md):",
                "  w1     burst: 20,000 jobs due at first enqueue + 3 s: enqueue and drain jobs/s, lag p50/p99/max,",
                "         duplicates, missing",
                "  w2     trickle: 2,000 jobs due over 10 s: lag, Redis commands/s",
                "  w3     idle: consumers with nothing to do for 10 s: Redis commands/s",
                "  w4     memory: 100,000 jobs due in 1 h: Redis bytes per job",
                "  w5     scale: drain of 20,000 due jobs beside 10,000 and beside 1,000,000 jobs scheduled for",
                "         later, and the ratio of the two (per repetition; the median of those ratios is shown)",
                "  w6     large payloads: 10,000 jobs of 10 KB due at first enqueue + 3 s: enqueue and drain MB/s",
                "         and jobs/s, lag, Redis CPU per job (the byte cost of every state change)",
                "  limit  Redis's ceiling: EVALSHA of 'return 1', and a minimal Lua claim of 100 due members per",
                "         call, 1,000 calls in flight",
                "",
                "Rates and lags are medians of --reps repetitions, with min - max beside; duplicates and missing "
                        + "are totals. Exits 1 when a job ran twice or never. On a terminal a progress line is "
                        + "redrawn on stderr; otherwise a plain progress line is printed every 10 s.",
                ""},
        footer = {"", "Examples:",
                "  delayq bench                                # all workloads, 3 reps (minutes)",
                "  delayq bench --workload w1,limit --reps 5",
                "  delayq bench --scale 0.05 --reps 1 --json   # a smoke run of seconds",
                "  delayq bench --workload w2 --lookahead 50ms"})
public final class BenchCommand implements Callable<Integer> {
    /** Every workload, in the order they run. */
    static final List<String> NAMES = List.of("w1", "w2", "w3", "w4", "w5", "w6", "limit");

    @ParentCommand
    Main main;

    @Option(names = "--workload", split = ",", paramLabel = "W",
            description = "Workloads to run, comma-separated: w1, w2, w3, w4, w5, w6, limit (default: all).")
    List<String> workloads;

    @Option(names = "--reps", paramLabel = "N", defaultValue = "3",
            description = "Repetitions of each workload (default: ${DEFAULT-VALUE}).")
    int reps;

    @Option(names = "--warmup", paramLabel = "N", defaultValue = "1",
            description = "Unmeasured repetitions of w1, w2 and w6 before their measured ones, as JMH's warm-up "
                    + "iterations: the JIT compiles the paths each workload takes before they are timed (default: "
                    + "${DEFAULT-VALUE}; 0: only the one burst of 10,000 jobs before w1, w5 and w6). Their duplicates "
                    + "and missing jobs still fail the run.")
    int warmup;

    /** The workloads that --warmup repeats unmeasured first: those whose figures are timings of the client's paths. */
    private static final Set<String> WARMED = Set.of("w1", "w2", "w6", "w1-cluster");

    @Option(names = "--consumers", paramLabel = "N", defaultValue = "4",
            description = "Workers in this JVM, each with its own connection (default: ${DEFAULT-VALUE}).")
    int consumers;

    /** Jobs of the unmeasured burst that runs before the throughput workloads. */
    private static final int WARMUP_JOBS = 10_000;

    @Option(names = "--concurrency", paramLabel = "N", defaultValue = "100",
            description = "Handlers running at once per worker (default: ${DEFAULT-VALUE}).")
    int concurrency;

    @Option(names = "--batch", paramLabel = "N", defaultValue = "100",
            description = "Most jobs leased per claim (default: ${DEFAULT-VALUE}).")
    int batch;

    @Option(names = "--lookahead", paramLabel = "DUR", defaultValue = "50ms", converter = Durations.DurationConverter.class,
            description = "The workers' lookahead: lease jobs this much before they are due (default: ${DEFAULT-VALUE}, the worker's own default).")
    Duration lookahead;

    @Option(names = "--done-retention", paramLabel = "DUR", defaultValue = "1h", converter = Durations.DurationConverter.class,
            description = "How long the workers keep a completed job (the client's doneRetention; default: ${DEFAULT-VALUE}, "
                    + "the client's own default). 0s deletes each job as it completes, as BullMQ's removeOnComplete: true does.")
    Duration doneRetention;

    @Option(names = "--scale", paramLabel = "F", defaultValue = "1",
            description = "Multiply every workload's job counts and durations by F (durations keep a short floor); "
                    + "e.g. 0.02 for a smoke run of seconds (default: ${DEFAULT-VALUE}).")
    double scale;

    @Option(names = "--flow", description = "Give the queues of w1, w2, w5 and w6 a rate limit (1,000,000 jobs/s) and a "
            + "concurrency limit (1,000,000 leases) that never bind, and their event stream (10,000 entries): what flow "
            + "control and events cost, against a run without.")
    boolean flow;

    @Option(names = "--trace", description = "Trace every enqueue and every attempt with OpenTelemetry (an SDK that "
            + "samples every span and exports them to nowhere, through a batch span processor): what tracing costs, "
            + "against a run without.")
    boolean trace;

    @Option(names = "--no-progress", description = "Do not show the progress line on stderr.")
    boolean noProgress;

    @Override
    public Integer call() throws Exception {
        List<Workload> selected = select(workloads);
        BenchConfig config = config();
        Progress progress = new Progress(main.err(), !noProgress, dev.delayq.cli.Terminal.stderr(main));
        Report report;
        int partitions = main.partitions() > 0 ? main.partitions() : CLUSTER_PARTITIONS;
        if (main.cluster()) {
            if (main.redisGiven()) {
                throw new IllegalArgumentException("bench --cluster starts its own local cluster of " + CLUSTER_MASTERS
                        + " masters: it does not take --redis");
            }
            if (workloads != null && !selected.stream().allMatch(w -> w.name().equals("w1"))) {
                throw new IllegalArgumentException("bench --cluster runs w1 only (beside the same w1 on a single node)");
            }
            selected = List.of(new BurstWorkload());
        }
        try (BenchTarget target = main.redisGiven() ? BenchTarget.external(main.target(), main.prefix(), config)
                : BenchTarget.privateServer(main.prefix(), main.timeout())) {
            report = new Report(environment(target), config, reps);
            run(selected, new BenchContext(config, target, progress), progress, report);
        } finally {
            if (trace) {
                BenchTracing.close();
            }
        }
        if (main.cluster()) {
            // The same burst on a private cluster, its queue split so that every master holds partitions.
            BenchConfig clustered = config.withPartitions(partitions);
            try (BenchTarget target = BenchTarget.privateCluster(main.prefix(), main.timeout(), CLUSTER_MASTERS)) {
                report.note(String.format("w1-cluster: a private %d-master Redis Cluster on loopback, the queue in %d "
                        + "partitions; on %d shared cores the masters compete with the client for CPU, so the cluster cannot "
                        + "show a speed-up here: Redis CPU us/job (summed over the masters) is what scales with masters",
                        CLUSTER_MASTERS, partitions, Runtime.getRuntime().availableProcessors()));
                run(List.of(new ClusterBurstWorkload()), new BenchContext(clustered, target, progress), progress, report);
            }
        }
        progress.clear();
        if (main.json()) {
            report.printJson(main.out());
        } else {
            report.printTable(main.out());
        }
        main.out().flush();
        List<String> failures = report.failures();
        if (!failures.isEmpty()) {
            throw new CliException(Exit.FAILED, "failed run: " + String.join("; ", failures));
        }
        return Exit.OK;
    }

    /** Masters of the cluster that bench --cluster starts. */
    private static final int CLUSTER_MASTERS = 3;
    /** Partitions of the burst queue on that cluster, unless --partitions says otherwise. */
    private static final int CLUSTER_PARTITIONS = 6;

    private void run(List<Workload> selected, BenchContext ctx, Progress progress, Report report) throws InterruptedException {
        BenchTarget target = ctx.target();
        BenchConfig config = ctx.config();
        try {
            if (selected.stream().anyMatch(w -> w.name().startsWith("w1") || w.name().equals("w5")
                    || w.name().equals("w6"))) {
                // One unmeasured burst first, as JMH warms up: otherwise the first repetitions measure the JIT
                // compiling the client, not delayq.
                progress.phase("warm-up", 1, 1);
                Burst.run(ctx, "warmup", "warmup-", config.count(WARMUP_JOBS), "warm-up");
                target.reset();
            }
            for (Workload w : selected) {
                int warm = WARMED.contains(w.name()) ? warmup : 0;
                for (int rep = 1; rep <= warm; rep++) {
                    progress.phase(w.name() + " warm-up", rep, warm);
                    progress.show("preparing");
                    target.reset();
                    report.warmedUp(w, w.run(ctx));
                }
                for (int rep = 1; rep <= reps; rep++) {
                    progress.phase(w.name(), rep, reps);
                    progress.show("preparing");
                    target.reset();
                    report.add(w, w.run(ctx), config);
                }
            }
        } finally {
            progress.clear();
        }
    }

    /**
     * The workloads named, in the order given, each once; all when none is named.
     *
     * @throws IllegalArgumentException naming the valid workloads
     */
    static List<Workload> select(List<String> names) {
        Set<String> wanted = new LinkedHashSet<>();
        for (String n : names == null || names.isEmpty() ? NAMES : names) {
            String name = n.trim().toLowerCase(java.util.Locale.ROOT);
            if (!NAMES.contains(name)) {
                throw new IllegalArgumentException("unknown workload '" + n + "': valid workloads are "
                        + String.join(", ", NAMES));
            }
            wanted.add(name);
        }
        List<Workload> out = new ArrayList<>();
        for (String name : wanted) {
            out.add(switch (name) {
                case "w1" -> new BurstWorkload();
                case "w2" -> new TrickleWorkload();
                case "w3" -> new IdleWorkload();
                case "w4" -> new MemoryWorkload();
                case "w5" -> new ScaleWorkload();
                case "w6" -> new LargeBurstWorkload();
                default -> new LimitWorkload();
            });
        }
        return out;
    }

    private BenchConfig config() {
        range("--reps", reps, 1, 100);
        range("--warmup", warmup, 0, 10);
        range("--consumers", consumers, 1, 64);
        range("--concurrency", concurrency, 1, 10_000);
        range("--batch", batch, 1, 1_000);
        if (!(scale > 0 && scale <= 10)) {
            throw new IllegalArgumentException("--scale is " + scale + ": it must be above 0 and at most 10");
        }
        // The workers' lease is 30 s and the lookahead must stay under half of it.
        if (lookahead.isNegative() || lookahead.compareTo(Duration.ofSeconds(15)) >= 0) {
            throw new IllegalArgumentException("--lookahead is " + DurationText.format(lookahead)
                    + ": it must be at least 0s and under 15s");
        }
        DurationText.check("--done-retention", doneRetention, Duration.ZERO, DurationText.MAX);
        return new BenchConfig(consumers, concurrency, batch, lookahead, scale, main.timeout(), main.allowEviction(), 1,
                doneRetention, flow, trace);
    }

    private static void range(String option, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(option + " is " + value + ": it must be " + min + " to " + max);
        }
    }

    private static Report.Environment environment(BenchTarget target) {
        String started = ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm'Z'"));
        String server = target.isPrivate() ? "private" : target.probe().server();
        return new Report.Environment(started, System.getProperty("java.version"), target.probe().version(), server,
                cpuModel().orElse(System.getProperty("os.arch")), Runtime.getRuntime().availableProcessors());
    }

    /** The "model name" of /proc/cpuinfo (Linux), when there is one. */
    static Optional<String> cpuModel() {
        Path info = Path.of("/proc/cpuinfo");
        if (!Files.isReadable(info)) {
            return Optional.empty();
        }
        try (Stream<String> lines = Files.lines(info)) {
            return lines.filter(l -> l.startsWith("model name"))
                    .map(l -> l.substring(l.indexOf(':') + 1).trim())
                    .filter(s -> !s.isEmpty())
                    .findFirst();
        } catch (IOException | java.io.UncheckedIOException e) {
            return Optional.empty();
        }
    }
}
