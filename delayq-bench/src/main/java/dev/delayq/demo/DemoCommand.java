package dev.delayq.demo;

import dev.delayq.DelayQ;
import dev.delayq.cli.Durations;
import dev.delayq.cli.Exit;
import dev.delayq.cli.Main;
import dev.delayq.cli.RedisTarget;
import dev.delayq.internal.base.Validation;
import dev.delayq.internal.present.DurationText;
import dev.delayq.testkit.RedisServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/** {@code delayq demo}: the system at work, on a private Redis unless one is given. */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = {"Show delayq at work on a private Redis and report what happened.",
                "It enqueues jobs due over the next seconds (some at the very same millisecond), runs several workers, "
                        + "makes some jobs fail and retry and a few die, and kills one worker with SIGKILL mid-run. "
                        + "Exits 0 only when nothing was lost and nothing was claimed twice.",
                "Without --redis it starts a private Redis and stops it afterwards; with --redis it works under a "
                        + "unique key prefix and deletes its keys afterwards. The progress line is redrawn in place "
                        + "only on a terminal."},
        footer = {"", "Examples:", "  delayq demo", "  delayq demo --jobs 50000 --workers 6 --spread 10s",
                "  delayq demo --redis redis://localhost:6379"})
public final class DemoCommand implements Callable<Integer> {
    @ParentCommand
    Main main;

    @Option(names = "--jobs", paramLabel = "N", defaultValue = "10000", description = "Jobs to enqueue (default: ${DEFAULT-VALUE}).")
    int jobs;

    @Option(names = "--workers", paramLabel = "N", defaultValue = "4",
            description = "Workers, one of which is killed mid-run (default: ${DEFAULT-VALUE}).")
    int workers;

    @Option(names = "--spread", paramLabel = "DUR", defaultValue = "5s", converter = Durations.DurationConverter.class,
            description = "Jobs fall due over this long, starting a second after enqueue (default: ${DEFAULT-VALUE}).")
    Duration spread;

    @Override
    public Integer call() throws Exception {
        Validation.range("--jobs", jobs, 10, 1_000_000);
        Validation.range("--workers", workers, 2, 64);
        DurationText.check("--spread", spread, Duration.ZERO, Duration.ofMinutes(10));
        if (!main.verbose()) {
            // The demo's dead jobs are expected; keep the worker's per-job warnings out of the report.
            System.setProperty("org.slf4j.simpleLogger.log.dev.delayq", "error");
        }
        RedisTarget given = main.redisGiven() ? main.target() : null; // checked before a server is started
        RedisServer server = given == null ? RedisServer.start() : null;
        String prefix = server != null ? main.prefix() : "dq-demo-" + Long.toString(ThreadLocalRandom.current().nextLong() >>> 1, 36);
        String where = server != null ? "private redis-server on port " + server.port() + ", stopped afterwards"
                : given.display() + " under prefix " + prefix + ", deleted afterwards";
        Path tmp = Files.createTempDirectory("delayq-demo-");
        DelayQ.Builder builder = server != null ? DelayQ.builder().redis(server.uri()) : main.builder("delayq-demo");
        try (DelayQ dq = builder.prefix(prefix).timeout(main.timeout())
                .allowEvictingMemoryPolicy(main.allowEviction()).clientName("delayq-demo").build()) {
            main.err().printf("delayq demo: %,d jobs due over %.1f s, %d workers, Redis: %s%n", jobs, spread.toMillis() / 1000.0,
                    workers, where);
            long start = System.nanoTime();
            DemoReport report = new DemoRun(dq, server != null ? server.uri() : given.clientUri(),
                    given, prefix, jobs, workers, spread, main.err(), dev.delayq.cli.Terminal.stderr(main)).run(tmp);
            double seconds = (System.nanoTime() - start) / 1e9 - 1.0; // jobs fall due from one second after enqueue
            report.print(main.out(), where, Math.max(seconds, 0.001));
            if (server == null) {
                dq.deleteAll();
            }
            return report.passed() ? Exit.OK : Exit.FAILED;
        } finally {
            if (server != null) {
                server.close();
            }
            try (Stream<Path> files = Files.walk(tmp)) {
                files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }
}
