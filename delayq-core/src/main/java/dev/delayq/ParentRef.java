package dev.delayq;

import dev.delayq.internal.base.Validation;

/**
 * A parent of a job in another queue ({@link Job.Builder#afterIn(String, String...)}): the queue's name and the
 * parent's id there. Written {@code queue/id} ({@link #toString()}, the command line's {@code --after-in}): a queue name
 * never holds a {@code /}, so the first one ends it and the id may hold any.
 *
 * @param queue the parent's queue (with or without partitions; the child's own queue names a parent in another
 *              of its partitions)
 * @param id    the parent's id in that queue
 */
public record ParentRef(String queue, String id) {
    /**
     * Checks both parts.
     *
     * @throws IllegalArgumentException when the queue name or the id is invalid
     */
    public ParentRef {
        Validation.queueName(queue);
        Validation.jobId(id);
    }

    /**
     * The parent written {@code queue/id}.
     *
     * @throws IllegalArgumentException when {@code text} has no {@code /}, or either part is invalid
     */
    public static ParentRef parse(String text) {
        int slash = text == null ? -1 : text.indexOf('/');
        if (slash < 0) {
            throw new IllegalArgumentException("parent '" + text + "' in another queue must be written QUEUE/ID, e.g."
                    + " payments/p7");
        }
        return new ParentRef(text.substring(0, slash), text.substring(slash + 1));
    }

    /** {@code queue/id}: how the child names this parent (in {@code parent payments/p7 is dead}). */
    @Override
    public String toString() {
        return queue + "/" + id;
    }
}
