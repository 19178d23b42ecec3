package dev.delayq;

/**
 * What a purge deleted: finished jobs past their retention, with their records.
 *
 * @param done done jobs deleted
 * @param dead dead jobs deleted
 */
public record PurgeResult(long done, long dead) {
}
