package dev.delayq.internal.queue;

import dev.delayq.EnqueueResult;
import dev.delayq.Job;
import dev.delayq.JobState;
import dev.delayq.ParentRef;
import dev.delayq.internal.Keys;
import dev.delayq.internal.base.Ids;
import dev.delayq.internal.ops.Get;
import dev.delayq.internal.ops.RemoteLink;
import dev.delayq.internal.redis.RedisBackend;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Step 1 of enqueueing children whose parents are in other queues (lua/includes/remote.lua, docs/flows.md "Parents in
 * another queue"): each child is linked on each of its parents' queues ({@code remote_link.lua}, one call per queue,
 * one after the other), which answers for each parent linked, done or dead; the answers go to the child's enqueue as its
 * remote tag. A parent that does not exist fails the enqueue ({@code unknown parent queue/id}) after the links already
 * made for that child are taken back, so nothing of the call stays but what a crash between steps leaves (notices that
 * expire: {@code NoticeRelay}).
 */
final class RemoteParents {
    private final RedisBackend redis;
    private final Partition part;
    private final Keys child;
    /** The key set of each parent, by its ref ("queue/id"): the parent queue's partition of its id. */
    private final Map<ParentRef, String> keySets;

    /** For children of the key set {@code part}, with the parents' key sets resolved. */
    private RemoteParents(RedisBackend redis, Partition part, Map<ParentRef, String> keySets) {
        this.redis = redis;
        this.part = part;
        this.child = part.keys();
        this.keySets = keySets;
    }

    /**
     * Enqueues {@code jobs} (some with parents in other queues or partitions) into their partitions of {@code parts},
     * each partition's jobs linked and enqueued as one batch; the results in the jobs' order. The partition count of
     * each parent queue is read first (one HGET per queue named, on the calling thread: it never changes once recorded).
     */
    static CompletableFuture<List<EnqueueResult>> enqueue(RedisBackend redis, Partitions parts, List<Job> jobs, String[] ids) {
        Map<String, Integer> counts = new HashMap<>();
        Map<ParentRef, String> keySets = new HashMap<>();
        for (Job job : jobs) {
            for (ParentRef p : job.afterIn()) {
                int n = counts.computeIfAbsent(p.queue(), q -> partitionCount(redis, parts.first().keys().prefix(), q));
                keySets.put(p, n == 1 ? p.queue() : p.queue() + "#" + Routing.partitionOf(p.id(), n));
            }
        }
        if (parts.count() == 1) {
            return new RemoteParents(redis, parts.first(), keySets).enqueue(jobs, ids);
        }
        Map<Integer, List<Integer>> byPart = new LinkedHashMap<>();
        for (int i = 0; i < jobs.size(); i++) {
            byPart.computeIfAbsent(parts.indexOf(ids[i]), k -> new ArrayList<>()).add(i);
        }
        EnqueueResult[] out = new EnqueueResult[jobs.size()];
        List<CompletableFuture<Void>> calls = new ArrayList<>();
        for (Map.Entry<Integer, List<Integer>> e : byPart.entrySet()) {
            List<Integer> idx = e.getValue();
            List<Job> sub = idx.stream().map(jobs::get).toList();
            String[] subIds = idx.stream().map(i -> ids[i]).toArray(String[]::new);
            calls.add(new RemoteParents(redis, parts.all().get(e.getKey()), keySets).enqueue(sub, subIds)
                    .thenAccept(results -> {
                        for (int k = 0; k < idx.size(); k++) {
                            out[idx.get(k)] = results.get(k);
                        }
                    }));
        }
        return CompletableFuture.allOf(calls.toArray(new CompletableFuture[0])).thenApply(v -> java.util.Arrays.asList(out));
    }

    /** The partition count recorded for {@code queue} (1 when none is: a queue never opened has no partitions). */
    static int partitionCount(RedisBackend redis, String prefix, String queue) {
        String recorded = redis.hget(new Keys(prefix, queue).config(), "partitions");
        try {
            return recorded == null ? 1 : Math.max(1, Integer.parseInt(recorded));
        } catch (NumberFormatException e) {
            return 1;
        }
    }

    /** Links the jobs with parents in other key sets, enqueues all, and takes back the links of those not created. */
    private CompletableFuture<List<EnqueueResult>> enqueue(List<Job> jobs, String[] ids) {
        return link(jobs, ids).thenCompose(tags -> part.enqueueAll(jobs, ids, tags)
                .thenCompose(results -> unlinkRefused(jobs, ids, tags, results).thenApply(v -> results)));
    }

    /** One child's links: its link id, its parents by key set (a queue, or a partition of one). */
    private record Links(String linkId, String id, Map<String, List<ParentRef>> byQueue) {
    }

    private Links links(Job job, String id, String linkId) {
        Map<String, List<ParentRef>> byQueue = new LinkedHashMap<>();
        for (ParentRef p : job.afterIn()) {
            byQueue.computeIfAbsent(keySets.get(p), q -> new ArrayList<>()).add(p);
        }
        return new Links(linkId, id, byQueue);
    }

