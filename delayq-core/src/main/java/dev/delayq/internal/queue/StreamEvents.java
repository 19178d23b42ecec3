package dev.delayq.internal.queue;

import dev.delayq.Events;
import dev.delayq.JobEvent;
import dev.delayq.internal.base.Validation;
import dev.delayq.internal.redis.RedisBackend;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The event streams of a queue's key sets (one for a plain queue, one per partition), read as one: entries in id
 * order (ids are Redis times, {@code <ms>-<n>}). On a partitioned queue two partitions can write the same id in the
 * same millisecond; reading after such an id skips the other partition's entry with it (a limitation of one cursor
 * over several streams).
 */
final class StreamEvents implements Events {
    private static final Logger LOG = LoggerFactory.getLogger(StreamEvents.class);
    private static final Pattern ID = Pattern.compile("0|\\$|\\d{1,20}(-\\d{1,20})?");

    private final List<Partition> parts;
    private final Supplier<Boolean> enabled;

    StreamEvents(List<Partition> parts, Supplier<Boolean> enabled) {
        this.parts = parts;
        this.enabled = enabled;
    }

    @Override
    public boolean enabled() {
        return enabled.get();
    }

    @Override
    public List<JobEvent> read(String afterId, int max) {
        check(afterId);
        Validation.range("max events", max, 1, 10_000);
        if (afterId.equals("$")) {
            return List.of();
        }
        List<JobEvent> all = new ArrayList<>();
        for (Partition p : parts) {
            for (RedisBackend.StreamEntry e : p.backend().xreadAfter(p.keys().events(), afterId, max, 0)) {
                all.add(event(e));
            }
        }
        all.sort(Comparator.comparing(JobEvent::eventId, StreamEvents::compareIds));
        return all.size() > max ? List.copyOf(all.subList(0, max)) : all;
    }

    @Override
    public AutoCloseable listen(String afterId, Consumer<JobEvent> listener) {
        check(afterId);
        if (listener == null) {
            throw new IllegalArgumentException("listener must not be null");
        }
        List<Thread> readers = new ArrayList<>();
        List<RedisBackend> connections = new ArrayList<>();
        java.util.concurrent.atomic.AtomicBoolean open = new java.util.concurrent.atomic.AtomicBoolean(true);
        for (Partition p : parts) {
            // "$" becomes the newest id now, so that nothing is lost between one blocking read and the next.
            String from = afterId.equals("$") ? p.backend().lastStreamId(p.keys().events()) : afterId;
            RedisBackend own = p.backend().dedicated();
            connections.add(own);
            Thread t = new Thread(() -> follow(own, p, from, listener, open), "delayq-events-" + p.keys().queue());
            t.setDaemon(true);
            readers.add(t);
            t.start();
        }
        return () -> {
            open.set(false);
            for (Thread t : readers) {
                t.join(10_000);
            }
            connections.forEach(RedisBackend::close);
        };
    }

    /** Reads one stream until closed; a failing read is retried after a pause, a throwing listener is logged. */
    private static void follow(RedisBackend own, Partition p, String afterId, Consumer<JobEvent> listener,
                               java.util.concurrent.atomic.AtomicBoolean open) {
        String cursor = afterId;
        long block = Math.max(100, Math.min(2_000, own.timeout().toMillis() / 2));
        while (open.get()) {
            try {
                for (RedisBackend.StreamEntry e : own.xreadAfter(p.keys().events(), cursor, 100, block)) {
                    cursor = e.id();
                    try {
                        listener.accept(event(e));
                    } catch (RuntimeException ex) {
                        LOG.warn("event listener of queue {} failed on {}: {}", p.name(), e.id(), ex.toString());
                    }
                }
            } catch (RuntimeException ex) {
                if (!open.get()) {
                    return;
                }
                LOG.debug("reading the events of queue {} failed, trying again: {}", p.name(), ex.toString());
                java.util.concurrent.locks.LockSupport.parkNanos(500_000_000L);
            }
        }
    }

    private static JobEvent event(RedisBackend.StreamEntry e) {
        Map<String, String> rest = new LinkedHashMap<>(e.fields());
        String type = rest.remove("type");
        String id = rest.remove("id");
        long ms = Long.parseLong(e.id().substring(0, e.id().indexOf('-')));
        return new JobEvent(e.id(), type, id, Instant.ofEpochMilli(ms), Map.copyOf(rest));
    }

    private static void check(String id) {
        if (id == null || !ID.matcher(id).matches()) {
            throw new IllegalArgumentException("event id '" + (id == null ? "null" : Validation.printable(id))
                    + "' is invalid: use 0 (the oldest kept), $ (only new ones) or an id such as 1764547200000-0");
        }
    }

    private static int compareIds(String a, String b) {
        String[] x = a.split("-");
        String[] y = b.split("-");
        int c = Long.compare(Long.parseLong(x[0]), Long.parseLong(y[0]));
        return c != 0 ? c : Long.compare(x.length > 1 ? Long.parseLong(x[1]) : 0, y.length > 1 ? Long.parseLong(y[1]) : 0);
    }
}
