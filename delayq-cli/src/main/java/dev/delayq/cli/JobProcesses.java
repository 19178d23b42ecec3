package dev.delayq.cli;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

/**
 * How a job's command is started and ended. Where util-linux's {@code setsid} is installed (every common
 * Linux), the command runs under a small shell wrapper ({@code job-wrapper.sh}) in a session and process
 * group of its own, and the whole group, background children included, is ended when the job ends (SIGTERM,
 * then SIGKILL after a grace). The wrapper gets SIGTERM when the worker dies, even by SIGKILL: from the kernel
 * (a parent-death signal set by {@code setpriv --pdeathsig}) where {@code setpriv} has that option, else from a
 * watchdog in the job's group that checks every second whether the worker still runs. Without {@code setsid}
 * the command runs as {@code sh -c} in the worker's group and only its descendants still known when it is
 * stopped are ended (an orphaned background process escapes).
 */
final class JobProcesses {
    /** Between SIGTERM and SIGKILL when a job's processes are ended. */
    static final long GRACE_MS = 2000;
    /** Set to {@code off} to run without process groups, {@code watchdog} to use the watchdog (tests). */
    static final String MODE_PROPERTY = "delayq.exec.isolation";

    /** How commands are isolated. */
    enum Mode {
        /** A process group per job, ended by the kernel's parent-death signal when the worker dies. */
        GROUP_PDEATHSIG,
        /** A process group per job, ended by a watchdog when the worker dies. */
        GROUP_WATCHDOG,
        /** No process group: {@code sh -c} in the worker's group. */
        NONE
    }

    private static final String WRAPPER = loadWrapper();

    private final Mode mode;

    private JobProcesses(Mode mode) {
        this.mode = mode;
    }

    /** Finds what this machine offers (looks for setsid and setpriv on the PATH, once). */
    static JobProcesses detect() {
        String forced = System.getProperty(MODE_PROPERTY, "");
        if (forced.equals("off") || onPath("setsid") == null) {
            return new JobProcesses(Mode.NONE);
        }
        if (forced.equals("watchdog") || !pdeathsigWorks()) {
            return new JobProcesses(Mode.GROUP_WATCHDOG);
        }
        return new JobProcesses(Mode.GROUP_PDEATHSIG);
    }

    Mode mode() {
        return mode;
    }

    /** A short description for the worker's start line. */
    String describe() {
        return switch (mode) {
            case GROUP_PDEATHSIG -> "a process group per job";
            case GROUP_WATCHDOG -> "a process group per job (watchdog)";
            case NONE -> "no process groups (setsid not found)";
        };
    }

    /** The wrapper script as the job's {@code sh -c} runs it (without its comment lines). */
    static String wrapper() {
        return WRAPPER;
    }

    /** The command line that runs {@code script} (a shell command) as a job. */
    List<String> command(String script) {
        List<String> cmd = new ArrayList<>();
        if (mode == Mode.NONE) {
            cmd.addAll(List.of("sh", "-c", script));
            return cmd;
        }
        if (mode == Mode.GROUP_PDEATHSIG) {
            cmd.addAll(List.of("setpriv", "--pdeathsig", "TERM"));
        }
        cmd.addAll(List.of("sh", "-c", WRAPPER, "delayq-job", script,
                mode == Mode.GROUP_WATCHDOG ? Long.toString(ProcessHandle.current().pid()) : "",
                Long.toString(GRACE_MS / 100)));
        return cmd;
    }

    /**
     * Ends a running job's processes: SIGTERM to the wrapper, which ends the job's group (SIGTERM, SIGKILL after
     * {@link #GRACE_MS}); if the wrapper itself does not end in time, SIGKILL to it and to the group. Without
     * process groups, SIGTERM to the command and its descendants, then SIGKILL.
     */
    void stop(List<Process> processes) {
        if (processes.isEmpty()) {
            return;
        }
        List<ProcessHandle> all = new ArrayList<>();
        java.util.Map<Process, List<Long>> groups = new java.util.HashMap<>();
        for (Process p : processes) {
            // Listed before anything dies: an orphan is no longer anyone's descendant.
            p.descendants().forEach(all::add);
            all.add(p.toHandle());
            // The wrapper's child is the session leader: its pid is the group's id.
            groups.put(p, p.children().map(ProcessHandle::pid).collect(Collectors.toList()));
        }
        if (mode == Mode.NONE) {
            all.forEach(ProcessHandle::destroy);
        } else {
            processes.forEach(Process::destroy); // each wrapper ends its group
        }
        long margin = mode == Mode.NONE ? 0 : 3000; // the wrapper's own grace, then some
        boolean interrupted = awaitExit(processes.stream().map(Process::toHandle).collect(Collectors.toList()),
                GRACE_MS + margin);
        if (mode == Mode.NONE) {
            all.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
        } else {
            for (Process p : processes) {
                if (p.isAlive()) {
                    // The wrapper did not end its group in time: end it from here. (The group of a wrapper that
                    // ended by itself is gone, and its id may be free again: it must not be signalled.)
                    p.destroyForcibly();
                    groups.get(p).forEach(JobProcesses::killGroup);
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private static boolean awaitExit(List<ProcessHandle> handles, long ms) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
        for (ProcessHandle h : handles) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            try {
                h.onExit().get(left, TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                return true;
            } catch (ExecutionException | TimeoutException e) {
                return false;
            }
        }
        return false;
    }

    /**
     * SIGKILL to every process of group {@code pgid} (a no-op when none is left), by the shell's own {@code kill} in
     * the form the wrapper uses: busybox's {@code kill} (Alpine) refuses the {@code --} that other kills take.
     */
    private static void killGroup(long pgid) {
        try {
            Process kill = new ProcessBuilder("sh", "-c", "kill -KILL \"-$1\"", "sh", Long.toString(pgid))
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            kill.waitFor(GRACE_MS, TimeUnit.MILLISECONDS);
        } catch (IOException e) {
            // no shell to run kill: the wrapper (a shell script) was the only way, and it was given its chance
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Whether {@code setpriv --pdeathsig} works here (util-linux 2.33 or newer). */
    private static boolean pdeathsigWorks() {
        if (onPath("setpriv") == null) {
            return false;
        }
        try {
            Process p = new ProcessBuilder("setpriv", "--pdeathsig", "TERM", "true")
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The executable {@code name} on the PATH, or {@code null}. */
    static File onPath(String name) {
        String path = System.getenv("PATH");
        if (path == null) {
            return null;
        }
        for (String dir : path.split(File.pathSeparator)) {
            File f = new File(dir.isEmpty() ? "." : dir, name);
            if (f.isFile() && f.canExecute()) {
                return f;
            }
        }
        return null;
    }

    /** The wrapper without its comment lines (it shows in process listings). */
    private static String loadWrapper() {
        try (InputStream in = JobProcesses.class.getResourceAsStream("job-wrapper.sh")) {
            if (in == null) {
                throw new IllegalStateException("job-wrapper.sh is missing from the jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines()
                    .filter(l -> !l.stripLeading().startsWith("#") && !l.isBlank())
                    .collect(Collectors.joining("\n"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
