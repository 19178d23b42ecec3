package dev.delayq;

/** Where a job is in its life. */
public enum JobState {
    /** Waiting in the due set for its time (or for a retry after a failed attempt). */
    SCHEDULED(1),
    /** Leased to a worker that is running it. */
    PROCESSING(2),
    /** Completed; kept for the done retention, then purged. */
    DONE(3),
    /** Failed for good (attempts used up, or a non-retryable error); kept for the dead retention. */
    DEAD(4),
    /** Waiting for its parents to finish (a flow, see docs/flows.md): not due until released. */
    WAITING(6);

    private final int code;

    JobState(int code) {
        this.code = code;
    }

    /** The number stored in the job record. */
    public int code() {
        return code;
    }

    /** The state stored as {@code code}. */
    public static JobState ofCode(int code) {
        for (JobState s : values()) {
            if (s.code == code) {
                return s;
            }
        }
        throw new IllegalArgumentException("unknown job state code " + code);
    }

    /**
     * Parses a state name, case-insensitively ({@code scheduled}, {@code processing}, {@code done}, {@code dead}).
     *
     * @throws IllegalArgumentException naming the allowed values
     */
    public static JobState parse(String name) {
        for (JobState s : values()) {
            if (s.name().equalsIgnoreCase(name)) {
                return s;
            }
        }
        throw new IllegalArgumentException("unknown state '" + name + "': use scheduled, processing, done, dead or waiting");
    }

    /** The lower-case name used by the command line and JSON output. */
    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
