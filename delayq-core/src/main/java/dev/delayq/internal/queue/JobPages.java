package dev.delayq.internal.queue;

import dev.delayq.JobInfo;
import dev.delayq.JobState;
import dev.delayq.internal.Keys;
import dev.delayq.internal.redis.RedisBackend;
import dev.delayq.internal.ops.ListPage;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * Operator reads of one index, page by page, apart from the hot path: a bounded list from an offset, or a lazy
 * stream of the whole index (jobs moving meanwhile may be seen twice or not at all).
 */
final class JobPages {
    /** Index entries read per script call. */
    static final int PAGE = 1000;

    /** Reads the page of {@code count} entries at {@code offset}. */
    interface Reader {
        ListPage.Page read(long offset, int count);
    }

    private JobPages() {
    }

    /**
     * At most {@code limit} jobs in {@code state} from position {@code offset} of the key set of {@code keys}; scheduled
     * jobs of a queue that uses priorities come from both of its due sets, merged in due order.
     */
    static List<JobInfo> list(RedisBackend redis, Keys keys, JobState state, long offset, int limit, int preview) {
        if (state == JobState.DONE && usesBatches(redis, keys)) {
            // Beside an earlier build's done set the two are merged, read from the start.
            return redis.await(redis.exists(keys.done()), "list")
                    ? stream(redis, keys, state, preview).skip(offset).limit(limit).toList()
                    : batches(redis, keys, offset, limit, preview);
        }
        if (state == JobState.SCHEDULED && usesPriorities(redis, keys)) {
            return stream(redis, keys, state, preview).skip(offset).limit(limit).toList();
        }
        return list(reader(redis, keys, state, false, preview), offset, limit);
    }

    /** Every job in {@code state}, in index order (scheduled ones in due order whatever their priority). */
    static Stream<JobInfo> stream(RedisBackend redis, Keys keys, JobState state, int preview) {
        if (state == JobState.SCHEDULED && usesPriorities(redis, keys)) {
            return merged(stream(reader(redis, keys, state, false, preview)).iterator(),
                    stream(reader(redis, keys, state, true, preview)).iterator(), Comparator.comparingLong(JobInfo::dueAtMillis));
        }
        if (state == JobState.DONE && usesBatches(redis, keys)) {
            // Done jobs of the done set (kept by earlier versions, one entry each) and of the done batch entries,
            // merged in the order they finished.
            return merged(stream(reader(redis, keys, state, false, preview)).iterator(), batches(redis, keys, preview),
                    Comparator.comparingLong(JobInfo::finishedAtMillis));
        }
        return stream(reader(redis, keys, state, false, preview));
    }

    private static Stream<JobInfo> merged(Iterator<JobInfo> a, Iterator<JobInfo> b, Comparator<JobInfo> order) {
        Iterator<JobInfo> merged = new MergedIterator<>(List.of(a, b), order);
        return StreamSupport.stream(Spliterators.spliteratorUnknownSize(merged, Spliterator.ORDERED | Spliterator.NONNULL), false);
    }

    private static boolean usesPriorities(RedisBackend redis, Keys keys) {
        return redis.await(redis.exists(keys.prio()), "list");
    }

    private static boolean usesBatches(RedisBackend redis, Keys keys) {
        return redis.await(redis.exists(keys.doneBatches()), "list");
    }

    /** The jobs the done batch entries list, entry by entry, read as they are consumed. */
    private static Iterator<JobInfo> batches(RedisBackend redis, Keys keys, int preview) {
        return new Pages() {
            private long rank;
            private int at;

            @Override
            List<JobInfo> fetch() {
                ListPage.BatchPage p = redis.await(ListPage.batches(redis, keys, rank, at, 0, PAGE, preview), "list");
                rank = p.rank();
                at = p.at();
                last = p.end();
                return p.jobs();
            }
        };
    }

    /**
     * At most {@code limit} done jobs of the done batch entries from position {@code offset}: the ids before it are
     * counted in the entries, their records not read.
     */
    private static List<JobInfo> batches(RedisBackend redis, Keys keys, long offset, int limit, int preview) {
        List<JobInfo> out = new ArrayList<>(Math.min(limit, PAGE));
        long rank = 0;
        int at = 0;
        long skip = offset;
        while (out.size() < limit) {
            ListPage.BatchPage p = redis.await(ListPage.batches(redis, keys, rank, at, skip, Math.min(PAGE, limit - out.size()),
                    preview), "list");
            out.addAll(p.jobs());
            if (p.end()) {
                break;
            }
            rank = p.rank();
            at = p.at();
            skip = p.skip();
        }
        return out;
    }

    private static Reader reader(RedisBackend redis, Keys keys, JobState state, boolean priorities, int preview) {
        return (offset, count) -> redis.await(ListPage.call(redis, keys, state, priorities, offset, count, preview), "list");
    }

    /** At most {@code limit} jobs from position {@code offset}. */
    static List<JobInfo> list(Reader reader, long offset, int limit) {
        List<JobInfo> out = new ArrayList<>(Math.min(limit, PAGE));
        long pos = offset;
        while (out.size() < limit) {
            ListPage.Page page = reader.read(pos, Math.min(PAGE, limit - out.size()));
            out.addAll(page.jobs());
            if (page.end()) {
                break;
            }
            pos += page.consumed();
        }
        return out;
    }

    /** Every job of the index, read as the stream is consumed. */
    static Stream<JobInfo> stream(Reader reader) {
        Iterator<JobInfo> pages = new Pages() {
            private long offset;

            @Override
            List<JobInfo> fetch() {
                ListPage.Page p = reader.read(offset, PAGE);
                offset += p.consumed();
                last = p.end();
                return p.jobs();
            }
        };
        return StreamSupport.stream(Spliterators.spliteratorUnknownSize(pages, Spliterator.ORDERED | Spliterator.NONNULL), false);
    }

    /** Jobs read a page at a time, as they are consumed. */
    private abstract static class Pages implements Iterator<JobInfo> {
        private List<JobInfo> page = List.of();
        private int next;
        /** Set by {@link #fetch()} when the page it returned is the last. */
        boolean last;

        /** The next page (it may be empty without being the last). */
        abstract List<JobInfo> fetch();

        @Override
        public boolean hasNext() {
            while (next == page.size() && !last) {
                page = fetch();
                next = 0;
            }
            return next < page.size();
        }

        @Override
        public JobInfo next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            return page.get(next++);
        }
    }
}