    /** Links every job of {@code jobs} with parents in other queues; each job's remote tag ({@code null}: none). */
    CompletableFuture<String[]> link(List<Job> jobs, String[] ids) {
        String[] tags = new String[jobs.size()];
        CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
        for (int i = 0; i < jobs.size(); i++) {
            Job job = jobs.get(i);
            if (job.afterIn().isEmpty()) {
                continue;
            }
            int at = i;
            chain = chain.thenCompose(v -> linkOne(job, ids[at]).thenAccept(tag -> tags[at] = tag));
        }
        return chain.thenApply(v -> tags);
    }

    private CompletableFuture<String> linkOne(Job job, String id) {
        Links links = links(job, id, Ids.generate());
        Map<ParentRef, Character> status = new LinkedHashMap<>();
        List<String> linked = new ArrayList<>();
        CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
        for (Map.Entry<String, List<ParentRef>> e : links.byQueue().entrySet()) {
            chain = chain.thenCompose(v -> call(links, e.getKey(), e.getValue(), true).thenAccept(st -> {
                linked.add(e.getKey());
                for (int k = 0; k < st.length; k++) {
                    status.put(e.getValue().get(k), st[k]);
                }
            }));
        }
        return chain.handle((v, err) -> err).thenCompose(err -> {
            if (err == null) {
                StringBuilder tag = new StringBuilder(links.linkId());
                for (ParentRef p : job.afterIn()) {
                    tag.append('\1').append(status.get(p)).append(p);
                }
                return CompletableFuture.completedFuture(tag.toString());
            }
            Throwable cause = err instanceof CompletionException && err.getCause() != null ? err.getCause() : err;
            return unlink(links, linked).handle((u, ignored) -> null)
                    .thenCompose(u -> CompletableFuture.<String>failedFuture(cause));
        });
    }

    /** Takes back the links of the children whose enqueue did not create them (their id was taken). */
    CompletableFuture<Void> unlinkRefused(List<Job> jobs, String[] ids, String[] tags, List<EnqueueResult> results) {
        List<CompletableFuture<Void>> calls = new ArrayList<>();
        for (int i = 0; i < jobs.size(); i++) {
            if (tags[i] != null && !results.get(i).created()) {
                Links links = links(jobs.get(i), ids[i], tags[i].substring(0, tags[i].indexOf('\1')));
                calls.add(unlink(links, new ArrayList<>(links.byQueue().keySet())));
            }
        }
        return CompletableFuture.allOf(calls.toArray(new CompletableFuture[0]));
    }

    private CompletableFuture<Void> unlink(Links links, List<String> queues) {
        List<CompletableFuture<char[]>> calls = new ArrayList<>();
        for (String q : queues) {
            calls.add(call(links, q, links.byQueue().get(q), false));
        }
        return CompletableFuture.allOf(calls.toArray(new CompletableFuture[0]));
    }

    private CompletableFuture<char[]> call(Links links, String queue, List<ParentRef> parents, boolean link) {
        List<String> ids = new ArrayList<>(parents.size());
        List<String> refs = new ArrayList<>(parents.size());
        for (ParentRef p : parents) {
            ids.add(p.id());
            refs.add(p.toString());
        }
        return RemoteLink.call(redis, new Keys(child.prefix(), queue), part.settings().durability(), link, child.queue(), links.id(), links.linkId(),
                ids, refs);
    }

    /** A partitioned queue refuses {@code after(...)} (parents of the child's own key set), naming what works: afterIn. */
    static void checkLocalParents(Job job, String queue, int partitions) {
        if (!job.after().isEmpty() && partitions > 1) {
            throw new IllegalArgumentException("job '" + job.id() + "' names parents, but queue '" + queue + "' has "
                    + partitions + " partitions: after(...) needs a queue without partitions; name them with afterIn(\""
                    + queue + "\", ids) (--after-in " + queue + "/ID; docs/flows.md)");
        }
    }

    /**
     * {@code listed} (parent_results.lua's answer) with the results of the parents in other key sets (each listed as
     * byte 2 and its ref, without a result) read from their key sets: a done parent's result, by its ref
     * ({@code queue/id}); one still kept only.
     */
    static Map<String, byte[]> results(RedisBackend redis, String prefix, Map<String, byte[]> listed) {
        if (listed.keySet().stream().noneMatch(k -> k.startsWith("\u0002"))) {
            return listed;
        }
        Map<String, Integer> counts = new HashMap<>();
        Map<String, byte[]> out = new LinkedHashMap<>();
        for (Map.Entry<String, byte[]> e : listed.entrySet()) {
            if (!e.getKey().startsWith("\u0002")) {
                out.put(e.getKey(), e.getValue());
                continue;
            }
            ParentRef ref = ParentRef.parse(e.getKey().substring(1));
            int n = counts.computeIfAbsent(ref.queue(), q -> partitionCount(redis, prefix, q));
            String set = n == 1 ? ref.queue() : ref.queue() + "#" + Routing.partitionOf(ref.id(), n);
            redis.await(Get.call(redis, new Keys(prefix, set), ref.id(), 0), "parent result")
                    .filter(j -> j.state() == JobState.DONE && j.result() != null)
                    .ifPresent(j -> out.put(ref.toString(), j.result()));
        }
        return java.util.Collections.unmodifiableMap(out);
    }
}
