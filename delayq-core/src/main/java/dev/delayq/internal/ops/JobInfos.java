package dev.delayq.internal.ops;

import dev.delayq.JobInfo;
import dev.delayq.JobState;
import dev.delayq.internal.Record;

/** A job's {@link JobInfo} from its record and the score of its index entry. */
final class JobInfos {
    private JobInfos() {
    }

    /** {@code score}: the due time (scheduled), lease expiry (processing) or finish time (done, dead); -1 unknown. */
    static JobInfo of(String id, Record rec, long score) {
        JobState s = rec.state();
        long due = s == JobState.SCHEDULED ? score : rec.due();
        long lease = s == JobState.PROCESSING ? score : -1;
        long finished = s == JobState.DONE || s == JobState.DEAD ? score : -1;
        return new JobInfo(id, s, rec.attempt(), rec.maxAttempts(), due, lease, finished, rec.token(), rec.error(), rec.payload());
    }
}
