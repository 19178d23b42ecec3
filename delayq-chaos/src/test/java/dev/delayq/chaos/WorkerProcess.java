package dev.delayq.chaos;

import dev.delayq.JobListener.Outcome;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;

/**
 * A worker process of the fault suite: the real command line, {@code delayq work QUEUE --exec ... --verbose},
 * in its own JVM. Its exec command appends each run's start and side effect, with the job id, the token, the
 * incarnation and the times, to a shared sink file ({@link Sink}); with {@code --verbose} it logs what Redis recorded
 * for each run (accepted or refused, with the token). It is started, SIGKILLed, SIGSTOPped and SIGCONTed by its own
 * PID only; each incarnation ({@code <name>-<n>}) logs to its own file.
 */
final class WorkerProcess implements AutoCloseable {
    /** {@code completed|retry_scheduled|dead|refused|handed_back <id> attempt <a>/<max> token <token>}. */
    private static final Pattern OUTCOME =
            Pattern.compile("^(completed|retry_scheduled|dead|refused|handed_back) (\\S+) attempt \\d+/\\d+ token (\\d+)$");

    /**
     * The worker's warning for a run whose lease was lost, logged once per run by whichever part of the worker learnt it
     * first (a refused renewal, a lease run out before the job could start, a refused outcome): docs/logging.md.
     */
    private static final Pattern LEASE_LOST =
            Pattern.compile("job lease lost: queue=\\S+ id=(\\S+) name=.*? attempt=\\d+/\\d+ token=(\\d+) reason=");

    private final String name;
    private final List<String> command;
    private final Path dir;
    private final List<Path> logs = new ArrayList<>();
    /** Incarnations SIGKILLed, with when (on the sink's clock, {@link Sink#nowMs()}, once the process was gone). */
    private final Map<String, Long> killedAtMs = new HashMap<>();
    private Process process;
    private int incarnation;

    /**
     * @param name  a short name for log files
     * @param dir   where logs go
     * @param redis the Redis URI
     * @param prefix key prefix
     * @param queue queue name
     * @param sink  the sink file every run appends its start and side effect to
     * @param extra further {@code work} options (--lease, --concurrency, ...)
     */
    WorkerProcess(String name, Path dir, String redis, String prefix, String queue, Path sink, List<String> extra) {
        this(name, dir, redis, prefix, queue, sink, "", extra);
    }

    /** As above; {@code shellBefore} runs in each job's shell before its side effect (e.g. {@code sleep 0.2;}). */
    WorkerProcess(String name, Path dir, String redis, String prefix, String queue, Path sink, String shellBefore,
                  List<String> extra) {
        this(name, dir, redis, prefix, queue, sink, shellBefore, "", extra);
    }

    /** As above; {@code shellAfter} runs after the side effect and gives the run's exit status (see {@link Sink}). */
    WorkerProcess(String name, Path dir, String redis, String prefix, String queue, Path sink, String shellBefore,
                  String shellAfter, List<String> extra) {
        this.name = name;
        this.dir = dir;
        String java = ProcessHandle.current().info().command().orElse("java");
        command = new ArrayList<>(List.of(java, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx256m",
                "-cp", System.getProperty("java.class.path"), "dev.delayq.cli.Main",
                "--redis", redis, "--prefix", prefix, "--verbose", "work", queue,
                "--exec", Sink.command(sink, shellBefore, shellAfter)));
        command.addAll(extra);
    }

    /** Starts a new incarnation and waits until its worker runs. */
    WorkerProcess start() {
        launch();
        awaitReady();
        return this;
    }

