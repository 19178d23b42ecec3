package dev.delayq.internal.worker;

import dev.delayq.internal.TextFields;
import dev.delayq.internal.base.Validation;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * The worker's lines about single jobs, all on one logger, {@value #LOGGER}, in one grep-friendly format: a fixed
 * phrase, then {@code key=value} fields in a fixed order. A value is written as it is when it holds only printable
 * characters other than blanks, quotes and backslashes, else in double quotes with backslash escapes (the command
 * line's rule for user data), so that an id, a name or an error can never pass for another field or another line.
 *
 * <ul>
 *   <li>WARN {@code job failed: queue=Q id=ID name=NAME attempt=N/M next=WHEN error=FIRST_LINE}: once per failed
 *   attempt, when Redis has recorded it; {@code next} is the retry's due time (ISO-8601 UTC, on Redis's clock),
 *   {@code dead}, or {@code unknown} (the reply of the call that recorded it was lost).</li>
 *   <li>WARN {@code job lease lost: queue=Q id=ID name=NAME attempt=N/M token=T reason=WHY [error=...]}: once per run
 *   whose lease was lost, by whichever part of the worker learns it first; not a failure of the job (no attempt is
 *   used up: the job runs again, here or elsewhere).</li>
 *   <li>INFO {@code job returned after its timeout: ... timeout=DUR took=DUR}: a handler that ignored its interrupt for
 *   more than a second returned at last (it held its thread meanwhile); DEBUG when it returned within a second.</li>
 *   <li>DEBUG {@code job completed: ... took=DUR} once Redis accepted the completion, and {@code job threw: ...} with
 *   the stack trace of a handler's exception.</li>
 * </ul>
 *
 * <p>While a handler runs, the MDC of its thread holds the job ({@link #enter}).
 */
final class JobLog {
    /** The logger of every line about a single job. */
    static final String LOGGER = "dev.delayq.jobs";
    static final Logger LOG = LoggerFactory.getLogger(LOGGER);

    /** MDC keys, set while a handler runs: queue, job id, attempt (a number from 1), the job's name when it has one. */
    static final String MDC_QUEUE = "delayq.queue";
    static final String MDC_JOB_ID = "delayq.jobId";
    static final String MDC_ATTEMPT = "delayq.attempt";
    static final String MDC_JOB_NAME = "delayq.jobName";
    private static final String[] MDC_KEYS = {MDC_QUEUE, MDC_JOB_ID, MDC_ATTEMPT, MDC_JOB_NAME};

    /** For {@link #failed}: the job went to dead. */
    static final long DEAD = -1;
    /** For {@link #failed}: what Redis recorded is not known (the reply was lost and the job is gone since). */
    static final long UNKNOWN = -2;

    /** How long past its deadline a handler that returns counts as having ignored its interrupt. */
    static final Duration IGNORED_INTERRUPT = Duration.ofSeconds(1);

    /** ISO-8601 in UTC, always with milliseconds (as the command line prints instants). */
    private static final DateTimeFormatter ISO = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'")
            .withZone(ZoneOffset.UTC);

    private JobLog() {
    }

    /**
     * A failed attempt that Redis recorded: {@code nextMillis} is the retry's due time (epoch ms), {@link #DEAD}, or
     * {@link #UNKNOWN}.
     */
    static void failed(Running r, long nextMillis, String error) {
        if (LOG.isWarnEnabled()) {
            String next = nextMillis == DEAD ? "dead" : nextMillis == UNKNOWN ? "unknown" : instant(nextMillis);
            LOG.warn("job failed: {} next={} error={}", job(r), next, value(firstLine(error)));
        }
    }

    /**
     * The run's lease was lost ({@code reason}); {@code error}, when not null, is what the run failed with. Logged at
     * WARN the first time for a run, at DEBUG after (another part of the worker learnt of the same loss).
     */
    static void leaseLost(Running r, String reason, String error) {
        boolean first = r.firstLossReport();
        if (first ? LOG.isWarnEnabled() : LOG.isDebugEnabled()) {
            String line = "job lease lost: " + job(r) + " token=" + r.token() + " reason=" + value(reason)
                    + (error != null ? " error=" + value(firstLine(error)) : "");
            if (first) {
                LOG.warn("{}", line);
            } else {
                LOG.debug("{} (reported before)", line);
            }
        }
    }

    /** Redis accepted the run's completion. */
    static void completed(Running r) {
        if (LOG.isDebugEnabled()) {
            LOG.debug("job completed: {} took={}", job(r), Validation.human(Duration.ofNanos(r.finishedNanos - r.startNanos)));
        }
    }

    /** The handler threw {@code e} (its stack trace, for debugging; the failure itself is logged by {@link #failed}). */
    static void threw(Running r, Throwable e) {
        if (LOG.isDebugEnabled()) {
            LOG.debug("job threw: {}", job(r), e);
        }
    }

    /**
     * The handler of a run that had timed out (its failure logged already) returned: at INFO when it held its thread
     * for more than {@link #IGNORED_INTERRUPT} past its deadline (it ignored the interrupt), else at DEBUG; {@code nowNanos}
     * is the worker's ticker now.
     */
    static void returnedAfterTimeout(Running r, long timeoutMillis, long nowNanos) {
        long took = nowNanos - r.startNanos;
        boolean ignored = took - TimeUnit.MILLISECONDS.toNanos(timeoutMillis) > IGNORED_INTERRUPT.toNanos();
        if (ignored ? LOG.isInfoEnabled() : LOG.isDebugEnabled()) {
            String line = "job returned after its timeout: " + job(r) + " timeout=" + Validation.human(Duration.ofMillis(timeoutMillis))
                    + " took=" + Validation.human(Duration.ofNanos(took));
            if (ignored) {
                LOG.info("{}", line);
            } else {
                LOG.debug("{}", line);
            }
        }
    }

    /** {@code queue=Q id=ID name=NAME attempt=N/M}; a job without a name has {@code name=-}. */
    static String job(Running r) {
        return "queue=" + value(r.queue) + " id=" + value(r.id()) + " name=" + (r.name() == null ? "-" : value(r.name()))
                + " attempt=" + r.attempt() + "/" + r.maxAttempts();
    }

    /**
     * Puts the job's keys in the MDC of the current thread (the handler's) and returns the values they had, for
     * {@link #leave}: a thread of the user's executor may carry MDC values of its own.
     */
    static String[] enter(Running r) {
        String[] values = {r.queue, r.id(), Integer.toString(r.attempt()), r.name()};
        String[] before = new String[MDC_KEYS.length];
        for (int i = 0; i < MDC_KEYS.length; i++) {
            before[i] = MDC.get(MDC_KEYS[i]);
            put(MDC_KEYS[i], values[i]);
        }
        return before;
    }

    /** Puts back the MDC values {@link #enter} found. */
    static void leave(String[] before) {
        for (int i = 0; i < MDC_KEYS.length; i++) {
            put(MDC_KEYS[i], before[i]);
        }
    }

    private static void put(String key, String value) {
        if (value == null) {
            MDC.remove(key);
        } else {
            MDC.put(key, value);
        }
    }

    static String instant(long epochMillis) {
        return ISO.format(Instant.ofEpochMilli(epochMillis));
    }

    static String firstLine(String s) {
        if (s == null) {
            return "";
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\n' || c == '\r') {
                return s.substring(0, i);
            }
        }
        return s;
    }

    /** {@code s} by the one rule for user data in text ({@link TextFields#field}). */
    static String value(String s) {
        return TextFields.field(s);
    }
}
