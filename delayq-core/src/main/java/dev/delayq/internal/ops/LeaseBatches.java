package dev.delayq.internal.ops;

import dev.delayq.Ack;
import dev.delayq.Lease;
import dev.delayq.internal.base.ScriptLimits;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/** Lease lists sent as {@code id, token} argument pairs, at most {@link #MAX} per script call. */
final class LeaseBatches {
    /** Jobs per complete / renew / release call: bounds how long one call holds Redis. */
    static final int MAX = ScriptLimits.MAX_BATCH;

    /** The arguments of each lease, after the script's own. */
    enum Each { ID, TOKEN }

    /** The reply of each lease: its code. */
    enum Code { CODE }

    private static final int WIDTH = Each.values().length;

    private LeaseBatches() {
    }

    /** Runs {@code call} on chunks of at most {@link #MAX} leases and joins the answers in order. */
    static <T> CompletableFuture<List<T>> chunked(List<Lease> leases, Function<List<Lease>, CompletableFuture<List<T>>> call) {
        if (leases.isEmpty()) {
            return CompletableFuture.completedFuture(List.of());
        }
        if (leases.size() <= MAX) {
            return call.apply(leases);
        }
        List<CompletableFuture<List<T>>> parts = new ArrayList<>();
        for (int i = 0; i < leases.size(); i += MAX) {
            parts.add(call.apply(leases.subList(i, Math.min(leases.size(), i + MAX))));
        }
        return CompletableFuture.allOf(parts.toArray(new CompletableFuture[0])).thenApply(v -> {
            List<T> out = new ArrayList<>(leases.size());
            parts.forEach(p -> out.addAll(p.join()));
            return out;
        });
    }

    /** {@code head..., id_1, token_1, ..., id_n, token_n}. */
    static byte[][] args(List<Lease> leases, byte[][] head) {
        byte[][] a = new byte[head.length + WIDTH * leases.size()][];
        System.arraycopy(head, 0, a, 0, head.length);
        for (int i = 0; i < leases.size(); i++) {
            int at = head.length + WIDTH * i;
            a[at + Each.ID.ordinal()] = Args.utf8(leases.get(i).id());
            a[at + Each.TOKEN.ordinal()] = Args.num(leases.get(i).token());
        }
        return a;
    }

    /** One acknowledgement per code. */
    static List<Ack> acks(List<Object> codes) {
        List<Ack> out = new ArrayList<>(codes.size());
        for (Object c : codes) {
            out.add(ReplyCode.of(Reply.asLong(c)).ack());
        }
        return out;
    }
}
