package dev.delayq;

/**
 * What an enqueue does when its dedupe key is held ({@link Job.Builder#dedupeMode(DedupeMode)}).
 *
 * <ul>
 *   <li>{@link #THROTTLE} (the default): the first job holds the key; a later enqueue with the key is a duplicate
 *       that changes nothing, while the key holds (its job scheduled or running, then until enqueue time + TTL).</li>
 *   <li>{@link #DEBOUNCE}: while the key's job is still scheduled (it has not started), a later enqueue with the key
 *       <em>replaces</em> it: the same id, the new payload, options and due time ({@link EnqueueResult#replaced()}).
 *       A job already started (running, or waiting for its retry) is not touched: the new job is created beside it
 *       and holds the key from then on (it may run while the first still runs, if its due time comes first). The TTL
 *       is optional: without one the key holds while its job waits or runs and goes when it ends; with one it also
 *       holds until the last enqueue time + TTL after the job ended, and an enqueue then is a duplicate.</li>
 * </ul>
 * The mode is the new job's: a debounce enqueue replaces a scheduled holder whatever mode that holder was enqueued in.
 */
public enum DedupeMode {
    /**
     * The first job holds the key; later ones are duplicates (the dedupe delayq always had; BullMQ's simple and
     * throttle modes).
     */
    THROTTLE,
    /** A later job replaces the key's scheduled job (BullMQ's debounce/deduplication with {@code replace}). */
    DEBOUNCE
}
