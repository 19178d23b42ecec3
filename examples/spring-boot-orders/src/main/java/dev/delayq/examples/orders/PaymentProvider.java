package dev.delayq.examples.orders;

import java.time.Duration;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * The payment provider, as far as the time-outs need it: whether a payment for an order reached the provider but not
 * yet this service. Simulated here (never paid late) with the provider's answer time, {@code orders.provider-latency}
 * (default 0), so the example shows what a slow remote call does to its workers and to a shutdown.
 */
@Component
public class PaymentProvider {
    private final Duration latency;

    PaymentProvider(@Value("${orders.provider-latency:0ms}") Duration latency) {
        this.latency = latency;
    }

    /** Whether the provider holds a payment for the order that this service has not recorded. */
    public boolean paidLate(long orderId) throws InterruptedException {
        if (!latency.isZero()) {
            Thread.sleep(latency.toMillis()); // the remote call; a shutdown interrupts it
        }
        return false;
    }
}
