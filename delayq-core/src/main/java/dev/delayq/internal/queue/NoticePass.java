package dev.delayq.internal.queue;

import dev.delayq.internal.ClientSettings;
import dev.delayq.internal.Keys;
import dev.delayq.internal.ops.Notices;
import dev.delayq.internal.redis.RedisBackend;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** One pass over a key set's outbox of notices ({@link Partition#relayNotices}): read, apply, acknowledge. */
final class NoticePass {
    private NoticePass() {
    }

    static Partition.Relayed run(RedisBackend redis, Keys keys, ClientSettings settings, long expiryMs, int steps) {
        List<byte[]> acks = List.of();
        List<byte[]> later = List.of();
        long applied = 0;
        long expired = 0;
        long putBack = 0;
        for (int step = 0; ; step++) {
            boolean last = step == steps;
            Notices.Due due = redis.await(Notices.step(redis, keys, last ? 1 : Notices.STEP, Partition.NOTICE_RETRY_MS, acks, later),
                    "notices");
            if (last || due.notices().isEmpty()) {
                return new Partition.Relayed(applied, expired, putBack, last && !due.notices().isEmpty());
            }
            acks = new ArrayList<>();
            later = new ArrayList<>();
            Map<String, List<Notices.Notice>> bySet = new LinkedHashMap<>();
            for (Notices.Notice n : due.notices()) {
                if (n.malformed()) {
                    acks.add(n.raw());
                    expired++;
                } else {
                    bySet.computeIfAbsent(n.childSet(), k -> new ArrayList<>()).add(n);
                }
            }
            for (Map.Entry<String, List<Notices.Notice>> e : bySet.entrySet()) {
                List<Notices.Notice> ns = e.getValue();
                List<Long> codes = redis.await(Notices.apply(redis, new Keys(keys.prefix(), e.getKey()), settings.durability(),
                        ns), "notice_apply");
                for (int i = 0; i < ns.size(); i++) {
                    Notices.Notice n = ns.get(i);
                    if (codes.get(i) >= 0) {
                        acks.add(n.raw());
                        applied += codes.get(i);
                    } else if (due.nowMs() - n.writtenMs() > expiryMs) {
                        acks.add(n.raw());
                        expired++;
                    } else {
                        later.add(n.raw());
                        putBack++;
                    }
                }
            }
        }
    }
}
