package dev.delayq.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@link JobProcesses#stop}'s last resort: when the wrapper itself does not end its job's group in time (here it is
 * frozen with SIGSTOP), the worker SIGKILLs the wrapper and the whole group from Java.
 */
class JobProcessesTest {
    @Test
    void aGroupWhoseWrapperDoesNotEndItIsKilledFromTheWorker() throws Exception {
        JobProcesses processes = JobProcesses.detect();
        assumeTrue(processes.mode() != JobProcesses.Mode.NONE, "setsid is not installed: no process groups to end");
        Process wrapper = new ProcessBuilder(processes.command("sleep 600 & sleep 600")).start();
        try {
            // The wrapper's child is the group's leader; the group holds it and the two sleeps.
            ProcessHandle leader = await().atMost(Duration.ofSeconds(10))
                    .until(() -> wrapper.children().findFirst(), Optional::isPresent).orElseThrow();
            await().atMost(Duration.ofSeconds(10)).until(() -> leader.descendants().count() >= 1);
            List<ProcessHandle> group = new java.util.ArrayList<>(leader.descendants().toList());
            group.add(leader);
            signal("STOP", wrapper.pid()); // the wrapper can no longer end its group: stop() must do it

            processes.stop(List.of(wrapper));

            assertThat(wrapper.waitFor(10, TimeUnit.SECONDS)).as("the frozen wrapper was killed").isTrue();
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                    assertThat(group).as("the job's group").noneMatch(ProcessHandle::isAlive));
        } finally {
            wrapper.destroyForcibly();
        }
    }

    private static void signal(String sig, long pid) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + sig, Long.toString(pid)).inheritIO().start();
        assertThat(kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0).as("kill -%s %d", sig, pid).isTrue();
    }
}
