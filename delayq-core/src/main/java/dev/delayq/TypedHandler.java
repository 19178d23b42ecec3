package dev.delayq;

/**
 * Runs one job whose payload a {@link PayloadCodec} decoded: {@code Worker.builder(queue).handle(name, codec, handler)}.
 * Return normally to complete the job; throw to fail the attempt, as a {@link JobHandler} does. A payload the codec
 * cannot decode never reaches the handler: the job goes straight to dead with the codec's message (retrying cannot
 * fix its bytes).
 *
 * @param <T> the payload type
 */
@FunctionalInterface
public interface TypedHandler<T> {
    /**
     * Runs the job.
     *
     * @param ctx     the job and its lease
     * @param payload the payload, decoded
     * @throws Exception to fail this attempt
     */
    void handle(JobContext ctx, T payload) throws Exception;
}
