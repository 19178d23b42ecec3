package dev.delayq.spring;

import dev.delayq.EnqueueResult;
import dev.delayq.Job;
import dev.delayq.JobHandler;
import dev.delayq.JobQueue;
import java.util.function.Function;

/**
 * Where the starter's enqueues ({@link DelayqTemplate}) and handlers ({@link DelayqListener} methods) are observed:
 * {@link #NONE} without Micrometer's {@code ObservationRegistry}, else {@link MicrometerObservations}. An interface of
 * JDK and delayq types only, so an application without Micrometer loads no Micrometer class through it.
 */
interface DelayqObservations {
    /** Observes nothing. */
    DelayqObservations NONE = new DelayqObservations() {
        @Override
        public EnqueueResult enqueue(String queue, Job job, Function<Job, EnqueueResult> sink) {
            return sink.apply(job);
        }

        @Override
        public JobHandler handler(String queue, JobHandler handler) {
            return handler;
        }
    };

    /** Enqueues {@code job} on {@code queue}, observed; the job sent carries the observation's trace context. */
    default EnqueueResult enqueue(JobQueue queue, Job job) {
        return enqueue(queue.name(), job, queue::enqueue);
    }

    /**
     * Writes {@code job} for {@code queue} through {@code sink} (Redis, or the transactional outbox's table), observed
     * as an enqueue; the job written carries the observation's trace context.
     */
    EnqueueResult enqueue(String queue, Job job, Function<Job, EnqueueResult> sink);

    /** {@code handler}, each run observed, its trace continuing the job's producer's. */
    JobHandler handler(String queue, JobHandler handler);
}
