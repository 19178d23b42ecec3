package dev.delayq.internal.ops;

import dev.delayq.Durability;
import dev.delayq.internal.Keys;
import dev.delayq.internal.redis.RedisBackend;
import dev.delayq.internal.redis.Script;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * {@code notices.lua} and {@code notice_apply.lua}: a key set's outbox of notices to children in other key sets (a
 * remote parent has ended: lua/includes/remote.lua), read and acknowledged on the parent's key set, applied on the
 * child's.
 */
public final class Notices {
    private static final ScriptKey[] KEYS = {ScriptKey.CHILDREN};
    private static final ScriptKey[] APPLY_KEYS = {ScriptKey.JOBS, ScriptKey.DUE, ScriptKey.PRIORITY_DUE,
        ScriptKey.DEAD, ScriptKey.META, ScriptKey.DEDUPE, ScriptKey.DEDUPE_HOLDS, ScriptKey.EVENTS, ScriptKey.DEPS,
        ScriptKey.WAITING, ScriptKey.CHILDREN};

    /** ARGV of notices.lua (then the notices acknowledged and those put back). */
    enum Arg { MAX, RETRY_MS, ACKS }

    /** The reply of notices.lua: Redis's time, then the notices due. */
    enum Out { NOW }

    /** Each notice due. */
    enum Each { NOTICE }

    /** ARGV of notice_apply.lua, before the notices. */
    enum ApplyArg { WAKE_CHANNEL }

    /** The arguments of each notice applied. */
    enum ApplyEach { OUTCOME, CHILD, LINK, REF }

    /** The reply of notice_apply.lua: nothing but a code per notice. */
    enum ApplyOut { }

    /** Each notice's code: 1 counted, 0 nothing to do, -1 no such child (yet). */
    enum ApplyCode { CODE }

    static final Protocol PROTOCOL = Protocol.of(Script.NOTICES, KEYS, Arg.values(), null, Out.values(), Each.values())
            .bound(Arg.MAX, 1, 10000).bound(Arg.RETRY_MS, 0, Protocol.MS).bound(Arg.ACKS, 0, 10000);
    static final Protocol APPLY = Protocol.of(Script.NOTICE_APPLY, APPLY_KEYS, ApplyArg.values(), ApplyEach.values(),
            ApplyOut.values(), ApplyCode.values());

    /** Most notices read or applied by one call. */
    public static final int STEP = 100;

    private Notices() {
    }

    /**
     * One notice: the parent {@code parentId} ended ({@code dead}: dead, cancelled or deleted; else done) at
     * {@code writtenMs}, for the child {@code childId} of the key set {@code childSet} linked under {@code linkId},
     * which names the parent {@code ref}; {@code raw} is the notice as stored (to acknowledge it).
     */
    public record Notice(byte[] raw, boolean dead, long writtenMs, String parentId, String childSet, String childId,
                         String linkId, String ref) {
        static Notice parse(byte[] raw) {
            String[] f = new String(raw, StandardCharsets.UTF_8).split("\0", -1);
            if (f.length != 7) {
                return new Notice(raw, false, -1, "", "", "", "", "");
            }
            long at;
            try {
                at = Long.parseLong(f[1]);
            } catch (NumberFormatException e) {
                at = -1;
            }
            return new Notice(raw, "x".equals(f[0]), at, f[2], f[3], f[4], f[5], f[6]);
        }

        /** A notice this version cannot read (only acknowledged, with a warning). */
        public boolean malformed() {
            return writtenMs < 0;
        }
    }

    /** What notices.lua answered: Redis's time and the notices due. */
    public record Due(long nowMs, List<Notice> notices) {
    }

    /**
     * Acknowledges {@code acks}, puts {@code later} back for {@code retryMs}, and reads up to {@code max} notices due,
     * on the key set {@code keys} (the parents').
     */
    public static CompletableFuture<Due> step(RedisBackend redis, Keys keys, int max, long retryMs, List<byte[]> acks,
                                             List<byte[]> later) {
        byte[][] args = new byte[Arg.values().length + acks.size() + later.size()][];
        args[Arg.MAX.ordinal()] = Args.num(max);
        args[Arg.RETRY_MS.ordinal()] = Args.num(retryMs);
        args[Arg.ACKS.ordinal()] = Args.num(acks.size());
        int a = Arg.values().length;
        for (byte[] n : acks) {
            args[a++] = n;
        }
        for (byte[] n : later) {
            args[a++] = n;
        }
        return Reply.eval(redis, Script.NOTICES, ScriptKey.of(KEYS, keys), args).thenApply(r -> {
            List<Notice> out = new ArrayList<>(r.size() - 1);
            for (int i = 1; i < r.size(); i++) {
                out.add(Notice.parse((byte[]) r.get(i)));
            }
            return new Due(Reply.longAt(r, Out.NOW), out);
        });
    }

    /**
     * Applies {@code notices} (all for children of the key set {@code keys}); one code each (see {@link ApplyCode}).
     * With a {@code durability} that waits, the answer comes once the application is as durable as it asks (else the
     * future fails, and the notices, not acknowledged, are applied again later: idempotent), so that a failover of the
     * child's master cannot lose an application whose notice was acknowledged.
     */
    public static CompletableFuture<List<Long>> apply(RedisBackend redis, Keys keys, Durability durability,
                                                      List<Notice> notices) {
        int w = ApplyEach.values().length;
        byte[][] args = new byte[ApplyArg.values().length + w * notices.size()][];
        args[ApplyArg.WAKE_CHANNEL.ordinal()] = keys.wakeChannel();
        for (int i = 0; i < notices.size(); i++) {
            Notice n = notices.get(i);
            int a = ApplyArg.values().length + w * i;
            args[a + ApplyEach.OUTCOME.ordinal()] = Args.ascii(n.dead() ? "x" : "d");
            args[a + ApplyEach.CHILD.ordinal()] = Args.utf8(n.childId());
            args[a + ApplyEach.LINK.ordinal()] = Args.ascii(n.linkId());
            args[a + ApplyEach.REF.ordinal()] = Args.utf8(n.ref());
        }
        byte[][] k = ScriptKey.of(APPLY_KEYS, keys);
        CompletableFuture<List<Object>> call = durability.waits()
                ? redis.evalDurable(Script.NOTICE_APPLY, durability.localAof(), durability.replicas(), durability.timeout(), k, args)
                .thenApply(r -> ReplyCode.checked(r, Script.NOTICE_APPLY.fileName()))
                : Reply.eval(redis, Script.NOTICE_APPLY, k, args);
        return call.thenApply(r -> {
            List<Long> out = new ArrayList<>(r.size());
            for (Object o : r) {
                out.add(Reply.asLong(o));
            }
            return out;
        });
    }
}
