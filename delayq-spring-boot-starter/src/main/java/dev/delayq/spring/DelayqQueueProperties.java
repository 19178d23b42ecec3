package dev.delayq.spring;

import java.time.Duration;

/**
 * Settings of one queue, {@code delayq.queues.<queue>.*}, applied in Redis when the application starts, before its
 * workers start. A setting left unset leaves the queue as it is in Redis (a rate or concurrency limit, a pause and
 * the event stream are stored with the queue, for every application and the command line alike).
 */
public class DelayqQueueProperties {
    /**
     * Most jobs started per period, as jobs/period: 100/1s, 6000/1m. With concurrency-limit unset, setting it removes
     * a concurrency limit stored before; none removes both limits.
     */
    private String rate;

    /** Most jobs of the queue running at once across every worker of the fleet. */
    private Integer concurrencyLimit;

    /** Longest run of a job of this queue (the worker interrupts it and the attempt fails); a listener's jobTimeout wins. */
    private Duration jobTimeout;

    /** Attempts in all of a job of this queue, the first included; a listener's maxAttempts wins. */
    private Integer maxAttempts;

    /** Whether the queue is paused (true: no job starts until resumed; false: resumed at start-up). */
    private Boolean paused;

    /** Whether the queue records its event stream (what happened to each job, for the dashboard and delayq events). */
    private Boolean events;

    public String getRate() {
        return rate;
    }

    public void setRate(String rate) {
        this.rate = rate;
    }

    public Integer getConcurrencyLimit() {
        return concurrencyLimit;
    }

    public void setConcurrencyLimit(Integer concurrencyLimit) {
        this.concurrencyLimit = concurrencyLimit;
    }

    public Duration getJobTimeout() {
        return jobTimeout;
    }

    public void setJobTimeout(Duration jobTimeout) {
        this.jobTimeout = jobTimeout;
    }

    public Integer getMaxAttempts() {
        return maxAttempts;
    }

    public void setMaxAttempts(Integer maxAttempts) {
        this.maxAttempts = maxAttempts;
    }

    public Boolean getPaused() {
        return paused;
    }

    public void setPaused(Boolean paused) {
        this.paused = paused;
    }

    public Boolean getEvents() {
        return events;
    }

    public void setEvents(Boolean events) {
        this.events = events;
    }
}
