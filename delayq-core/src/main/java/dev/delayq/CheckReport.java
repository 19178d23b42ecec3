package dev.delayq;

import java.util.List;

/**
 * The result of a consistency check between job records and the state indexes.
 *
 * @param records  job records examined
 * @param entries  index entries examined (due, leases, done, dead)
 * @param problems one line per inconsistency, {@code "<id>: <what is wrong>"}; empty when consistent
 */
public record CheckReport(long records, long entries, List<String> problems) {
    /** {@code true} when no problem was found. */
    public boolean clean() {
        return problems.isEmpty();
    }
}
