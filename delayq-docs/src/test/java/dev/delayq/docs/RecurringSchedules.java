package dev.delayq.docs;

import dev.delayq.DelayQ;
import dev.delayq.Schedule;
import dev.delayq.ScheduleInfo;
import dev.delayq.Schedules;
import dev.delayq.Worker;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import java.util.Optional;

/** docs/schedules.md: recurring schedules. */
final class RecurringSchedules {
    private RecurringSchedules() {
    }

    static void schedules(DelayQ dq) {
        // tag::schedules[]
        Schedules schedules = dq.queue("reports").schedules();
        schedules.upsert(Schedule.cron("nightly", "30 2 * * *", ZoneId.of("Europe/Berlin"))  // 5 fields, or 6 with seconds
                .payload("{\"report\":\"sales\"}")
                .missed(Schedule.Missed.ONCE)          // SKIP (default), ONCE or ALL
                .maxAttempts(3)
                .noOverlap(true));                     // no new tick while the previous one is scheduled or running
        schedules.upsert(Schedule.every("ping", Duration.ofSeconds(30)));   // at least 1 s

        // Each tick is a job of the queue named after its schedule, id "nightly@<tick ms>".
        Worker.builder(dq.queue("reports"))
                .handle("nightly", ctx -> runReport(ctx.payloadUtf8()))
                .handle("ping", ctx -> ping())
                .build().start();                      // every worker of the queue also ticks its schedules

        List<ScheduleInfo> all = schedules.list();     // [ScheduleInfo[schedule, nextTick, lastTick], ...]
        Optional<ScheduleInfo> nightly = schedules.get("nightly");
        schedules.pause("nightly");                    // no tick until resumed; its pending tick is cancelled
        schedules.resume("nightly");                   // the next tick after now; those that passed while paused skipped
        schedules.remove("ping");                      // and its pending tick is cancelled
        schedules.tick();                              // what every worker does by itself; for setups without workers
        // end::schedules[]
        System.out.println(all.size() + " " + nightly.isPresent());
    }

    private static void runReport(String payload) {
    }

    private static void ping() {
    }
}
