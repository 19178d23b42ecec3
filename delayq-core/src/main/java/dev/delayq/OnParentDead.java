package dev.delayq;

/**
 * What a job waiting for its parents ({@link Job.Builder#after(String...)}) does when one of them goes dead, is
 * cancelled or is deleted before it finished (see docs/flows.md).
 */
public enum OnParentDead {
    /**
     * The default: the child goes dead itself, with error {@code parent <id> is dead}, and its own waiting children
     * after it in the same way.
     */
    DEAD,
    /**
     * The dead parent counts as finished: the child runs once when all its parents have finished, whatever their
     * outcome (a batch's callback).
     */
    IGNORE
}
