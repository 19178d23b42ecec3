package dev.delayq.internal.ops;

import dev.delayq.JobInfo;
import dev.delayq.JobState;
import dev.delayq.internal.Record;

/** A job's {@link JobInfo} from its stored record and the score of its index entry. */
final class JobInfos {
    private JobInfos() {
    }

    /**
     * {@code score}: the due time (scheduled), lease expiry (processing) or finish time (done, dead); -1 unknown.
     * A record that cannot be decoded gives a {@link JobInfo#corrupt() corrupt} entry in {@code indexState} holding
     * the raw bytes.
     */
    static JobInfo of(String id, byte[] raw, long score, JobState indexState, long holdUntil, String progress) {
        return of(id, raw, score, indexState, holdUntil, progress, -1, null);
    }

    /**
     * As {@link #of(String, byte[], long, JobState, long, String)} for a record the script cut to a preview:
     * {@code wholePayload} is the whole payload's size (of the raw record's, when it cannot be decoded), -1 when the
     * record is whole.
     */
    static JobInfo of(String id, byte[] raw, long score, JobState indexState, long holdUntil, String progress,
                      long wholePayload) {
        return of(id, raw, score, indexState, holdUntil, progress, wholePayload, null);
    }

    /** As {@link #of(String, byte[], long, JobState, long, String, long)} with the result the job's handler left. */
    static JobInfo of(String id, byte[] raw, long score, JobState indexState, long holdUntil, String progress,
                      long wholePayload, byte[] result) {
        Record rec;
        try {
            rec = Record.decode(raw);
        } catch (Record.CorruptRecordException e) {
            return new JobInfo(id, indexState, 0, 0, indexState == JobState.SCHEDULED ? score : -1,
                    indexState == JobState.PROCESSING ? score : -1,
                    indexState == JobState.DONE || indexState == JobState.DEAD ? score : -1, 0, e.getMessage(), raw, null, -1,
                    0, null, -1, true, 0, progress, null, null, wholePayload >= 0 ? wholePayload : raw.length, null, result);
        }
        JobState s = rec.state();
        long due = s == JobState.SCHEDULED ? score : rec.due();
        long lease = s == JobState.PROCESSING ? score : -1;
        long finished = rec.finishedAt() >= 0 ? rec.finishedAt() : s == JobState.DONE || s == JobState.DEAD ? score : -1;
        return new JobInfo(id, s, rec.attempt(), rec.maxAttempts(), due, lease, finished, rec.token(), rec.error(),
                rec.payload(), rec.name(), rec.createdMillis(), rec.stalls(), rec.dedupeKey(), holdUntil, false, rec.priority(),
                progress, rec.traceparent(), rec.tracestate(), wholePayload >= 0 ? wholePayload : rec.payload().length,
                rec.group(), result);
    }
}
