package dev.delayq.docs;

// tag::order-timeouts[]
import dev.delayq.DelayQ;
import dev.delayq.EnqueueResult;
import dev.delayq.Job;
import dev.delayq.JobContext;
import dev.delayq.JobQueue;
import dev.delayq.RetryPolicy;
import dev.delayq.Worker;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Cancels the orders still unpaid 30 minutes after they were placed. */
public final class OrderTimeouts {
    private static final Logger log = LoggerFactory.getLogger(OrderTimeouts.class);

    public static void main(String[] args) throws InterruptedException {
        DelayQ dq = connect(args.length > 0 ? args[0] : "redis://localhost:6379");
        JobQueue orders = dq.queue("orders");
        startWorker(orders);
        // Graceful shutdown (SIGTERM, Ctrl-C): DelayQ.close() first closes its workers, which stop claiming,
        // let running handlers finish (10 s) and hand the other jobs back to Redis, due again at once.
        Runtime.getRuntime().addShutdownHook(new Thread(dq::close));

        scheduleTimeout(orders, 731, Duration.ofMinutes(30));
        Thread.currentThread().join();                   // a real service goes on serving here
    }

    static DelayQ connect(String redisUrl) {
        return DelayQ.builder()
                .redis(redisUrl)
                .retryPolicy(RetryPolicy.builder()       // for the workers of this client
                        .maxAttempts(8)                   // then the job is dead, kept 7 days with its error
                        .base(Duration.ofSeconds(5))      // the first retry after 5 s,
                        .cap(Duration.ofMinutes(10))      // each one up to twice as late, at most 10 min
                        .build())
                .build();
    }

    /** Producer: a stable business id makes the enqueue idempotent. */
    static EnqueueResult scheduleTimeout(JobQueue orders, long orderId, Duration after) {
        EnqueueResult result = orders.enqueue(Job.builder()
                .id("order-" + orderId + ":timeout")
                .payload(Long.toString(orderId))
                .delay(after)                            // on the Redis server's clock
                .build());
        log.info("{}", result);                          // "created order-731:timeout", or "duplicate ..."
        return result;
    }

    /** Worker: a handler that returns completes the job; one that throws has it retried with backoff. */
    static Worker startWorker(JobQueue orders) {
        return Worker.builder(orders, OrderTimeouts::onTimeout)
                .concurrency(16)                         // handlers running at once
                .build()
                .start();
    }

    static void onTimeout(JobContext ctx) {
        long orderId = Long.parseLong(ctx.payloadUtf8());
        log.info("order {}: payment time-out (attempt {} of {})", orderId, ctx.attempt(), ctx.maxAttempts());
        // Cancel the order if it is still unpaid. A job can run twice (its worker died before Redis heard the
        // outcome), so this must be idempotent: cancelling a cancelled order changes nothing.
    }
}
// end::order-timeouts[]
