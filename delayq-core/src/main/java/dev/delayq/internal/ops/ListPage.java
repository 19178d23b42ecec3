package dev.delayq.internal.ops;

import static dev.delayq.internal.ops.Args.num;

import dev.delayq.JobInfo;
import dev.delayq.JobState;
import dev.delayq.internal.Keys;
import dev.delayq.internal.redis.RedisBackend;
import dev.delayq.internal.redis.Script;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** {@code list.lua}: one page of the jobs in one state, in index order. */
public final class ListPage {
    /** Record bytes one page returns at most (at least one entry whatever its size). */
    static final long MAX_BYTES = 4L * 1024 * 1024;

    private ListPage() {
    }

    /**
     * One page of index entries from position {@code offset}: the jobs (an entry whose record vanished meanwhile is
     * skipped), how many entries were read, and whether the index ended.
     */
    public record Page(List<JobInfo> jobs, int consumed, boolean end) {
    }

    /**
     * One page of the index holding jobs in {@code state}; for scheduled jobs, {@code priorities} selects the index of
     * priorities 1-9 instead of the due set of priority 0.
     */
    public static CompletableFuture<Page> call(RedisBackend redis, Keys keys, JobState state, boolean priorities, long offset,
                                               int count) {
        byte[] index = state == JobState.SCHEDULED && priorities ? keys.prio() : index(keys, state);
        byte[] mode = Args.ascii(state != JobState.SCHEDULED ? "0" : priorities ? "2" : "1");
        return Reply.eval(redis, Script.LIST, new byte[][] {index, keys.jobs()}, mode, num(offset), num(count),
                num(MAX_BYTES)).thenApply(r -> {
                    int n = (r.size() - 1) / 3;
                    long total = Reply.asLong(r.get(0));
                    List<JobInfo> jobs = new ArrayList<>(n);
                    for (int i = 0; i < n; i++) {
                        Object raw = r.get(2 + 3 * i);
                        if (raw != null) {
                            jobs.add(JobInfos.of(Reply.str(r.get(1 + 3 * i)), (byte[]) raw, Reply.asLong(r.get(3 + 3 * i)),
                                    state, -1, null));
                        }
                    }
                    return new Page(jobs, n, offset + n >= total || n == 0);
                });
    }

    /**
     * One page of the done batch entries (see {@code lua/includes/record.lua}): the jobs they still list, and where the
     * next page starts: the entry's rank, the number of the id in it ({@code at}, 0 = its first) and how many ids are
     * still to be skipped (a call reads at most 1,000 entries, or 4 MB of them, to skip); {@code end}: the entries are
     * all read.
     */
    public record BatchPage(List<JobInfo> jobs, long rank, int at, long skip, boolean end) {
    }

    /**
     * Up to {@code count} jobs of the done batch entries, from the id numbered {@code at} of the entry of {@code rank}
     * after skipping {@code skip} ids (whose records are not read).
     */
    public static CompletableFuture<BatchPage> batches(RedisBackend redis, Keys keys, long rank, int at, long skip,
                                                       int count) {
        return Reply.eval(redis, Script.LIST, new byte[][] {keys.doneBatches(), keys.jobs()}, Args.ascii("3"), num(rank),
                num(count), num(MAX_BYTES), num(at), num(skip)).thenApply(r -> {
                    long total = Reply.asLong(r.get(0));
                    long next = Reply.asLong(r.get(1));
                    int n = (r.size() - 4) / 3;
                    List<JobInfo> jobs = new ArrayList<>(n);
                    for (int i = 0; i < n; i++) {
                        jobs.add(JobInfos.of(Reply.str(r.get(4 + 3 * i)), (byte[]) r.get(5 + 3 * i),
                                Reply.asLong(r.get(6 + 3 * i)), JobState.DONE, -1, null));
                    }
                    return new BatchPage(jobs, next, (int) Reply.asLong(r.get(2)), Reply.asLong(r.get(3)), next >= total);
                });
    }

    private static byte[] index(Keys keys, JobState state) {
        return switch (state) {
            case SCHEDULED -> keys.due();
            case PROCESSING -> keys.leases();
            case DONE -> keys.done();
            case DEAD -> keys.dead();
        };
    }
}
