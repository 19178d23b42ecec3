package dev.delayq.spring;

import dev.delayq.Schedule;
import dev.delayq.ScheduleInfo;
import java.time.DateTimeException;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.util.StringUtils;

/**
 * The schedules an application declares ({@link DelayqScheduled} methods and {@code delayq.schedules.*}), upserted at
 * start-up before any worker starts; and the schedules of the queues it consumes that it no longer declares, removed
 * or reported as {@code delayq.schedule-removal} says.
 */
final class DeclaredSchedules {
    private static final Logger LOG = LoggerFactory.getLogger(DeclaredSchedules.class);

    /** One schedule of one queue, and what declared it (for messages). */
    record Declared(String queue, Schedule schedule, String source) {
    }

    private DeclaredSchedules() {
    }

    /**
     * Every declared schedule, checked.
     *
     * @throws IllegalArgumentException naming the method or property and what is wrong, or two declarations of one
     *                                  schedule
     */
    static List<Declared> of(QueuePlan plan, DelayqProperties p, EndpointAttributes a) {
        List<Declared> all = new ArrayList<>();
        for (QueuePlan.Group g : plan.groups().values()) {
            g.byName.forEach((name, e) -> {
                if (e.scheduled() != null) {
                    DelayqScheduled s = e.scheduled();
                    all.add(new Declared(g.queue, schedule(e.label(), name, a.resolve(s.cron()), a.resolve(s.every()),
                            a.resolve(s.zone()), a.resolve(s.missed()), null), e.label()));
                }
            });
        }
        for (Map.Entry<String, DelayqScheduleProperties> entry : p.getSchedules().entrySet()) {
            String label = "delayq.schedules." + entry.getKey();
            DelayqScheduleProperties s = entry.getValue();
            if (!StringUtils.hasText(s.getQueue())) {
                throw new IllegalArgumentException(label + ".queue is not set: name the queue its ticks go to");
            }
            all.add(new Declared(s.getQueue().trim(), schedule(label, entry.getKey(), s.getCron(), s.getEvery(),
                    s.getZone(), s.getMissed(), s.getPayload()), label));
        }
        Set<String> seen = new HashSet<>();
        for (Declared d : all) {
            if (!seen.add(d.queue() + "\n" + d.schedule().name())) {
                Declared first = all.stream().filter(o -> o.queue().equals(d.queue())
                        && o.schedule().name().equals(d.schedule().name())).findFirst().orElseThrow();
                throw new IllegalArgumentException("schedule '" + d.schedule().name() + "' of queue '" + d.queue()
                        + "' is declared twice: by " + first.source() + " and by " + d.source());
            }
        }
        return all;
    }

    private static Schedule schedule(String label, String name, String cron, String every, String zone, String missed,
                                     String payload) {
        try {
            boolean hasCron = StringUtils.hasText(cron);
            if (hasCron == StringUtils.hasText(every)) {
                throw new IllegalArgumentException("needs exactly one of cron and every, got "
                        + (hasCron ? "both" : "neither"));
            }
            Schedule s;
            if (hasCron) {
                s = Schedule.cron(name, cron, zone(zone));
            } else {
                if (StringUtils.hasText(zone) && !"UTC".equals(zone)) {
                    throw new IllegalArgumentException("zone '" + zone + "' is for cron only, not every");
                }
                try {
                    s = Schedule.every(name, EndpointAttributes.duration(every));
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("every '" + every + "' is not " + e.getMessage(), e);
                }
            }
            s = s.missed(missed(missed));
            return payload == null ? s : s.payload(payload);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(label + ": " + e.getMessage(), e);
        }
    }

    private static ZoneId zone(String zone) {
        if (!StringUtils.hasText(zone)) {
            return ZoneId.of("UTC");
        }
        try {
            return ZoneId.of(zone);
        } catch (DateTimeException e) {
            throw new IllegalArgumentException("zone '" + zone + "' is not a time zone such as UTC or Europe/Berlin", e);
        }
    }

    private static Schedule.Missed missed(String missed) {
        if (!StringUtils.hasText(missed)) {
            return Schedule.Missed.SKIP;
        }
        try {
            return Schedule.Missed.valueOf(missed.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("missed '" + missed + "' is not one of SKIP, ONCE, ALL", e);
        }
    }

    /**
     * Upserts every declared schedule, then, on each queue in {@code consumed}, removes (or reports) the schedules
     * none declares: a worker of this application ticks them, and would run their jobs with no method of theirs.
     */
    static void apply(OperatorCalls ops, List<Declared> declared, Set<String> consumed,
                      DelayqProperties.ScheduleRemoval removal) {
        Set<String> names = new HashSet<>();
        for (Declared d : declared) {
            ops.upsert(d.queue(), d.schedule());
            names.add(d.queue() + "\n" + d.schedule().name());
            LOG.info("delayq: schedule '{}' of queue '{}' ({}) declared by {}", d.schedule().name(), d.queue(),
                    d.schedule().spec(), d.source());
        }
        for (String queue : consumed) {
            for (ScheduleInfo s : ops.schedules(queue)) {
                if (names.contains(queue + "\n" + s.schedule().name())) {
                    continue;
                }
                if (removal == DelayqProperties.ScheduleRemoval.REMOVE) {
                    ops.removeSchedule(queue, s.schedule().name());
                    LOG.warn("delayq: removed schedule '{}' of queue '{}' ({}): this application consumes the queue and "
                            + "no longer declares it (delayq.schedule-removal=report keeps such schedules)",
                            s.schedule().name(), queue, s.schedule().spec());
                } else {
                    LOG.warn("delayq: schedule '{}' of queue '{}' ({}) is not declared by this application, which "
                            + "consumes the queue: it keeps ticking (delayq schedule remove {} {} removes it)",
                            s.schedule().name(), queue, s.schedule().spec(), queue, s.schedule().name());
                }
            }
        }
    }
}
