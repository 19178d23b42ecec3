package dev.delayq.internal.queue;

import dev.delayq.CheckReport;
import dev.delayq.internal.Keys;
import dev.delayq.internal.ops.CheckStep;
import dev.delayq.internal.redis.RedisBackend;
import java.util.ArrayList;
import java.util.List;

/** The consistency check of one key set, page by page and phase by phase (each job judged atomically). */
final class QueueCheck {
    /** Problems reported at most. */
    private static final int MAX_PROBLEMS = 1000;

    private QueueCheck() {
    }

    /** Checks the key set of {@code keys}. */
    static CheckReport run(RedisBackend redis, Keys keys) {
        List<String> problems = new ArrayList<>();
        long records = 0;
        long entries = 0;
        for (String phase : CheckStep.PHASES) {
            String cursor = "0";
            do {
                CheckStep.Page page = redis.await(CheckStep.call(redis, keys, phase, cursor), "check");
                cursor = page.cursor();
                if (phase.equals("jobs")) {
                    records += page.scanned();
                } else {
                    entries += page.scanned();
                }
                for (String p : page.problems()) {
                    if (problems.size() < MAX_PROBLEMS) {
                        problems.add(p);
                    }
                }
            } while (!cursor.equals("0"));
        }
        return new CheckReport(records, entries, List.copyOf(problems));
    }
}
