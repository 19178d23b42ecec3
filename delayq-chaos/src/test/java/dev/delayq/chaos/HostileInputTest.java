package dev.delayq.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.delayq.DelayQ;
import dev.delayq.EnqueueResult;
import dev.delayq.Job;
import dev.delayq.JobInfo;
import dev.delayq.JobState;
import dev.delayq.Bounds;
import dev.delayq.JobQueue;
import dev.delayq.QueueStats;
import dev.delayq.Worker;
import dev.delayq.testkit.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Test;

/**
 * Scenario 11 of the fault suite: hostile job ids, dedupe keys, queue names and key prefixes (hash-tag braces,
 * {@code :}, {@code *}, line breaks, control characters, invalid text, 1 MB strings) and garbage payloads. Each
 * value is either rejected with an {@link IllegalArgumentException} whose message names the field and what is
 * allowed, or stored and returned byte-exact, exactly as the documented rules say (an independent oracle,
 * {@link HostileStrings}). Redis must hold no key outside the accepted queues' {@code dq:{queue}:} prefix, nothing
 * may crash, and workers must run every accepted job with its exact id and payload.
 */
class HostileInputTest {
    private static final String MAIN = "hostile";
    private static final String PREFIX = "dq";
    private static final List<String> QUEUE_NAMES = List.of("a:b", "...", "-", "_", ":", "Q.1", "A-Z_0.9:", "q", "a{b",
            "{q}", "q}", "}", "q*", "*", "q q", "q\nx", "q\r\n", "", "x".repeat(128), "x".repeat(129), "日本", "q#0", "dq:queues",
            "\ud800", "q\0", "q?", "q[1]", "dq:{hostile}:jobs");

