package dev.delayq.internal.ops;

import dev.delayq.internal.redis.Script;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What one script takes and answers, declared once beside the class that calls it: its KEYS in order, its ARGV
 * (an enum whose constants name the slots in order, with the bounds the script checks them by), the arguments repeated
 * per item after them, and its reply's fields in order (and those repeated per item after them). The ops build the
 * arrays and read the reply by these names ({@code a[Arg.LEASE_MS.ordinal()]}, {@code Reply.at(r, Out.NOW)}), and
 * {@code ScriptProtocolTest} holds each declaration to its script's header and its argument checks. Built once per
 * class: nothing here runs per call but {@link ScriptKey#of}.
 */
final class Protocol {
    /** A whole number the script refuses outside 0 to 2^40 (milliseconds, ranks): the common bound. */
    static final long MS = 1L << 40;

    final Script script;
    final ScriptKey[] keys;
    final List<String> args;
    final List<String> each;
    final List<String> reply;
    final List<String> replyEach;
    /** Bounds by ARGV index (0-based): {min, max}. */
    final Map<Integer, long[]> bounds = new HashMap<>();

    private Protocol(Script script, ScriptKey[] keys, Enum<?>[] args, Enum<?>[] each, Enum<?>[] reply, Enum<?>[] replyEach) {
        this.script = script;
        this.keys = keys;
        this.args = names(args);
        this.each = names(each);
        this.reply = names(reply);
        this.replyEach = names(replyEach);
    }

    /** A script with fixed arguments and reply fields. */
    static Protocol of(Script script, ScriptKey[] keys, Enum<?>[] args, Enum<?>[] reply) {
        return new Protocol(script, keys, args, null, reply, null);
    }

    /** A script whose arguments and reply repeat per item after the fixed ones ({@code each}, {@code replyEach}). */
    static Protocol of(Script script, ScriptKey[] keys, Enum<?>[] args, Enum<?>[] each, Enum<?>[] reply, Enum<?>[] replyEach) {
        return new Protocol(script, keys, args, each, reply, replyEach);
    }

    /** The script refuses {@code arg} unless it is a whole number from {@code min} to {@code max}. */
    Protocol bound(Enum<?> arg, long min, long max) {
        bounds.put(arg.ordinal(), new long[] {min, max});
        return this;
    }

    /** The number of fixed arguments. */
    int argCount() {
        return args.size();
    }

    private static List<String> names(Enum<?>[] constants) {
        if (constants == null) {
            return List.of();
        }
        List<String> out = new ArrayList<>(constants.length);
        Arrays.stream(constants).forEach(c -> out.add(c.name()));
        return Collections.unmodifiableList(out);
    }

    /** The declaration of {@code script}: a script without one does not compile (the switch names every constant). */
    static Protocol of(Script script) {
        return switch (script) {
            case ENQUEUE -> Enqueue.PROTOCOL;
            case CLAIM -> Claim.PROTOCOL;
            case COMPLETE -> Complete.PROTOCOL;
            case FAIL -> Fail.PROTOCOL;
            case ERRORS -> ErrorHistory.PROTOCOL;
            case LINKS -> Links.PROTOCOL;
            case PARENT_RESULTS -> ParentResults.PROTOCOL;
            case FLOW_IDS -> FlowIdsRead.PROTOCOL;
            case REMOTE_LINK -> RemoteLink.PROTOCOL;
            case NOTICES -> Notices.PROTOCOL;
            case NOTICE_APPLY -> Notices.APPLY;
            case RENEW -> Renew.PROTOCOL;
            case RELEASE -> Release.PROTOCOL;
            case RECOVER -> Recover.PROTOCOL;
            case CANCEL -> Cancel.CANCEL;
            case CANCEL_BY_DEDUPE -> Cancel.CANCEL_BY_DEDUPE;
            case DELETE -> Cancel.DELETE;
            case RESCHEDULE -> Reschedule.PROTOCOL;
            case RESCHEDULE_BY_DEDUPE -> Reschedule.BY_DEDUPE;
            case RETRY_DEAD -> RetryDead.ONE;
            case RETRY_DEAD_ALL -> RetryDead.ALL;
            case PURGE -> Purge.PROTOCOL;
            case GET -> Get.PROTOCOL;
            case GET_BY_DEDUPE -> Get.BY_DEDUPE;
            case LIST -> ListPage.LIST;
            case LIST_DUE -> ListPage.LIST_DUE;
            case LIST_BATCHES -> ListPage.LIST_BATCHES;
            case STATS -> Stats.PROTOCOL;
            case STATS_MANY -> Stats.MANY;
            case GROUP_STATS -> GroupOps.STATS;
            case CHECK -> CheckStep.PROTOCOL;
            case PAUSE -> Pause.PAUSE;
            case RESUME -> Pause.RESUME;
            case HISTORY -> History.PROTOCOL;
            case SETTINGS -> Settings.PROTOCOL;
            case PROGRESS -> Progress.PROTOCOL;
            case SCHEDULE -> ScheduleOps.SCHEDULE;
            case SCHEDULE_READ -> ScheduleOps.READ;
            case WORKER_BEAT -> Workers.BEAT;
            case WORKER_GONE -> Workers.GONE;
            case WORKERS -> Workers.LIVE;
        };
    }
}
