package dev.delayq.spring.docs;

// tag::listener[]
import dev.delayq.JobContext;
import dev.delayq.NonRetryableException;
import dev.delayq.spring.DelayqListener;
import org.springframework.stereotype.Component;

@Component
class PaymentTimeoutListener {
    private final Orders orders;

    PaymentTimeoutListener(Orders orders) {
        this.orders = orders;
    }

    @DelayqListener(queue = "orders", concurrency = "${orders.timeout-workers:4}", leaseDuration = "${orders.lease:1m}",
            maxAttempts = "8", backoff = "2s", backoffCap = "10m")
    void onTimeout(PaymentTimeout timeout, JobContext ctx) {  // JSON via the app's ObjectMapper; or String, byte[]
        if (!orders.exists(timeout.orderId())) {
            throw new NonRetryableException("no order " + timeout.orderId());   // dead at once
        }
        orders.cancelIfUnpaid(timeout.orderId());              // return = done, throw = retry with backoff
    }
}
// end::listener[]
