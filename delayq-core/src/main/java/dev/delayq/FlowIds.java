package dev.delayq;

import java.util.List;

/**
 * The jobs behind a job's flow links (docs/flows.md), read at once by {@link QueueInspector#flowIds(String, int)}: the
 * parents it waits for and the first of the children waiting for it, each with its state.
 *
 * @param parents  the parents it waits for, as named at its enqueue (those already done then are not listed), in that
 *                 order, while it waits; empty once it was released or ended (its links are gone then)
 * @param children the first of the jobs waiting for it (at most the number asked for), in enqueue order
 * @param waitingChildren how many jobs wait for it in all ({@code children} may list fewer)
 */
public record FlowIds(List<Linked> parents, List<Linked> children, long waitingChildren) {
    public FlowIds {
        parents = List.copyOf(parents);
        children = List.copyOf(children);
    }

    /**
     * One linked job.
     *
     * @param id    its id
     * @param state its state; {@code null} when there is no such job any more (deleted, or purged after it finished)
     */
    public record Linked(String id, JobState state) {
    }
}
