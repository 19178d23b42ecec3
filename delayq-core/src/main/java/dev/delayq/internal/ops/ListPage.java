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

/**
 * {@code list.lua} (leases, done, dead), {@code list_due.lua} (the two due sets) and {@code list_batches.lua} (the done
 * batch entries): one page of the jobs in one state, in index order.
 */
public final class ListPage {
    /** Record bytes one page returns at most (at least one entry whatever its size). */
    static final long MAX_BYTES = 4L * 1024 * 1024;
    /** A preview size that means the whole payload. */
    public static final int WHOLE = -1;
    /** The largest page the scripts give. */
    private static final int PAGE_MAX = 10_000;

    /** list.lua's and list_due.lua's ARGV. */
    enum Arg { START_RANK, PAGE_SIZE, MOST_RECORD_BYTES, MOST_PAYLOAD_BYTES }

    /** Their reply's fields before the entries. */
    enum Out { TOTAL }

    /** list.lua's entries (score: the lease expiry or finish time). */
    enum Entry { ID, RECORD, SCORE, PAYLOAD_BYTES }

    /** list_due.lua's entries. */
    enum DueEntry { ID, RECORD, DUE, PAYLOAD_BYTES }

    /** list_batches.lua's ARGV. */
    enum BatchArg { START_RANK, MOST_JOBS, MOST_RECORD_BYTES, ID_TO_START_FROM, IDS_TO_SKIP, MOST_PAYLOAD_BYTES }

    /** list_batches.lua's reply before the jobs. */
    enum BatchOut { ENTRIES, RANK, FROM, SKIP }

    /** list_batches.lua's jobs. */
    enum BatchJob { ID, RECORD, FINISH, PAYLOAD_BYTES }

    private static final ScriptKey[] INDEX_KEYS = {ScriptKey.INDEX, ScriptKey.JOBS};
    static final Protocol LIST = bounded(Protocol.of(Script.LIST, INDEX_KEYS, Arg.values(), null, Out.values(), Entry.values()));
    static final Protocol LIST_DUE = bounded(Protocol.of(Script.LIST_DUE, INDEX_KEYS, Arg.values(), null, Out.values(),
            DueEntry.values()));
    static final Protocol LIST_BATCHES = Protocol.of(Script.LIST_BATCHES, new ScriptKey[] {ScriptKey.DONE_BATCHES, ScriptKey.JOBS},
            BatchArg.values(), null, BatchOut.values(), BatchJob.values()).bound(BatchArg.START_RANK, 0, 1L << 50)
            .bound(BatchArg.MOST_JOBS, 1, PAGE_MAX).bound(BatchArg.MOST_RECORD_BYTES, 1, Protocol.MS)
            .bound(BatchArg.ID_TO_START_FROM, 0, 1L << 31).bound(BatchArg.IDS_TO_SKIP, 0, 1L << 50)
            .bound(BatchArg.MOST_PAYLOAD_BYTES, -1, Protocol.MS);

