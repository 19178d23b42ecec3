package dev.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.delayq.testkit.RedisExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link DelayQ#statsAsync(List)}: the stats of many queues in few requests (stats_many.lua, at most 250 partitions a
 * call), each as its own {@link QueueInspector#stats()} reads it, and a queue whose keys are of the wrong type failing
 * alone.
 */
class StatsManyTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.dedicated(b -> { });

    private static final Pattern CALLS = Pattern.compile("cmdstat_(evalsha|eval):calls=(\\d+)");

    private TestSupport t;
    private DelayQ dq;

    @BeforeEach
    void open() {
        t = new TestSupport(Target.of(REDIS.server()), REDIS.prefix());
        dq = t.client();
    }

    @AfterEach
    void close() {
        t.close();
    }

    private long scriptCalls() {
        Object info = REDIS.server().call("INFO", "commandstats");
        String s = info instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(info);
        Matcher m = CALLS.matcher(s);
        long n = 0;
        while (m.find()) {
            n += Long.parseLong(m.group(2));
        }
        return n;
    }

    @Test
    void twoThousandAndOneQueuesInAFewCallsOneUnreadableFlagged() {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < 2000; i++) {
            String name = "m" + i;
            names.add(name);
            dq.queue(name).enqueue(Job.builder().id("j").payload("p").delay(Duration.ofMinutes(5 + i % 7)).build());
        }
        JobQueue parted = t.queue(dq, "parted", 3);
        for (int i = 0; i < 5; i++) {
            parted.enqueue(Job.builder().id("p" + i).payload("p").build());
        }
        parted.inspector().pause();
        names.add("parted");
        String bad = "m17";
        REDIS.server().call("DEL", key(new dev.delayq.internal.Keys(t.prefix(), bad).dead()));
        REDIS.server().call("SET", key(new dev.delayq.internal.Keys(t.prefix(), bad).dead()), "x");
        List<QueueInspector> inspectors = names.stream().map(dq::inspector).toList();

        long before = scriptCalls();
        Map<String, CompletableFuture<QueueStats>> all = dq.statsAsync(names);
        CompletableFuture.allOf(all.values().toArray(CompletableFuture[]::new)).exceptionally(e -> null).join();
        long calls = scriptCalls() - before;
        // 2,003 partitions: ceil(2003 / 250) = 9 calls (one per call: a refresh of 2,001 queues used to cost 2,003)
        assertThat(calls).as("script calls for 2,001 queues").isLessThanOrEqualTo(10);

        assertThat(all.keySet()).containsExactlyElementsOf(names);
        assertThatThrownBy(() -> all.get(bad).join()).isInstanceOf(CompletionException.class)
                .hasCauseInstanceOf(DelayQException.class).hasMessageContaining("m17").hasMessageContaining("WRONGTYPE");
        for (int i = 0; i < names.size(); i++) {
            String name = names.get(i);
            if (name.equals(bad) || i % 97 != 0 && !name.equals("parted")) {
                continue;
            }
            QueueStats many = all.get(name).join();
            QueueStats one = inspectors.get(i).stats();
            assertThat(many.queue()).isEqualTo(name);
            assertThat(many.scheduled()).isEqualTo(one.scheduled());
            assertThat(many.delayed()).isEqualTo(one.delayed());
            assertThat(many.ready()).isEqualTo(one.ready());
            assertThat(many.totals()).isEqualTo(one.totals());
            assertThat(many.paused()).isEqualTo(one.paused());
            assertThat(many.oldestDueAtMillis()).isEqualTo(one.oldestDueAtMillis());
        }
        assertThat(all.get("m1").join().scheduled()).isEqualTo(1);
        assertThat(all.get("m1").join().delayed()).isEqualTo(1);
        assertThat(all.get("parted").join().scheduled()).isEqualTo(5);
        assertThat(all.get("parted").join().paused()).isTrue();
        assertThat(all.get("m18").join().scheduled()).isEqualTo(1);
    }

    /** 500 queues with workers (some partitioned): their live worker counts in the same few calls, not one per queue. */
    @Test
    void liveWorkersOfFiveHundredQueuesInTheSameFewCalls() {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            String name = "w" + i;
            names.add(name);
            JobQueue queue = i % 50 == 0 ? t.queue(dq, name, 3) : dq.queue(name);
            queue.enqueue(Job.builder().id("j").payload("p").build());
            var parts = dev.delayq.internal.queue.RedisQueue.of(queue).partitions();
            for (int w = 0; w < i % 3; w++) {
                parts.get(w % parts.size()).workerBeat(new dev.delayq.internal.WorkerBeat("k" + w, "k" + w, "h", 1,
                        List.of(name), 1, 0, "t", List.of()), 60_000).join();
            }
        }
        long before = scriptCalls();
        Map<String, CompletableFuture<QueueStats>> all = dq.statsAsync(names);
        CompletableFuture.allOf(all.values().toArray(CompletableFuture[]::new)).join();
        long calls = scriptCalls() - before;
        // 490 queues of one entry, 10 of 3 partitions and a registry: 530 entries, ceil(530 / 250) = 3 calls
        assertThat(calls).as("script calls for 500 queues with their workers").isLessThanOrEqualTo(3);
        for (int i = 0; i < 500; i++) {
            QueueStats s = all.get("w" + i).join();
            assertThat(s.workers()).as("w" + i).isEqualTo(i % 3);
            assertThat(s.workers()).as("w" + i + " as workers() lists them").isEqualTo(dq.inspector("w" + i).workers().size());
            assertThat(s.ready()).as("w" + i).isEqualTo(1);
        }
    }

    private static String key(byte[] k) {
        return new String(k, StandardCharsets.UTF_8);
    }
}
