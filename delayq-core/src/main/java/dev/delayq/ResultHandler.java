package dev.delayq;

/**
 * Runs one job and returns its result: {@code Worker.builder(queue).handleReturning(name, codec, handler)}. The value
 * returned, encoded by the codec ({@link PayloadCodec#utf8()} for text), is the job's result, as if the handler had
 * called {@link JobContext#result(PayloadCodec, Object)}: kept with the done job for the done retention and seen by the
 * job's children ({@link JobContext#parentResults()}). {@code null} leaves no result. Throw to fail the attempt, as a
 * {@link JobHandler} does; an encoded result longer than {@link Bounds#MAX_RESULT_BYTES} (64 KiB) fails it too, with a
 * message giving the size.
 *
 * @param <R> the result type
 */
@FunctionalInterface
public interface ResultHandler<R> {
    /**
     * Runs the job.
     *
     * @param ctx the job and its lease
     * @return the job's result, or {@code null} for none
     * @throws Exception to fail this attempt
     */
    R handle(JobContext ctx) throws Exception;
}
