package dev.delayq.cli;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Runs the command line in-process and captures what it printed. */
final class Cli {
    /** What one run printed and returned. */
    record Result(int exit, String out, String err) {
        List<String> lines() {
            return out.isEmpty() ? List.of() : Arrays.asList(out.split("\n"));
        }
    }

    private final List<String> global = new ArrayList<>();
    private java.util.Map<String, String> env;

    /** A runner that adds {@code --redis uri --prefix prefix} to every call. */
    Cli(String redisUri, String prefix) {
        global.addAll(List.of("--redis", redisUri, "--prefix", prefix));
    }

    /** This runner with {@code env} as the commands' environment variables (instead of the process's). */
    Cli env(java.util.Map<String, String> env) {
        Cli c = new Cli(global.get(1), global.get(3));
        c.env = env;
        return c;
    }

    Result run(String... args) {
        return run(new ByteArrayInputStream(new byte[0]), args);
    }

    /** Runs with {@code stdin} as the process's standard input (the commands read {@code System.in}). */
    Result run(InputStream stdin, String... args) {
        return start(stdin, args).await(Duration.ofMinutes(2));
    }

    /** Starts a run in the background, so that a test can watch its output and feed its stdin while it runs. */
    Running start(InputStream stdin, String... args) {
        List<String> all = new ArrayList<>(Arrays.asList(args));
        all.addAll(global);
        Running r = new Running();
        r.result = CompletableFuture.supplyAsync(() -> {
            InputStream before = System.in;
            System.setIn(stdin);
            try {
                PrintStream out = new PrintStream(r.out, true, StandardCharsets.UTF_8);
                PrintStream err = new PrintStream(r.err, true, StandardCharsets.UTF_8);
                return env == null ? Main.run(all.toArray(new String[0]), out, err)
                        : Main.run(all.toArray(new String[0]), out, err, env);
            } finally {
                System.setIn(before);
            }
        }, task -> { // its own thread: the common pool may have a single thread on a small machine
            Thread t = new Thread(task, "cli-run");
            t.setDaemon(true);
            t.start();
        });
        return r;
    }

    /** A run in progress. */
    static final class Running {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();
        private final ByteArrayOutputStream err = new ByteArrayOutputStream();
        private CompletableFuture<Integer> result;

        /** What it has printed on stdout so far. */
        String out() {
            synchronized (out) {
                return out.toString(StandardCharsets.UTF_8);
            }
        }

        /** What it has printed on stderr so far. */
        String err() {
            synchronized (err) {
                return err.toString(StandardCharsets.UTF_8);
            }
        }

        /** Whether it has ended. */
        boolean done() {
            return result.isDone();
        }

        /** Waits for the end, at most {@code limit} (a hung command fails the test instead of hanging it). */
        Result await(Duration limit) {
            int code;
            try {
                code = result.get(limit.toMillis(), TimeUnit.MILLISECONDS);
            } catch (Exception e) {
                throw new AssertionError("the command did not end within " + limit + "; stderr so far: "
                        + err.toString(StandardCharsets.UTF_8), e);
            }
            return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        }
    }
}
