package dev.delayq.internal.worker;

import dev.delayq.Ack;
import dev.delayq.JobListener;
import dev.delayq.Lease;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands jobs back to the queue (due again at once, attempt not counted): those the executor refused, and at shutdown
 * those not started or still running after the grace period. Then wakes the claim loop, which may claim them again.
 */
final class HandBack {
    private static final Logger LOG = LoggerFactory.getLogger(HandBack.class);

    private final WorkerContext ctx;

    HandBack(WorkerContext ctx) {
        this.ctx = ctx;
    }

    void one(Running r) {
        all(List.of(r));
    }

    void all(List<Running> jobs) {
        if (jobs.isEmpty()) {
            return;
        }
        jobs.forEach(r -> r.released = true);
        List<Lease> leases = new ArrayList<>(jobs.size());
        jobs.forEach(r -> leases.add(r.lease()));
        try {
            List<Ack> acks = release(leases);
            for (int i = 0; i < jobs.size(); i++) {
                if (acks.get(i) != Ack.OK) {
                    LOG.debug("worker {}: hand-back of {} refused ({})", ctx.worker(), jobs.get(i), acks.get(i));
                } else {
                    ctx.listener().onOutcome(jobs.get(i), JobListener.Outcome.HANDED_BACK);
                }
                ctx.inFlight().remove(jobs.get(i));
            }
        } catch (RuntimeException e) {
            LOG.warn("worker {}: could not hand back {} job(s) of queue {} ({}); they return when their leases expire",
                    ctx.worker(), jobs.size(), ctx.queue(), e.getMessage());
        }
        ctx.gate().wake();
    }

    /** Releases {@code leases}, waiting for every partition's answer; throws when any partition's call failed. */
    private List<Ack> release(List<Lease> leases) {
        if (ctx.parts().size() == 1) {
            return ctx.part(0).release(leases);
        }
        try {
            return ByPartition.call(ctx.parts(), leases, (part, sub) -> {
                try {
                    return CompletableFuture.completedFuture(part.release(sub));
                } catch (RuntimeException e) {
                    return CompletableFuture.failedFuture(e);
                }
            }).join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException re ? re : e;
        }
    }
}
