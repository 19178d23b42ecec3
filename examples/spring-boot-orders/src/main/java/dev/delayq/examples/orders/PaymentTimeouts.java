package dev.delayq.examples.orders;

// tag::payment-timeouts[]
import dev.delayq.spring.DelayqListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/** Runs the payment time-outs: an order still unpaid when its time-out falls due is cancelled. */
@Component
public class PaymentTimeouts {
    private static final Logger LOG = LoggerFactory.getLogger(PaymentTimeouts.class);

    private final OrderStore orders;
    private final PaymentProvider provider;

    PaymentTimeouts(OrderStore orders, PaymentProvider provider) {
        this.orders = orders;
        this.provider = provider;
    }

    /** One time-out; idempotent, as delayq runs a job at least once. */
    @DelayqListener(queue = OrderController.QUEUE, concurrency = "${orders.timeout-workers:4}")
    void onTimeout(PaymentTimeout timeout) throws InterruptedException {
        if (!provider.paidLate(timeout.orderId()) && orders.cancelIfUnpaid(timeout.orderId())) {
            LOG.info("order {} was not paid in time: cancelled", timeout.orderId());
        }
    }
}
// end::payment-timeouts[]