    private static Protocol bounded(Protocol p) {
        return p.bound(Arg.START_RANK, 0, 1L << 50).bound(Arg.PAGE_SIZE, 1, PAGE_MAX).bound(Arg.MOST_RECORD_BYTES, 1, Protocol.MS)
                .bound(Arg.MOST_PAYLOAD_BYTES, -1, Protocol.MS);
    }

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
        return call(redis, keys, state, priorities, offset, count, WHOLE);
    }

    /**
     * As {@link #call(RedisBackend, Keys, JobState, boolean, long, int)}, each payload cut by the script to its first
     * {@code preview} bytes ({@link #WHOLE}: not cut): Redis never sends more of it.
     */
    public static CompletableFuture<Page> call(RedisBackend redis, Keys keys, JobState state, boolean priorities, long offset,
                                               int count, int preview) {
        byte[] index = state == JobState.SCHEDULED && priorities ? keys.prio() : index(keys, state);
        // The due sets' members carry the sequence prefix, and the priority due set's scores the band: list_due reads
        // both; list reads the indexes of ids (leases, done, dead). Both answer in the layout of Entry.
        Script script = state == JobState.SCHEDULED ? Script.LIST_DUE : Script.LIST;
        byte[][] a = new byte[LIST.argCount()][];
        a[Arg.START_RANK.ordinal()] = num(offset);
        a[Arg.PAGE_SIZE.ordinal()] = num(count);
        a[Arg.MOST_RECORD_BYTES.ordinal()] = num(MAX_BYTES);
        a[Arg.MOST_PAYLOAD_BYTES.ordinal()] = num(preview);
        return Reply.eval(redis, script, ScriptKey.of(INDEX_KEYS, keys, index), a).thenApply(r -> {
                    int head = Out.values().length;
                    int width = Entry.values().length;
                    int n = (r.size() - head) / width;
                    long total = Reply.longAt(r, Out.TOTAL);
                    List<JobInfo> jobs = new ArrayList<>(n);
                    for (int i = 0; i < n; i++) {
                        Object raw = Reply.item(r, head, width, i, Entry.RECORD);
                        if (raw != null) {
                            jobs.add(JobInfos.of(Reply.str(Reply.item(r, head, width, i, Entry.ID)), (byte[]) raw,
                                    Reply.asLong(Reply.item(r, head, width, i, Entry.SCORE)), state, -1, null,
                                    Reply.asLong(Reply.item(r, head, width, i, Entry.PAYLOAD_BYTES))));
                        }
                    }
                    return new Page(jobs, n, offset + n >= total || n == 0);
                });
    }

    /**
     * One page of the retrying set (failed jobs waiting for their retry; {@code list.lua} over it) from position
     * {@code offset}: each entry's job as it is now, its due time the entry's score (the retry time); an entry whose
     * record vanished is skipped. The caller keeps the entries still to come whose job is scheduled (see
     * {@code lua/stats.lua}: the others are past retries, counted as ready, or jobs since claimed).
     */
    public static CompletableFuture<Page> retrying(RedisBackend redis, Keys keys, long offset, int count, int preview) {
        byte[][] a = new byte[LIST.argCount()][];
        a[Arg.START_RANK.ordinal()] = num(offset);
        a[Arg.PAGE_SIZE.ordinal()] = num(count);
        a[Arg.MOST_RECORD_BYTES.ordinal()] = num(MAX_BYTES);
        a[Arg.MOST_PAYLOAD_BYTES.ordinal()] = num(preview);
        return Reply.eval(redis, Script.LIST, ScriptKey.of(INDEX_KEYS, keys, keys.retrying()), a).thenApply(r -> {
                    int head = Out.values().length;
                    int width = Entry.values().length;
                    int n = (r.size() - head) / width;
                    long total = Reply.longAt(r, Out.TOTAL);
                    List<JobInfo> jobs = new ArrayList<>(n);
                    for (int i = 0; i < n; i++) {
                        Object raw = Reply.item(r, head, width, i, Entry.RECORD);
                        if (raw != null) {
                            jobs.add(JobInfos.of(Reply.str(Reply.item(r, head, width, i, Entry.ID)), (byte[]) raw,
                                    Reply.asLong(Reply.item(r, head, width, i, Entry.SCORE)), JobState.SCHEDULED, -1, null,
                                    Reply.asLong(Reply.item(r, head, width, i, Entry.PAYLOAD_BYTES))));
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
        return batches(redis, keys, rank, at, skip, count, WHOLE);
    }

    /** As {@link #batches(RedisBackend, Keys, long, int, long, int)}, each payload cut to {@code preview} bytes. */
    public static CompletableFuture<BatchPage> batches(RedisBackend redis, Keys keys, long rank, int at, long skip,
                                                       int count, int preview) {
        byte[][] a = new byte[LIST_BATCHES.argCount()][];
        a[BatchArg.START_RANK.ordinal()] = num(rank);
        a[BatchArg.MOST_JOBS.ordinal()] = num(count);
        a[BatchArg.MOST_RECORD_BYTES.ordinal()] = num(MAX_BYTES);
        a[BatchArg.ID_TO_START_FROM.ordinal()] = num(at);
        a[BatchArg.IDS_TO_SKIP.ordinal()] = num(skip);
        a[BatchArg.MOST_PAYLOAD_BYTES.ordinal()] = num(preview);
        return Reply.eval(redis, Script.LIST_BATCHES, ScriptKey.of(LIST_BATCHES.keys, keys), a).thenApply(r -> {
                    long total = Reply.longAt(r, BatchOut.ENTRIES);
                    long next = Reply.longAt(r, BatchOut.RANK);
                    int head = BatchOut.values().length;
                    int width = BatchJob.values().length;
                    int n = (r.size() - head) / width;
                    List<JobInfo> jobs = new ArrayList<>(n);
                    for (int i = 0; i < n; i++) {
                        jobs.add(JobInfos.of(Reply.str(Reply.item(r, head, width, i, BatchJob.ID)),
                                (byte[]) Reply.item(r, head, width, i, BatchJob.RECORD),
                                Reply.asLong(Reply.item(r, head, width, i, BatchJob.FINISH)), JobState.DONE, -1, null,
                                Reply.asLong(Reply.item(r, head, width, i, BatchJob.PAYLOAD_BYTES))));
                    }
                    return new BatchPage(jobs, next, (int) Reply.longAt(r, BatchOut.FROM), Reply.longAt(r, BatchOut.SKIP),
                            next >= total);
                });
    }

    private static byte[] index(Keys keys, JobState state) {
        return switch (state) {
            case SCHEDULED -> keys.due();
            case PROCESSING -> keys.leases();
            case DONE -> keys.done();
            case DEAD -> keys.dead();
            case WAITING -> keys.waiting();
        };
    }
}
