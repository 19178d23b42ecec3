package dev.delayq.spring;

import dev.delayq.outbox.OutboxStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the {@code delayqOutbox} health contributor reports (each Boot line's {@code DelayqOutboxHealthIndicator} turns
 * it into its Health type): UP with the rows pending, the oldest one's age and the relay's counts; DOWN when the relay
 * is stopped, when the database does not answer, or when its rounds have failed (database or Redis unreachable) for
 * longer than {@code delayq.outbox.down-after}, as when it has not started (Redis not reached) for that long.
 */
final class DelayqOutboxHealthDetails {
    /** The verdict and its details. */
    record Report(boolean up, Map<String, Object> details) {
    }

    private DelayqOutboxHealthDetails() {
    }

    /** The report on {@code relay}, its table counted now. */
    static Report of(DelayqOutboxRelay relay) {
        Instant now = relay.clock().instant();
        Duration downAfter = relay.downAfter();
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("table", relay.outbox().table());
        OutboxStatus s = relay.status();
        if (s == null) {
            boolean waiting = relay.isRunning();
            details.put("relay", waiting ? "not started: Redis not reached yet" : "stopped");
            return new Report(waiting && !now.isAfter(relay.createdAt().plus(downAfter)), details);
        }
        details.put("relay", s.running() ? "running" : "stopped");
        details.put("pending", s.pending());
        if (s.oldestPending() != null) {
            details.put("oldestPendingAge", s.oldestPending().toString());
        }
        details.put("relayed", s.relayed());
        details.put("duplicates", s.duplicates());
        details.put("failed", s.failed());
        details.put("errors", s.errors());
        if (s.lastSuccessAt() != null) {
            details.put("lastSuccessAt", s.lastSuccessAt().toString());
        }
        if (s.lastError() != null) {
            details.put("lastError", s.lastError());
            details.put("lastErrorAt", String.valueOf(s.lastErrorAt()));
        }
        if (!s.running()) {
            return new Report(false, details);
        }
        if (s.pending() < 0) {
            details.put("error", "the database did not answer the count of the outbox table");
            return new Report(false, details);
        }
        if (s.lastRoundFailed()) {
            Instant since = s.lastSuccessAt() != null ? s.lastSuccessAt() : relay.createdAt();
            Duration failing = Duration.between(since, now);
            details.put("failingFor", failing.toString());
            return new Report(failing.compareTo(downAfter) <= 0, details);
        }
        return new Report(true, details);
    }
}
