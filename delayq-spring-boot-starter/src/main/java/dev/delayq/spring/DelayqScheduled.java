package dev.delayq.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A recurring job: the schedule {@link #name()} of {@link #queue()} is created or updated in Redis when the
 * application starts, before any worker starts, and the annotated bean method runs for each of its ticks (a job
 * named after the schedule). Every worker of the queue ticks it, and each tick runs once across the fleet.
 *
 * <pre>{@code
 * @DelayqScheduled(queue = "reports", name = "nightly-sales", cron = "30 2 * * *", zone = "Europe/Berlin")
 * void nightlySales(JobContext ctx) {
 *     reports.sales(ctx.runAt());
 * }
 * }</pre>
 *
 * <p>Parameters follow {@link DelayqListener}'s rules: any number of {@link dev.delayq.JobContext}, at most one
 * payload (a tick of an annotated schedule has an empty payload). Exactly one of {@link #cron()} and {@link #every()}.
 * Every attribute is a string, so it can hold {@code ${...}} placeholders.
 *
 * <p>A schedule the application no longer declares (the annotation removed, or its name changed) is removed from
 * the queues it consumes at the next start ({@code delayq.schedule-removal=remove}, the default), or only reported
 * in the log ({@code report}); see docs/spring-boot.md.
 */
@Target({ElementType.METHOD, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface DelayqScheduled {
    /** The queue the ticks are enqueued on and run from. */
    String queue();

    /** The schedule's name, also the job name of its ticks (one method per name and queue). */
    String name();

    /**
     * A cron expression: 5 fields ({@code min hour day-of-month month day-of-week}) or 6 (seconds first), read on the
     * wall clock of {@link #zone()}.
     */
    String cron() default "";

    /** A fixed interval instead of cron, a whole number of seconds, at least 1s ({@code 30s}, {@code 5m}, {@code PT1H}). */
    String every() default "";

    /** The time zone of {@link #cron()} (default UTC), e.g. {@code Europe/Berlin}. */
    String zone() default "";

    /** Ticks missed while no worker ran: {@code SKIP} (default), {@code ONCE} or {@code ALL}. */
    String missed() default "";
}
