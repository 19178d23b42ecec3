package dev.delayq;

/** Redis's answer to a fenced operation (complete, renew, release) on one job. */
public enum Ack {
    /** Applied. */
    OK,
    /** Already applied by an earlier identical call (a complete re-sent after a lost reply). */
    ALREADY_APPLIED,
    /** Refused: the token is not the job's current lease (recovered, re-leased, or finished by someone else). */
    STALE,
    /** Refused: there is no such job (never existed, cancelled, or purged). */
    NOT_FOUND;

    /** {@code true} for {@link #OK} and {@link #ALREADY_APPLIED}. */
    public boolean applied() {
        return this == OK || this == ALREADY_APPLIED;
    }
}
