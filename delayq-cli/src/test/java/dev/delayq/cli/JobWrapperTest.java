package dev.delayq.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The job wrapper ({@code job-wrapper.sh}) run as {@link JobProcesses} runs it, {@code sh -c WRAPPER delayq-job
 * COMMAND WORKER_PID GRACE}, with and without the watchdog, under the system's {@code sh} and, where it is
 * installed, busybox's (the shell, {@code kill} and tools of Alpine images). Real processes, read in /proc.
 *
 * <p>A zombie in the job's group must not keep the wrapper waiting: {@code kill -0} on the group succeeds while
 * one is there, and one whose parent is gone stays for good where PID 1 does not reap orphans (a container whose
 * PID 1 is the JVM). The tests make one that stays on any machine: its parent leaves the group ({@code setsid})
 * and lives on without reaping it. With a grace of 30 s, a wrapper that waits for zombies takes 30 s; one that
 * does not ends in well under the 10 s allowed. Under busybox the cases also hold the wrapper to busybox's
 * {@code kill}, which refuses the {@code --} that dash needs before a negative pid (it used to end no group).
 */
class JobWrapperTest {
    private static final Duration DEADLINE = Duration.ofSeconds(10);
    private static final int LONG_GRACE = 300; // tenths of a second
    /**
     * Leaves in the job's group a zombie whose parent has left the group and lives on without reaping it; waits until
     * the parent is out of the group (it writes to the FIFO {@code ready} only after setsid). The child (deaf to the
     * group's SIGTERM) exits only once its parent opens the FIFO {@code z} as it execs {@code sleep 600}: a child that
     * ended while its parent was still a shell could be reaped by that shell (busybox's does so on SIGCHLD).
     */
    private static final String ZOMBIE = "mkfifo ready z; ((trap '' TERM; : < z) & echo $! > zombie.pid; "
            + "exec setsid sh -c 'echo $$ > ready; exec sleep 600 3>z') & read parent < ready; echo \"$parent\" > parent.pid; "
            + "cat /proc/$$/stat > job.stat; ";
    private static final List<String> BUSYBOX_TOOLS = List.of("sh", "setsid", "grep", "sleep", "kill", "cat", "mkfifo");

    private static String wrapper;

    @TempDir
    Path dir;

    /** A shell to run the wrapper under, and whether the watchdog runs (the worker's pid given). */
    record Shell(String name, boolean watchdog) {
        @Override
        public String toString() {
            return name + (watchdog ? ", watchdog" : "");
        }
    }

    static Stream<Shell> shells() {
        return Stream.of(new Shell("sh", false), new Shell("sh", true), new Shell("busybox", false),
                new Shell("busybox", true));
    }

    static Stream<Shell> watchdogShells() {
        return shells().filter(Shell::watchdog);
    }

    @BeforeAll
    static void linuxWithSetsid() {
        assumeTrue(Files.isReadable(Path.of("/proc/self/stat")), "reads /proc (Linux)");
        assumeTrue(onPath("setsid").isPresent(), "the wrapper needs setsid");
        wrapper = JobProcesses.wrapper(); // as JobProcesses runs it
    }

    @AfterEach
    void endWhatTheTestsLeft() {
        // The zombies' parents (sleep 600) and any process a failed test left.
        for (String file : List.of("parent.pid", "stubborn.pid", "job.pid")) {
            readPid(file).filter(pid -> arguments(pid).startsWith("sleep 60")).flatMap(ProcessHandle::of)
                    .ifPresent(ProcessHandle::destroyForcibly);
        }
    }

