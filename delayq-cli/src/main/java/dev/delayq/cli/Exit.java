package dev.delayq.cli;

/** Exit statuses of the delayq command. */
public final class Exit {
    /** Success. */
    public static final int OK = 0;
    /** The command ran but the answer is negative: inconsistency found, job not found, change refused, demo lost jobs. */
    public static final int FAILED = 1;
    /** Invalid arguments or input (the message says what is allowed). */
    public static final int USAGE = 2;
    /** Redis unreachable, timed out, refused the credentials, or is configured unsafely. */
    public static final int REDIS = 3;

    private Exit() {
    }
}
