package dev.delayq;

import java.time.Instant;
import java.util.Map;

/**
 * One state change of a job, as its script appended it to the queue's event stream.
 *
 * @param eventId the stream entry's id ({@code <ms>-<n>}): read on after it with {@link Events#read(String, int)}
 * @param type    {@code enqueued}, {@code started}, {@code completed}, {@code retried}, {@code dead}, {@code cancelled},
 *                {@code deleted}, {@code recovered}, {@code released}, {@code rescheduled}, {@code revived} (a dead job
 *                retried), {@code replaced} (a debounce enqueue replaced the scheduled job) or {@code progress}
 * @param jobId   the job
 * @param at      when it happened (Redis clock, from the entry id)
 * @param fields  the rest: {@code attempt}, {@code token}, {@code at} (epoch ms: the new due time, or for
 *                {@code started} the time the claim handed the job out), {@code stalls}, {@code progress}, as the
 *                change has them
 */
public record JobEvent(String eventId, String type, String jobId, Instant at, Map<String, String> fields) {
}
