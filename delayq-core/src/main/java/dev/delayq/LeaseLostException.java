package dev.delayq;

/** Thrown by {@link JobContext#ensureLease()} once the job's lease is lost; the job may be running elsewhere. */
public class LeaseLostException extends DelayQException {
    /** For job {@code id} whose lease had token {@code token}. */
    public LeaseLostException(String id, long token) {
        super("lease of job '" + id + "' (token " + token + ") is lost: stop working on it");
    }
}
