package dev.delayq.internal.worker;

import dev.delayq.Lease;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Sends a call on many leases to the partitions holding them: one call per partition concerned, side by side, the
 * answers put back in the leases' order. A queue without partitions makes its one call on the list as it is (nothing
 * is copied or grouped on the hot path); the result fails when any partition's call fails.
 */
final class ByPartition {
    private ByPartition() {
    }

    /** One call on one partition's leases, answered one per lease in order. */
    interface Call<T> {
        CompletableFuture<List<T>> run(WorkerPartition part, List<Lease> leases);
    }

    static <T> CompletableFuture<List<T>> call(List<WorkerPartition> parts, List<Lease> leases, Call<T> call) {
        if (parts.size() == 1) {
            return call.run(parts.get(0), leases);
        }
        List<List<Lease>> sub = new ArrayList<>(parts.size());
        int[][] at = new int[parts.size()][];
        int[] count = new int[parts.size()];
        for (Lease l : leases) {
            count[l.partition()]++;
        }
        for (int p = 0; p < parts.size(); p++) {
            sub.add(new ArrayList<>(count[p]));
            at[p] = new int[count[p]];
        }
        for (int i = 0; i < leases.size(); i++) {
            Lease l = leases.get(i);
            at[l.partition()][sub.get(l.partition()).size()] = i;
            sub.get(l.partition()).add(l);
        }
        Object[] out = new Object[leases.size()];
        List<CompletableFuture<Void>> calls = new ArrayList<>();
        for (int p = 0; p < parts.size(); p++) {
            if (sub.get(p).isEmpty()) {
                continue;
            }
            int[] idx = at[p];
            calls.add(call.run(parts.get(p), sub.get(p)).thenAccept(answers -> {
                synchronized (out) {
                    for (int k = 0; k < idx.length; k++) {
                        out[idx[k]] = answers.get(k);
                    }
                }
            }));
        }
        return CompletableFuture.allOf(calls.toArray(new CompletableFuture<?>[0])).thenApply(v -> {
            synchronized (out) {
                @SuppressWarnings("unchecked")
                List<T> answers = (List<T>) Arrays.asList(out.clone());
                return answers;
            }
        });
    }
}
