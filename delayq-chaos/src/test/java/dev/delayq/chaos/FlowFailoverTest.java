package dev.delayq.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.DelayQ;
import dev.delayq.DelayQException;
import dev.delayq.EnqueueResult;
import dev.delayq.Job;
import dev.delayq.JobQueue;
import dev.delayq.JobState;
import dev.delayq.NonRetryableException;
import dev.delayq.QueueStats;
import dev.delayq.Worker;
import dev.delayq.testkit.RedisCluster;
import dev.delayq.testkit.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Scenario 13b, flows across a cluster failover: the graph of scenario 13 ({@link FlowDag}) in one queue of a
 * 3-master, 3-replica Redis Cluster, run by three in-process workers, while the master holding the queue's slot is
 * SIGKILLed once a third of the jobs have ended and its replica promoted. The workers go on without a restart.
 *
 * <p>Replication is asynchronous: what the killed master acknowledged last may be missing on its replica (a lease, a
 * completion and the release it wrote, as for any job: RELIABILITY.md, scenario F), and that part of the history is
 * run again. So the history that survived is held to every flow invariant ({@link FlowInvariants}: the dead cascade
 * exactly as the graph implies, one {@code released} and one {@code completed} event per job in the promoted master's
 * stream, every child run under its final token started after its parents' final runs ended, nothing left waiting,
 * {@code check} clean), while a run, completion or overlap of a job that began before the cluster was healthy again
 * and is not under its final token is excused and counted, as ClusterFailoverTest (delayq-core) does. So is a job run
 * twice under one token: the promoted master's token counter misses the lost claims, so it grants their tokens again
 * (RELIABILITY.md, "What delayq does not promise").
 */
class FlowFailoverTest {
    private static final String QUEUE = "flow";
    private static final String PREFIX = "chaos";

