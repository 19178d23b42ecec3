package dev.delayq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.DelayQ;
import dev.delayq.Job;
import dev.delayq.JobEvent;
import dev.delayq.JobQueue;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * A rate limit across three worker processes (the packaged command line): 500 jobs at 50 per second never exceed 50 in
 * any one-second window by Redis's clock, and take about ten seconds. Runs after package (failsafe).
 */
class FlowControlIT extends PackagedJarTest {
    private Process cli(String name, String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--redis", redis.uri()));
        return start(name, List.of(), Map.of(), all.toArray(String[]::new));
    }

    @Test
    void aRateLimitHoldsAcrossThreeWorkerProcesses() throws Exception {
        Process limit = cli("limit", "limit", "mail", "--rate", "50/1s", "--create");
        assertThat(limit.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(limit.exitValue()).isZero();
        try (DelayQ dq = DelayQ.builder().redis(redis.uri()).prefix(PREFIX).build()) {
            JobQueue q = dq.queue("mail");
            q.inspector().events(10_000);
            List<Process> workers = new ArrayList<>();
            for (int w = 0; w < 3; w++) {
                workers.add(cli("worker-" + w, "work", "mail", "--exec", "true", "--concurrency", "20"));
            }
            try {
                List<Job> jobs = new ArrayList<>();
                for (int i = 0; i < 500; i++) {
                    jobs.add(Job.builder().id("m" + i).build());
                }
                q.enqueueAll(jobs);
                Awaitility.await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200))
                        .until(() -> q.inspector().stats().done() == 500);
            } finally {
                workers.forEach(Process::destroy);
                for (Process p : workers) {
                    p.waitFor(30, TimeUnit.SECONDS);
                }
            }
            List<Long> handedOut = q.inspector().events().read("0", 10_000).stream().filter(e -> e.type().equals("started"))
                    .map(JobEvent::fields).map(f -> Long.parseLong(f.get("at"))).sorted().toList();
            assertThat(handedOut).hasSize(500);
            int most = 0;
            for (long end : handedOut) {
                int inWindow = (int) handedOut.stream().filter(at -> at > end - 1000 && at <= end).count();
                most = Math.max(most, inWindow);
            }
            long span = handedOut.get(499) - handedOut.get(0);
            System.out.printf("rate limit 50/1s over 3 worker processes: 500 jobs handed out over %d ms, at most %d in any "
                    + "one-second window%n", span, most);
            assertThat(most).as("jobs handed out in the busiest one-second window").isLessThanOrEqualTo(50);
            assertThat(span).as("500 jobs at 50 per second take at least nine seconds").isGreaterThanOrEqualTo(9_000);
        }
    }
}
