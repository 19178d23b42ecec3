package dev.delayq;

/**
 * A job's links in a flow (docs/flows.md), read at once by {@link QueueInspector#links(String)}.
 *
 * @param pendingParents  parents that have not finished yet, while the job is waiting for them; -1 when it waits for
 *                        none (it never had parents, or it was released or ended)
 * @param doneParents     parents that completed, counted while it waits (-1 as above)
 * @param deadParents     parents that went dead, were cancelled or deleted, counted while it waits under
 *                        {@link OnParentDead#IGNORE} (-1 as above)
 * @param onParentDead    its policy while it waits ({@link OnParentDead#DEAD} when it waits for none)
 * @param waitingChildren jobs waiting for this one to finish
 */
public record FlowLinks(int pendingParents, int doneParents, int deadParents, OnParentDead onParentDead,
                        long waitingChildren) {
    /** Whether the job is waiting for parents (the parent counts are known). */
    public boolean waiting() {
        return pendingParents >= 0;
    }
}
