package dev.delayq.internal.base;

import java.time.Duration;

/** The checks of a job's options that combine with each other (parents, dedupe, debounce), for {@code Job.Builder}. */
public final class JobOptionChecks {
    private JobOptionChecks() {
    }

    /**
     * A job's parents (Job.Builder#after, #afterIn): at most {@code max}, distinct, valid ids, not the job's own {@code id};
     * {@code policySet}: an on-parent-dead policy other than the default was set, which needs parents.
     */
    public static void parents(java.util.List<String> after, java.util.List<?> afterIn, String id, int max,
                               boolean policySet) {
        if (policySet && after.isEmpty() && afterIn.isEmpty()) {
            throw new IllegalArgumentException("onParentDead is set without parents: use after(...) too");
        }
        if (after.size() + afterIn.size() > max) {
            throw new IllegalArgumentException("a job may wait for at most " + max + " parents, not " + (after.size() + afterIn.size()));
        }
        if (new java.util.HashSet<>(after).size() != after.size() || new java.util.HashSet<>(afterIn).size() != afterIn.size()) {
            throw new IllegalArgumentException("parents must be distinct: " + (afterIn.isEmpty() ? after : afterIn));
        }
        for (String p : after) {
            Validation.jobId(p);
            if (p.equals(id)) {
                throw new IllegalArgumentException("job '" + id + "' cannot be its own parent");
            }
        }
    }

    /** A job's dedupe key and TTL ({@code ttl} may be null in debounce mode only, which needs a key). */
    public static void dedupe(String key, Duration ttl, boolean debounce, Duration maxTtl) {
        if (debounce && key == null) {
            throw new IllegalArgumentException("dedupe mode DEBOUNCE needs a dedupe key (dedupe(key, ttl); the TTL "
                    + "may be null in debounce mode)");
        }
        if (key != null || ttl != null) {
            Validation.dedupeKey(key);
            if (ttl != null || !debounce) {
                Validation.positive("dedupe TTL", ttl);
                Validation.atMost("dedupe TTL", ttl, maxTtl);
            }
        }
    }

    /** Debounce does not combine with parents yet ({@code hasParents}: the job has some). */
    public static void debounceParents(boolean debounce, boolean hasParents) {
        if (debounce && hasParents) {
            // A replace writes the holder scheduled: it would run before the new job's parents.
            throw new IllegalArgumentException("a job with parents (after) cannot have dedupe mode DEBOUNCE yet: give "
                    + "it parents, or debounce (docs/flows.md)");
        }
    }
}
