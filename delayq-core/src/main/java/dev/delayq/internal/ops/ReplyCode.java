package dev.delayq.internal.ops;

import dev.delayq.Ack;
import dev.delayq.ChangeResult;
import dev.delayq.DelayQException;
import dev.delayq.JobState;
import java.util.List;

/**
 * The status codes the scripts answer with, mapped once. Positive codes are successes (what a script did),
 * negative ones refusals; a script names its own codes in its header, all of them drawn from this table.
 */
enum ReplyCode {
    /** Done as asked. */
    OK(1),
    /** Done before, by this very call replayed after a lost reply (complete: already done with this token). */
    APPLIED_BEFORE(2),
    /** No such job. */
    NOT_FOUND(-1),
    /** The token is not the job's current lease: nothing changed. */
    STALE(-2),
    /** The job's state does not allow the change; the state follows the code. */
    WRONG_STATE(-3),
    /** A compare-and-set found the stored value changed since the client read it: nothing written. */
    CHANGED_MEANWHILE(-4),
    /** The due time would fall beyond year 9999 on the Redis clock. */
    DUE_OUT_OF_RANGE(-5),
    /** An argument was malformed (the client's checks should make this impossible); nothing was written. */
    BAD_ARGUMENT(-6),
    /** The job's record cannot be decoded (moved to dead where the script could; else nothing changed). */
    UNDECODABLE(-7),
    /** enqueue: a job names a parent that does not exist ({ -20, i, parent }); nothing was written. */
    UNKNOWN_PARENT(-20);

    private final long value;

    ReplyCode(long value) {
        this.value = value;
    }

    /**
     * Throws when the reply is a script's refusal of its arguments ({@code { -6, what }}): the client validates every
     * argument first, so this is a bug worth a clear message, never a wrong decode.
     */
    static List<Object> checked(List<Object> reply, String script) {
        if (reply.size() == 2 && reply.get(0) instanceof Long code && code == BAD_ARGUMENT.value && reply.get(1) instanceof byte[]) {
            throw new DelayQException(script + " refused its arguments: " + Reply.str(reply.get(1)));
        }
        return reply;
    }

    static ReplyCode of(long value) {
        for (ReplyCode c : values()) {
            if (c.value == value) {
                return c;
            }
        }
        throw new DelayQException("unexpected script reply code " + value);
    }

    /** A per-job acknowledgement code (complete, renew, release). */
    Ack ack() {
        return switch (this) {
            case OK -> Ack.OK;
            case APPLIED_BEFORE -> Ack.ALREADY_APPLIED;
            case STALE, UNDECODABLE -> Ack.STALE;
            case NOT_FOUND -> Ack.NOT_FOUND;
            default -> throw new DelayQException("script answered " + this + " where an acknowledgement was expected");
        };
    }

    /** The result of a change to one job: {@code { code [, state or new due time] }}. */
    static ChangeResult change(List<Object> reply) {
        ReplyCode code = Reply.code(reply);
        return switch (code) {
            case OK -> new ChangeResult(ChangeResult.Status.CHANGED, null, reply.size() > 1 ? Reply.asLong(reply.get(1)) : 0);
            case NOT_FOUND -> new ChangeResult(ChangeResult.Status.NOT_FOUND, null, 0);
            case WRONG_STATE -> new ChangeResult(ChangeResult.Status.WRONG_STATE, JobState.ofCode((int) Reply.asLong(reply.get(1))), 0);
            case UNDECODABLE -> throw new DelayQException("the job's stored record cannot be decoded: nothing was changed "
                    + "(delete it, or let a claim move it to dead)");
            default -> throw new DelayQException("unexpected script reply code " + code);
        };
    }
}