    @Test
    void hostileInputIsRejectedClearlyOrStoredByteExact() {
        long testStart = System.nanoTime();
        int cases = Chaos.size(2_000, 10_000);
        HostileStrings gen = new HostileStrings(Chaos.SEED);
        int maxPayload = Bounds.DEFAULT_MAX_PAYLOAD;

        try (RedisServer server = RedisServer.builder().config("appendonly", "yes").start();
             DelayQ dq = DelayQ.builder().redis(server.uri()).prefix(PREFIX).retryPolicy(Rig.FAST).build()) {
            // queue -> id -> payload of every accepted job (the first one, for a repeated id)
            Map<String, Map<String, byte[]>> stored = new LinkedHashMap<>();
            Map<String, Checker> checkers = new LinkedHashMap<>();
            List<String> unclear = new ArrayList<>();
            List<String> crashes = new ArrayList<>();
            List<String> oracle = new ArrayList<>();
            int rejected = 0;
            int accepted = 0;
            int duplicates = 0;

            for (int i = 0; i < cases; i++) {
                int kind = i % 10;
                String queue = MAIN;
                String id;
                String dedupe = null;
                String prefix = null;
                byte[] payload = gen.bytes(gen.nextInt(2048));
                if (i % 1000 == 7) {
                    payload = gen.bytes(maxPayload); // exactly at the limit: accepted
                } else if (i % 1000 == 507) {
                    payload = gen.bytes(maxPayload + 1); // one byte over: rejected
                }
                if (kind <= 5) {
                    id = gen.next(Bounds.MAX_ID_BYTES);
                } else if (kind == 6) {
                    id = i % 1000 == 6 ? gen.repeat(1024 * 1024) : gen.next(Bounds.MAX_ID_BYTES); // 1 MB ids too
                } else if (kind == 7) {
                    id = "dedupe-" + i;
                    dedupe = i % 1000 == 17 ? gen.repeat(1024 * 1024) : gen.next(Bounds.MAX_DEDUPE_KEY_BYTES);
                } else if (kind == 8) {
                    id = "queue-" + i;
                    queue = i % 1000 == 8 ? gen.repeat(1024 * 1024) // 1 MB names too
                            : gen.nextInt(10) < 7 ? QUEUE_NAMES.get(gen.nextInt(QUEUE_NAMES.size())) : gen.next(Bounds.MAX_QUEUE_NAME);
                } else {
                    id = "prefix-" + i;
                    prefix = i % 1000 == 9 ? gen.repeat(1024 * 1024) : gen.next(Bounds.MAX_PREFIX);
                }

                String field = prefix != null ? "key prefix" : !HostileStrings.validQueueName(queue) ? "queue name"
                        : !HostileStrings.validText(id) ? "job id"
                        : dedupe != null && !HostileStrings.validText(dedupe) ? "dedupe key"
                        : payload.length > maxPayload ? "payload" : null;
                try {
                    if (prefix != null) {
                        if (HostileStrings.validQueueName(prefix) && prefix.length() <= Bounds.MAX_PREFIX) {
                            continue; // a valid prefix would be a second client's keys: its rules are the queue name's
                        }
                        DelayQ.builder().redis(server.uri()).prefix(prefix).build().close();
                        oracle.add("prefix accepted: " + show(prefix));
                        continue;
                    }
                    JobQueue q = dq.queue(queue);
                    Job.Builder b = Job.builder().id(id).payload(payload);
                    if (dedupe != null) {
                        b.dedupe(dedupe, Duration.ofHours(1));
                    }
                    EnqueueResult r = q.enqueue(b.build());
                    if (field != null) {
                        oracle.add(field + " accepted: " + show(queue) + " / " + show(id) + " / " + show(String.valueOf(dedupe)));
                        continue;
                    }
                    Map<String, byte[]> mine = stored.computeIfAbsent(queue, k -> new ConcurrentHashMap<>());
                    Checker checker = checkers.computeIfAbsent(queue, k -> new Checker("11-hostile-input"));
                    byte[] first = mine.get(id);
                    if (first != null) {
                        duplicates++;
                        assertThat(r.duplicate()).as("second enqueue of %s", show(id)).isTrue();
                    } else if (r.duplicate()) {
                        // Only a dedupe key already held by another job may make a new id a duplicate.
                        assertThat(dedupe).as("duplicate without a repeated id: %s", show(id)).isNotNull();
                        assertThat(mine).containsKey(r.id());
                        duplicates++;
                    } else {
                        mine.put(id, payload);
                        checker.acked(id);
                        accepted++;
                        Optional<JobInfo> info = q.get(id);
                        assertThat(info).as("stored job %s", show(id)).isPresent();
                        assertThat(info.get().id()).isEqualTo(id);
                        assertThat(Arrays.equals(info.get().payload(), payload)).as("payload of %s byte-exact", show(id)).isTrue();
                    }
                } catch (IllegalArgumentException e) {
                    rejected++;
                    if (field == null) {
                        oracle.add("rejected valid input " + show(queue) + " / " + show(id) + ": " + e.getMessage());
                    } else if (!clear(e.getMessage(), field)) {
                        unclear.add(field + ": " + show(e.getMessage()));
                    }
                } catch (RuntimeException e) {
                    crashes.add(show(queue) + " / " + show(id) + ": " + e);
                }
            }

            // Every accepted job runs, with its exact id and payload.
            ConcurrentLinkedQueue<String> corrupted = new ConcurrentLinkedQueue<>();
            List<Worker> workers = new ArrayList<>();
            try {
                for (Map.Entry<String, Map<String, byte[]>> e : stored.entrySet()) {
                    Map<String, byte[]> expected = e.getValue();
                    workers.add(Rig.worker(dq.queue(e.getKey()), checkers.get(e.getKey()), "hostile-w" + workers.size(),
                            e.getKey().equals(MAIN) ? 8 : 2, job -> {
                                byte[] want = expected.get(job.id());
                                if (want == null || !Arrays.equals(want, job.payload())) {
                                    corrupted.add(show(job.id()));
                                }
                            }).start());
                }
                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
                        .until(() -> stored.entrySet().stream().allMatch(e -> {
                            QueueStats s = dq.queue(e.getKey()).inspector().stats();
                            return s.done() == e.getValue().size() && s.scheduled() == 0 && s.processing() == 0;
                        }));
            } finally {
                workers.forEach(Worker::close);
            }

            // Only the accepted queues' keys (and the queue registry) exist.
            List<String> keys = Rig.scanKeys(server);
            List<String> outside = keys.stream().filter(k -> !k.equals(PREFIX + ":queues")
                    && stored.keySet().stream().noneMatch(q -> k.startsWith(latin1(PREFIX + ":{" + q + "}:")))).toList();

            Checker.Verdict verdict = checkers.get(MAIN).check(dq.queue(MAIN), JobState.DONE);
            List<Checker.Verdict> others = new ArrayList<>();
            for (Map.Entry<String, Checker> e : checkers.entrySet()) {
                if (!e.getKey().equals(MAIN)) {
                    others.add(e.getValue().check(dq.queue(e.getKey()), JobState.DONE));
                }
            }
            Map<String, Object> extra = new LinkedHashMap<>();
            extra.put("inputs", cases);
            extra.put("accepted", accepted);
            extra.put("rejected", rejected);
            extra.put("duplicates", duplicates);
            extra.put("queues", stored.size());
            extra.put("other_queues_completions", others.stream().mapToLong(Checker.Verdict::completions).sum());
            extra.put("other_queues_lost", others.stream().mapToInt(v -> v.lost().size()).sum());
            extra.put("unclear_errors", unclear.size());
            extra.put("oracle_mismatches", oracle.size());
            extra.put("crashes", crashes.size());
            extra.put("corrupted", corrupted.size());
            extra.put("keys", keys.size());
            extra.put("keys_outside", outside.size());
            extra.put("wall_s", String.format("%.1f", (System.nanoTime() - testStart) / 1e9));
            verdict.line(extra);
            verdict.assertClean();
            others.forEach(Checker.Verdict::assertClean);
            assertThat(crashes).as("inputs that made delayq throw something else than IllegalArgumentException").isEmpty();
            assertThat(oracle).as("inputs accepted or rejected against the documented rules").isEmpty();
            assertThat(unclear).as("rejections whose message does not name the field and what is allowed").isEmpty();
            assertThat(corrupted).as("jobs a worker received with another id or payload").isEmpty();
            assertThat(outside).as("keys outside the accepted queues' {queue} prefix").isEmpty();
            assertThat(server.isRunning()).isTrue();
            assertThat(server.call("PING")).isEqualTo("PONG");
            assertThat(accepted).isGreaterThan(cases / 10);
            assertThat(rejected).isGreaterThan(cases / 10);
            assertThat(stored.size()).as("hostile but valid queue names accepted").isGreaterThan(1);
        }
    }

    /** The message names the field, says what is allowed, and does not echo a megabyte back. */
    private static boolean clear(String message, String field) {
        return message != null && message.contains(field) && message.length() < 1000
                && (message.contains("use ") || message.contains("limit") || message.contains("allowed")
                || message.contains("must"));
    }

    private static String latin1(String s) {
        return new String(s.getBytes(java.nio.charset.StandardCharsets.UTF_8), java.nio.charset.StandardCharsets.ISO_8859_1);
    }

    /** A value for a failure message: control characters escaped, long values cut. */
    private static String show(String s) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < Math.min(s.length(), 60); i++) {
            char c = s.charAt(i);
            b.append(c < 0x20 || c == 0x7f || Character.isSurrogate(c) ? String.format("\\u%04x", (int) c) : String.valueOf(c));
        }
        return s.length() > 60 ? b + "...(" + s.length() + " chars)" : b.toString();
    }
}