    /** A process's arguments as one line ({@code ProcessHandle.Info} names busybox's applets "busybox"). */
    private static String arguments(long pid) {
        try {
            return Files.readString(Path.of("/proc", Long.toString(pid), "cmdline")).replace('\0', ' ').strip();
        } catch (IOException e) {
            return "";
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("shells")
    void aGroupLeftWithOnlyAZombieIsNotWaitedFor(Shell shell) throws Exception {
        withZombie(() -> {
            Process wrapperProcess = start(shell, ZOMBIE + "exit 0", LONG_GRACE);
            assertThat(exitWithin(wrapperProcess, "the grace is 30 s")).isZero();
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("shells")
    void aStoppedJobWhoseGroupHoldsOnlyAZombieAfterSigtermIsNotWaitedFor(Shell shell) throws Exception {
        withZombie(() -> {
            Process wrapperProcess = start(shell, ZOMBIE + "echo $$ > job.pid; exec sleep 602", LONG_GRACE);
            await().atMost(DEADLINE).until(() -> readPid("job.pid").isPresent());
            wrapperProcess.destroy(); // SIGTERM, as the worker stops a job
            assertThat(exitWithin(wrapperProcess, "the grace is 30 s")).isEqualTo(143);
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("shells")
    void aProcessThatIgnoresSigtermIsKilledAfterTheGraceThoughTheGroupAlsoHoldsAZombie(Shell shell) throws Exception {
        // It ignores SIGTERM before it says so: the wrapper's SIGTERM cannot end it, only SIGKILL.
        String stubborn = "mkfifo armed; (trap '' TERM; echo > armed; exec sleep 601) & echo $! > stubborn.pid; "
                + "read x < armed; exit 0";
        withZombie(() -> {
            long start = System.nanoTime();
            Process wrapperProcess = start(shell, ZOMBIE + stubborn, 5);
            assertThat(exitWithin(wrapperProcess, "the grace is 0.5 s")).isZero();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("waited out the grace")
                    .isGreaterThanOrEqualTo(Duration.ofMillis(500));
            long pid = readPid("stubborn.pid").orElseThrow();
            await().atMost(DEADLINE).until(() -> stat(pid).map(s -> s.state() == 'Z').orElse(true));
        });
    }

    /** A test body that runs a job made with {@link #ZOMBIE}. */
    interface ZombieScenario {
        void run() throws Exception;
    }

    /**
     * Runs the scenario, then checks that its zombie fixture held. Rarely (seen once, in a whole-suite run of
     * 2026-12-01, under busybox) the zombie is found with PID 1 for its parent: the process that made it did not
     * live on (busybox's {@code setsid} forks and exits when its caller leads a process group; how the caller came
     * to lead one is not known). That is the fixture failing, not the wrapper, whose checks the scenario has already
     * passed: the scenario runs again, at most three times in all, and the third time the fixture's failure is
     * reported as it is.
     */
    private void withZombie(ZombieScenario scenario) throws Exception {
        for (int attempt = 1; ; attempt++) {
            scenario.run();
            long parent = readPid("parent.pid").orElseThrow();
            boolean held = stat(readPid("zombie.pid").orElseThrow()).map(z -> z.ppid() == parent).orElse(false);
            if (held || attempt == 3) {
                assertZombieOfTheJobsGroupWithItsParentAlive();
                return;
            }
            endWhatTheTestsLeft();
            for (String f : List.of("ready", "z", "zombie.pid", "parent.pid", "job.stat", "job.pid", "stubborn.pid", "armed")) {
                Files.deleteIfExists(dir.resolve(f));
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("watchdogShells")
    void theWatchdogLeavesNoProcessOfTheGroupBehindNotEvenAZombie(Shell shell) throws Exception {
        // At once (the watchdog is just starting) and after it has slept and looked a few times.
        for (String rest : List.of("exit 0", "sleep 1.5")) {
            Files.deleteIfExists(dir.resolve("job.stat"));
            Process wrapperProcess = start(shell, "cat /proc/$$/stat > job.stat; " + rest, LONG_GRACE);
            assertThat(exitWithin(wrapperProcess, "the grace is 30 s")).as(rest).isZero();
            long group = Stat.parse(Files.readString(dir.resolve("job.stat"))).pgrp();
            assertThat(processesOfGroup(group)).as("processes of group %d after '%s'", group, rest).isEmpty();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("shells")
    void aSigtermThatComesBeforeTheJobsGroupExistsStillStopsTheJob(Shell shell) throws Exception {
        // The job's leader is held just before its setsid: a setsid on PATH ahead of the real one waits on a FIFO.
        Path shim = dir.resolve("held-setsid");
        Files.createDirectories(shim);
        Files.writeString(shim.resolve("setsid"), "#!/bin/sh\necho $$ > leader.pid\nread go < go\n"
                + "PATH=${PATH#*" + File.pathSeparator + "} exec setsid \"$@\"\n");
        assertThat(shim.resolve("setsid").toFile().setExecutable(true)).isTrue();
        assertThat(new ProcessBuilder("mkfifo", "go").directory(dir.toFile()).start().waitFor()).isZero();
        Process wrapperProcess = start(shell, "echo $$ > job.pid; exec sleep 604", 5, shim);
        await().atMost(DEADLINE).until(() -> readPid("leader.pid").isPresent());
        long leader = readPid("leader.pid").orElseThrow();

        wrapperProcess.destroy(); // SIGTERM while the job's group does not exist yet
        // A wrapper that gave up on the group it could not find exits here, before the job starts.
        wrapperProcess.waitFor(1, TimeUnit.SECONDS);
        try (RandomAccessFile go = new RandomAccessFile(dir.resolve("go").toFile(), "rw")) { // O_RDWR: never blocks
            go.write("go\n".getBytes(StandardCharsets.US_ASCII));
        }

        assertThat(exitWithin(wrapperProcess, "stopped")).isEqualTo(143);
        await("the job's leader ended, its command never run").atMost(DEADLINE)
                .until(() -> stat(leader).map(s -> s.state() == 'Z').orElse(true));
        assertThat(readPid("job.pid")).as("the command started").isEmpty();
    }

    private void assertZombieOfTheJobsGroupWithItsParentAlive() throws IOException {
        long group = Stat.parse(Files.readString(dir.resolve("job.stat"))).pgrp();
        long parent = readPid("parent.pid").orElseThrow();
        long zombie = readPid("zombie.pid").orElseThrow();
        assertThat(stat(zombie)).as("the zombie").hasValueSatisfying(s -> {
            assertThat(s.state()).isEqualTo('Z');
            assertThat(s.pgrp()).isEqualTo(group);
            assertThat(s.ppid()).isEqualTo(parent);
        });
        assertThat(stat(parent)).as("its parent").hasValueSatisfying(s -> {
            assertThat(s.state()).isNotEqualTo('Z');
            assertThat(s.pgrp()).isNotEqualTo(group);
        });
    }

    private Process start(Shell shell, String command, int graceTenths) throws IOException {
        return start(shell, command, graceTenths, null);
    }

    /** As {@link #start(Shell, String, int)}, with {@code first} (when not null) first on the PATH. */
    private Process start(Shell shell, String command, int graceTenths, Path first) throws IOException {
        ProcessBuilder pb = new ProcessBuilder().directory(dir.toFile())
                .redirectOutput(dir.resolve("wrapper.out").toFile()).redirectError(dir.resolve("wrapper.err").toFile());
        String sh = "sh";
        if (shell.name().equals("busybox")) {
            Optional<Path> busybox = onPath("busybox");
            assumeTrue(busybox.isPresent(), "busybox is not installed");
            Path bin = dir.resolve("busybox-bin");
            if (!Files.isDirectory(bin)) {
                Files.createDirectories(bin);
                for (String tool : BUSYBOX_TOOLS) {
                    Files.createSymbolicLink(bin.resolve(tool), busybox.get());
                }
            }
            pb.environment().put("PATH", bin + File.pathSeparator + System.getenv("PATH"));
            sh = bin.resolve("sh").toString();
        }
        if (first != null) {
            pb.environment().put("PATH", first + File.pathSeparator + pb.environment().get("PATH"));
        }
        String worker = shell.watchdog() ? Long.toString(ProcessHandle.current().pid()) : "";
        pb.command(sh, "-c", wrapper, "delayq-job", command, worker, Integer.toString(graceTenths));
        Process p = pb.start();
        p.getOutputStream().close(); // the payload: none
        return p;
    }

    private int exitWithin(Process p, String why) throws Exception {
        if (!p.waitFor(DEADLINE.toMillis(), TimeUnit.MILLISECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("the wrapper still ran after " + DEADLINE.toSeconds() + " s (" + why + "); stderr: "
                    + Files.readString(dir.resolve("wrapper.err")));
        }
        return p.exitValue();
    }

    private Optional<Long> readPid(String file) {
        try {
            String text = Files.readString(dir.resolve(file)).strip();
            return text.isEmpty() ? Optional.empty() : Optional.of(Long.parseLong(text));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** State, parent and process group of a process, from /proc/PID/stat: the fields after the name's last ") ". */
    record Stat(char state, long ppid, long pgrp) {
        static Stat parse(String line) {
            String[] f = line.substring(line.lastIndexOf(") ") + 2).split(" ");
            return new Stat(f[0].charAt(0), Long.parseLong(f[1]), Long.parseLong(f[2]));
        }
    }

    private static Optional<Stat> stat(long pid) {
        try {
            return Optional.of(Stat.parse(Files.readString(Path.of("/proc", Long.toString(pid), "stat"))));
        } catch (IOException e) {
            return Optional.empty(); // gone
        }
    }

    /** Every process of {@code group}, zombies included, as "pid state". */
    private static List<String> processesOfGroup(long group) throws IOException {
        List<String> found = new ArrayList<>();
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            for (Path p : procs.filter(p -> p.getFileName().toString().matches("[0-9]+")).toList()) {
                try {
                    Stat s = Stat.parse(Files.readString(p.resolve("stat")));
                    if (s.pgrp() == group) {
                        found.add(p.getFileName() + " " + s.state());
                    }
                } catch (IOException | UncheckedIOException e) {
                    // ended while listed
                }
            }
        }
        return found;
    }

    private static Optional<Path> onPath(String name) {
        return Optional.ofNullable(JobProcesses.onPath(name)).map(File::toPath);
    }
}
