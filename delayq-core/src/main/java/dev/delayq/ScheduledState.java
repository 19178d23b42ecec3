package dev.delayq;

/**
 * Where a {@linkplain JobState#SCHEDULED scheduled} job waits, as {@link QueueStats} counts them (
 * {@link QueueStats#ready()}, {@link QueueStats#delayed()}, {@link QueueStats#retrying()}): listed by
 * {@link QueueInspector#stream(ScheduledState)}.
 */
public enum ScheduledState {
    /** Due now: waiting for a worker (a retry whose time has come included). */
    READY,
    /** Due later, not waiting for a retry. */
    DELAYED,
    /** Failed, waiting for a retry still to come. */
    RETRYING;

    /**
     * Parses a name, case-insensitively ({@code ready}, {@code delayed}, {@code retrying}).
     *
     * @throws IllegalArgumentException naming the allowed values
     */
    public static ScheduledState parse(String name) {
        for (ScheduledState s : values()) {
            if (s.name().equalsIgnoreCase(name)) {
                return s;
            }
        }
        throw new IllegalArgumentException("unknown scheduled state '" + name + "': use ready, delayed or retrying");
    }

    /** The lower-case name used by the command line and JSON output. */
    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
