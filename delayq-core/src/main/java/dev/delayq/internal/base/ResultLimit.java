package dev.delayq.internal.base;

/** The size check of a job's result (lua/includes/results.lua), one message for the worker and the lease API. */
public final class ResultLimit {
    private ResultLimit() {
    }

    /**
     * {@code result} itself when it may be kept (or is null).
     *
     * @throws IllegalArgumentException when it is longer than {@link ScriptLimits#MAX_RESULT_BYTES}, naming the job,
     *                                  the size and the limit
     */
    public static byte[] checked(String id, byte[] result) {
        if (result != null && result.length > ScriptLimits.MAX_RESULT_BYTES) {
            throw new IllegalArgumentException("result of job '" + id + "' is " + result.length + " bytes: at most "
                    + ScriptLimits.MAX_RESULT_BYTES + " bytes (64 KiB) are kept");
        }
        return result;
    }
}
