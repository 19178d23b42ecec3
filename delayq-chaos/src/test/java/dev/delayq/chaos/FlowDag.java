package dev.delayq.chaos;

import dev.delayq.EnqueueResult;
import dev.delayq.Job;
import dev.delayq.JobQueue;
import dev.delayq.JobState;
import dev.delayq.OnParentDead;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;

/**
 * The flow scenario's graph (scenario 13): three levels of jobs of one queue and a few batch callbacks.
 * <ul>
 *   <li>{@code L} leaves {@code l<i>}, due spread over the fault phase; a few of them ({@link #failing()}) fail for good
 *       (their command exits 100 after writing its side effect);</li>
 *   <li>{@code L/10} middle jobs {@code m<j>}, each after its own 10 leaves (fan-in); every odd one also after the
 *       fifth leaf of each neighbour's block, so those leaves are shared by three middle jobs;</li>
 *   <li>{@code L/100} top jobs {@code t<k>}, each after its own 10 middle jobs and one more of the next block (shared);</li>
 *   <li>five callbacks {@code cb-*} with {@link OnParentDead#IGNORE}: over leaves around each failing leaf, over leaves
 *       none of which fails, over middle jobs some of which die of a dead parent, and over every top job.</li>
 * </ul>
 * Every other job has the default policy, so a failing leaf ends its middle jobs, and their top jobs, dead. The
 * expected end state of every job follows from the graph alone ({@link #expected()}).
 */
final class FlowDag {
    /** One job of the graph; {@code level} 0 for leaves, 1 middle, 2 top, 3 callbacks. */
    record Node(String id, int level, List<String> parents, OnParentDead policy, boolean fails) {
    }

    private final Map<String, Node> nodes = new LinkedHashMap<>();
    private final Set<String> failing = new HashSet<>();

    private FlowDag() {
    }

    /** The graph with {@code leaves} leaves (a multiple of 100). */
    static FlowDag of(int leaves) {
        if (leaves % 100 != 0 || leaves < 200) {
            throw new IllegalArgumentException("leaves must be a multiple of 100, at least 200: " + leaves);
        }
        FlowDag dag = new FlowDag();
        int middles = leaves / 10;
        int tops = middles / 10;
        // Failing leaves: the shared fifth leaf of an even block (its middle job and both odd neighbours die), and two
        // leaves of one block each; all due in the middle of the phase, so their deaths come while workers are killed.
        int shared = 10 * (middles / 2) + 5;
        int single = 10 * (3 * middles / 4 + 1) + 2;
        int another = 10 * (2 * middles / 5) + 7;
        dag.failing.addAll(List.of(leaf(shared), leaf(single), leaf(another)));
        for (int i = 0; i < leaves; i++) {
            dag.add(new Node(leaf(i), 0, List.of(), OnParentDead.DEAD, dag.failing.contains(leaf(i))));
        }
        for (int m = 0; m < middles; m++) {
            List<String> parents = new ArrayList<>();
            IntStream.range(10 * m, 10 * m + 10).forEach(i -> parents.add(leaf(i)));
            if (m % 2 == 1) {
                parents.add(leaf(10 * (m - 1) + 5));
                parents.add(leaf(10 * ((m + 1) % middles) + 5));
            }
            dag.add(new Node("m" + m, 1, parents, OnParentDead.DEAD, false));
        }
        for (int t = 0; t < tops; t++) {
            List<String> parents = new ArrayList<>();
            IntStream.range(10 * t, 10 * t + 10).forEach(m -> parents.add("m" + m));
            parents.add("m" + (10 * (t + 1) + 3) % middles);
            dag.add(new Node("t" + t, 2, parents, OnParentDead.DEAD, false));
        }
        dag.callback("cb-around-" + leaf(shared), window(shared, leaves));
        dag.callback("cb-around-" + leaf(single), window(single, leaves));
        dag.callback("cb-clean-leaves", window(15, leaves));
        List<String> aroundDead = new ArrayList<>();
        IntStream.rangeClosed(middles / 2 - 3, middles / 2 + 3).forEach(m -> aroundDead.add("m" + m));
        dag.callback("cb-middles", aroundDead);
        List<String> allTops = new ArrayList<>();
        IntStream.range(0, tops).forEach(t -> allTops.add("t" + t));
        dag.callback("cb-tops", allTops);
        return dag;
    }

    private static String leaf(int i) {
        return "l" + i;
    }

    /** The 20 leaves from {@code center - 10}. */
    private static List<String> window(int center, int leaves) {
        List<String> ids = new ArrayList<>();
        IntStream.range(Math.max(0, center - 10), Math.min(leaves, center + 10)).forEach(i -> ids.add(leaf(i)));
        return ids;
    }

    private void add(Node node) {
        nodes.put(node.id(), node);
    }

    private void callback(String id, List<String> parents) {
        add(new Node(id, 3, parents, OnParentDead.IGNORE, false));
    }

    /** Every job, parents before their children. */
    List<Node> nodes() {
        return List.copyOf(nodes.values());
    }

    Node node(String id) {
        return nodes.get(id);
    }

    /** The leaves that fail for good. */
    Set<String> failing() {
        return Set.copyOf(failing);
    }

    /**
     * The state every job must end in: dead for a failing leaf and for a job of the default policy with a dead parent
     * (at any depth), done for every other (the callbacks count a dead parent as finished).
     */
    Map<String, JobState> expected() {
        Map<String, JobState> out = new LinkedHashMap<>();
        for (Node n : nodes.values()) { // parents come first
            boolean deadParent = n.parents().stream().anyMatch(p -> out.get(p) == JobState.DEAD);
            boolean dead = n.fails() || (n.policy() == OnParentDead.DEAD && deadParent);
            out.put(n.id(), dead ? JobState.DEAD : JobState.DONE);
        }
        return out;
    }

    /**
     * Enqueues the whole graph, level by level (a parent must exist before its child's enqueue), each job acknowledged
     * to {@code checker}; before any worker runs, so that every child waits at its enqueue and is released by a
     * completion (a child whose parents are all done at its enqueue is scheduled there, not released).
     */
    void enqueue(JobQueue q, Checker checker, Duration spread) {
        for (int level = 0; level <= 3; level++) {
            List<Job> jobs = jobs(level, spread);
            for (int from = 0; from < jobs.size(); from += 500) {
                for (EnqueueResult r : q.enqueueAll(jobs.subList(from, Math.min(jobs.size(), from + 500)))) {
                    if (!r.created()) {
                        throw new AssertionError("not created: " + r);
                    }
                    checker.acked(r.id());
                }
            }
        }
    }

    /** The jobs of one level, built for enqueueing; leaves due spread evenly over {@code spread}. */
    private List<Job> jobs(int level, Duration spread) {
        List<Node> of = nodes.values().stream().filter(n -> n.level() == level).toList();
        List<Job> jobs = new ArrayList<>();
        for (int i = 0; i < of.size(); i++) {
            Node n = of.get(i);
            Job.Builder b = Job.builder().id(n.id()).payload(n.id());
            if (level == 0) {
                b.delay(Duration.ofMillis(spread.toMillis() * i / of.size()));
            } else {
                b.after(n.parents()).onParentDead(n.policy());
            }
            jobs.add(b.build());
        }
        return jobs;
    }
}
