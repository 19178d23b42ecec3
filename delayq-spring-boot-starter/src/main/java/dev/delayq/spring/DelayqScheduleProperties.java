package dev.delayq.spring;

/**
 * A recurring schedule declared in properties, {@code delayq.schedules.<name>.*}: created or updated in Redis at
 * start-up, before the workers start, like a {@link DelayqScheduled} method's. Its ticks are jobs named after the
 * schedule: a {@link DelayqListener} with that {@code name} runs them (or the queue's listener without a name).
 */
public class DelayqScheduleProperties {
    /** The queue the ticks are enqueued on. */
    private String queue;

    /** A cron expression of 5 fields (or 6, seconds first), read on the wall clock of zone; or set every. */
    private String cron;

    /** A fixed interval instead of cron: a whole number of seconds, at least 1s. */
    private String every;

    /** The time zone of cron. */
    private String zone = "UTC";

    /** Ticks missed while no worker ran: SKIP, ONCE (one catch-up run) or ALL (up to 100). */
    private String missed = "SKIP";

    /** The payload of every tick (UTF-8 text, at most 64KB), e.g. a JSON document the listener reads. */
    private String payload;

    public String getQueue() {
        return queue;
    }

    public void setQueue(String queue) {
        this.queue = queue;
    }

    public String getCron() {
        return cron;
    }

    public void setCron(String cron) {
        this.cron = cron;
    }

    public String getEvery() {
        return every;
    }

    public void setEvery(String every) {
        this.every = every;
    }

    public String getZone() {
        return zone;
    }

    public void setZone(String zone) {
        this.zone = zone;
    }

    public String getMissed() {
        return missed;
    }

    public void setMissed(String missed) {
        this.missed = missed;
    }

    public String getPayload() {
        return payload;
    }

    public void setPayload(String payload) {
        this.payload = payload;
    }
}