    @Test
    void aDagRunAcrossAMasterFailoverReleasesEachChildOnceAfterAllItsParents() {
        int leaves = Chaos.size(1_000, 2_000);
        Duration spread = Chaos.time(Duration.ofSeconds(3), Duration.ofSeconds(6));
        FlowDag dag = FlowDag.of(leaves);
        Map<String, JobState> expected = dag.expected();
        int total = expected.size();
        Checker checker = new Checker("13b-flow-failover");
        long started = System.nanoTime();
        List<DelayQ> clients = new ArrayList<>();
        List<Worker> workers = new ArrayList<>();
        try (RedisCluster cluster = RedisCluster.start(3, 1, 1000)) {
            try {
                DelayQ producer = client(cluster);
                clients.add(producer);
                JobQueue q = producer.queue(QUEUE);
                q.inspector().events(1_000_000);
                dag.enqueue(q, checker, spread);
                assertThat(q.inspector().stats().waiting()).as("children waiting after the enqueue").isEqualTo(total - leaves);
                RedisServer victim = cluster.masterOf(cluster.slotOf(PREFIX + ":{" + QUEUE + "}:due"));
                RedisServer heir = cluster.replicas().get(cluster.masters().indexOf(victim));

                Set<String> failing = dag.failing();
                for (int w = 0; w < 3; w++) {
                    DelayQ c = client(cluster);
                    clients.add(c);
                    workers.add(Rig.worker(c.queue(QUEUE), checker, "flow-fo-" + w, 8, job -> {
                        // A few milliseconds of work, so that the kill finds leases held.
                        LockSupport.parkNanos(Duration.ofMillis(5).toNanos());
                        if (failing.contains(job.id())) {
                            throw new NonRetryableException("fails for good");
                        }
                    }).start());
                }
                Awaitility.await("a third of the jobs ended").atMost(Duration.ofSeconds(120))
                        .pollInterval(Duration.ofMillis(10)).until(() -> FlowInvariants.ended(q) >= total / 3);
                long endedAtKill = FlowInvariants.ended(q);
                long waitingAtKill = q.inspector().stats().waiting();
                long killedAt = System.nanoTime();
                victim.kill();
                cluster.awaitHealthy();
                long healthyAtMs = System.currentTimeMillis();
                long failoverMs = (System.nanoTime() - killedAt) / 1_000_000;

                Awaitility.await("drain").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200))
                        .until(() -> FlowInvariants.finished(q, total));
                workers.forEach(Worker::close);

                // Jobs with a run that began before the cluster was healthy again: its lease, completion or the release
                // before it may have been written only by the killed master.
                Set<String> exposed = new HashSet<>();
                checker.runs().stream().filter(r -> r.startMs() >= 0 && r.startMs() < healthyAtMs)
                        .forEach(r -> exposed.add(r.id()));
                Checker.Verdict verdict = checker.check(q, expected::get);
                FlowInvariants.Result flow = FlowInvariants.check(dag, q, checker.runs(),
                        r -> r.startMs() < healthyAtMs);
                List<String> duplicated = unexcused(verdict.duplicated(), exposed);
                List<String> stale = unexcused(verdict.staleAccepted(), exposed);
                List<String> overlaps = unexcused(verdict.overlaps(), exposed);
                // A claim lost with the killed master is made again by the promoted one: tokens count up from Redis's
                // clock in microseconds (claim.lua), so never under the same token, failover or not (FencingFailoverTest).
                List<String> twice = verdict.runTwice();
                long reissued = twice.size();
                long excusedEntries = verdict.duplicated().size() + verdict.staleAccepted().size() + verdict.overlaps().size()
                        - duplicated.size() - stale.size() - overlaps.size();
                QueueStats stats = q.inspector().stats();
                RedisServer promoted = cluster.masterOf(cluster.slotOf(PREFIX + ":{" + QUEUE + "}:due"));
                String line = verdict.line("jobs", total, "leaves", leaves, "children", total - leaves,
                        "failing", failing.size(), "dead_cascade", flow.cascaded(), "faults", "1xMasterSIGKILL",
                        "ended_at_kill", endedAtKill, "waiting_at_kill", waitingAtKill, "healthy_after_ms", failoverMs,
                        "recovered", flow.recovered(), "reruns", flow.reruns(), "runs_excused", flow.excused(),
                        "verdict_entries_excused", excusedEntries, "tokens_reissued", reissued, "releases", flow.releases(),
                        "order_checks", flow.orderChecks(), "waiting", stats.waiting(),
                        "flow_problems", flow.problems().size(),
                        "seconds", (System.nanoTime() - started) / 1_000_000_000L);
                assertThat(verdict.lost()).as(line).isEmpty();
                assertThat(verdict.unexpected()).as("completed jobs never enqueued").isEmpty();
                assertThat(duplicated).as("jobs completed by two lease holders, not explained by the failover (healthy at %d): %s",
                        healthyAtMs, runsOf(checker, duplicated)).isEmpty();
                assertThat(stale).as("stale completions accepted, not explained by the failover").isEmpty();
                assertThat(overlaps).as("two live leases at once, not explained by the failover").isEmpty();
                assertThat(twice).as("runs of a job under a token another run of it had: %s", runsOf(checker, twice))
                        .isEmpty();
                assertThat(verdict.checkProblems()).as("queue check problems").isEmpty();
                assertThat(flow.problems()).as(line).isEmpty();
                assertThat(promoted).as("the killed master's replica serves the queue").isSameAs(heir);
                assertThat(stats.waiting()).as("jobs still waiting").isZero();
                assertThat(q.inspector().list(JobState.WAITING, 0, 10)).as("waiting jobs listed").isEmpty();
                assertThat(stats.done() + stats.dead()).as("jobs ended").isEqualTo(total);
                assertThat(endedAtKill).as("jobs ended when the master was killed").isLessThan(total);
                assertThat(waitingAtKill).as("children waiting for their parents when the master was killed").isPositive();
                assertThat(flow.cascaded()).as("jobs dead of a dead parent").isPositive();
                assertThat(flow.orderChecks()).as("child runs checked against their parents' ends").isGreaterThan(total - leaves);
            } finally {
                workers.forEach(Worker::close);
                clients.forEach(DelayQ::close);
            }
        }
    }

    private static DelayQ client(RedisCluster cluster) {
        return DelayQ.builder().redis(cluster.uri()).cluster(true).prefix(PREFIX).timeout(Duration.ofSeconds(2))
                .retryPolicy(Rig.FAST).build();
    }

    /** The runs the checker heard of the jobs its entries name, for a failure message. */
    private static List<Checker.Run> runsOf(Checker checker, List<String> entries) {
        Set<String> ids = new HashSet<>();
        entries.forEach(e -> ids.add(e.split(" ")[0]));
        return checker.runs().stream().filter(r -> ids.contains(r.id())).toList();
    }

    /** The checker's entries ({@code "<id> ..."}) of jobs not exposed to the failover. */
    private static List<String> unexcused(List<String> entries, Set<String> exposed) {
        return entries.stream().filter(e -> !exposed.contains(e.split(" ")[0])).toList();
    }
}
