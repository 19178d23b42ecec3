package dev.delayq.internal.worker;

import dev.delayq.JobListener;
import dev.delayq.WorkerMetrics;
import java.util.List;

/**
 * What the parts of one worker share, built once by {@link WorkerEngine} and handed to each part (BullMQ's
 * {@code LockManagerWorkerContext}): a part takes this and at most the few collaborators of its own, instead of a long
 * constructor. Tests build it around a fake ticker and fake partitions.
 *
 * @param queue     the queue's name
 * @param config    the worker's settings
 * @param ticker    the one clock every part reads
 * @param parts     the queue's partitions, in order ({@link WorkerPartition#index()} = position)
 * @param clocks    Redis's clock per partition (partitions may live on servers with different clocks)
 * @param inFlight  the jobs the worker holds a lease on
 * @param gate      the claim loop's slots and wake-up
 * @param progress  signalled whenever a job ends or an outcome is acknowledged (shutdown waits on it)
 * @param metrics   the worker's meters, isolated from the loops
 * @param listener  the user's outcome listener, isolated from the loops
 * @param callbacks counts and logs the user's callbacks that threw
 */
record WorkerContext(String queue, WorkerConfig config, Ticker ticker, List<WorkerPartition> parts, ServerClock[] clocks,
                     InFlight inFlight, ClaimGate gate, Signal progress, WorkerMetrics metrics, JobListener listener,
                     Callbacks callbacks) {

    /** The worker's name. */
    String worker() {
        return config.name();
    }

    /** The partition of {@code index}. */
    WorkerPartition part(int index) {
        return parts.get(index);
    }
}