    private void awaitReady() {
        Process p = process;
        Path log = logs.get(logs.size() - 1);
        // A JVM booting beside a loaded machine's other builds can take long; a start that never comes says why.
        try {
            Awaitility.await("worker " + name + " started").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(50))
                    .until(() -> {
                        if (!p.isAlive()) {
                            throw new IllegalStateException("worker " + name + " exited " + p.exitValue() + ": " + read(log));
                        }
                        return ready();
                    });
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new IllegalStateException("worker " + name + " did not start within 120 s (alive: " + p.isAlive()
                    + "); its output so far:\n" + read(log), e);
        }
    }

    /** Starts every worker's first incarnation at once (their JVMs boot side by side), then waits until all run. */
    static void startAll(List<WorkerProcess> workers) {
        workers.forEach(WorkerProcess::launch);
        for (WorkerProcess w : workers) {
            w.awaitReady();
        }
    }

    /** Sends SIGTERM to every worker at once (their graceful shutdowns overlap), then waits for each to exit. */
    static void stopAll(List<WorkerProcess> workers) {
        workers.forEach(WorkerProcess::requestStop);
        workers.forEach(WorkerProcess::awaitStop);
    }

    /** Starts a new incarnation without waiting for it (see {@link #ready()}). */
    void launch() {
        String incarnationName = name + "-" + (incarnation++);
        Path log = dir.resolve(incarnationName + ".log");
        logs.add(log);
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().put("CHAOS_WORKER", incarnationName); // the exec command names its worker in the sink
        try {
            process = pb.start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Whether the current incarnation is alive and its worker has started. */
    boolean ready() {
        return isAlive() && read(logs.get(logs.size() - 1)).contains("delayq: worker ");
    }

    /** The current incarnation's name, as the sink names it ({@code <name>-<n>}). */
    String incarnation() {
        return name + "-" + (incarnation - 1);
    }

    /** The process id of the current incarnation. */
    long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process != null && process.isAlive();
    }

    /** SIGKILL: no shutdown hook, no hand-back; its leases are left to expire. */
    void kill() {
        if (process != null && process.isAlive()) {
            process.destroyForcibly();
            try {
                if (!process.waitFor(30, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("worker " + name + " (pid " + pid() + ") survived SIGKILL");
                }
                killedAtMs.put(name + "-" + (incarnation - 1), Sink.nowMs());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    /** SIGSTOP: the JVM freezes (no renewals, no completions) until {@link #resume()}. */
    void pause() {
        signal("STOP");
    }

    /** SIGCONT. */
    void resume() {
        signal("CONT");
    }

    private void signal(String sig) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + sig, Long.toString(pid())).inheritIO().start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + sig + " " + pid() + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** SIGTERM (graceful: the worker hands back what it cannot finish) and waits for the exit. */
    void stop() {
        requestStop();
        awaitStop();
    }

    private void requestStop() {
        if (isAlive()) {
            process.destroy();
        }
    }

    /** Waits for the exit a SIGTERM asked for; SIGKILL after 60 s. */
    private void awaitStop() {
        if (process != null && process.isAlive()) {
            try {
                if (!process.waitFor(60, TimeUnit.SECONDS)) {
                    kill();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    /** The incarnations SIGKILLed so far ({@code <name>-<n>}, as the sink names them), with when (see {@link Sink}). */
    Map<String, Long> killedAtMs() {
        return Map.copyOf(killedAtMs);
    }

    /** Every outcome line of every incarnation so far, as runs without times. */
    List<Checker.Run> outcomes() {
        List<Checker.Run> runs = new ArrayList<>();
        for (Path log : logs) {
            for (String line : read(log).split("\n")) {
                Matcher m = OUTCOME.matcher(line.strip());
                if (m.matches()) {
                    runs.add(new Checker.Run(m.group(2), Long.parseLong(m.group(3)), -1, -1,
                            Outcome.valueOf(m.group(1).toUpperCase(Locale.ROOT))));
                }
            }
        }
        return runs;
    }

    /**
     * Jobs (id, token) this worker leased but did not start because the lease had run out before it could
     * (it was paused past it): the worker refused them itself, as Redis would have refused their outcome. They are the
     * runs whose lost lease it logged and of which no outcome followed: a run that starts ends with an outcome line
     * (a refused one when its lease was lost), whereas one that never started has none.
     */
    List<String[]> notStarted() {
        java.util.Set<String> ended = new java.util.HashSet<>();
        for (Checker.Run r : outcomes()) {
            ended.add(r.id() + " " + r.token());
        }
        List<String[]> out = new ArrayList<>();
        for (Path log : logs) {
            Matcher m = LEASE_LOST.matcher(read(log));
            while (m.find()) {
                if (!ended.contains(m.group(1) + " " + m.group(2))) {
                    out.add(new String[] {m.group(1), m.group(2)});
                }
            }
        }
        return out;
    }

    /** Every line of every incarnation's log that names job {@code id} (as a word), for a failure message. */
    List<String> logLinesNaming(String id) {
        Pattern word = Pattern.compile("(^|[\\s=])" + Pattern.quote(id) + "($|\\s)");
        List<String> lines = new ArrayList<>();
        for (Path log : logs) {
            for (String line : read(log).split("\n")) {
                if (word.matcher(line).find()) {
                    lines.add(line.strip());
                }
            }
        }
        return lines;
    }

    /** The logs, for a failure message. */
    String logTail() {
        if (logs.isEmpty()) {
            return "";
        }
        String s = read(logs.get(logs.size() - 1));
        return s.substring(Math.max(0, s.length() - 4000));
    }

    private static String read(Path log) {
        try {
            return Files.readString(log, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    @Override
    public void close() {
        kill();
    }
}
