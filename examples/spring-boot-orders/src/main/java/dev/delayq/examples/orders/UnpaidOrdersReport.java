package dev.delayq.examples.orders;

import dev.delayq.spring.DelayqScheduled;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/** A recurring job: how many orders wait for their payment, logged every {@code orders.report-every} (1 h). */
@Component
public class UnpaidOrdersReport {
    private static final Logger LOG = LoggerFactory.getLogger(UnpaidOrdersReport.class);

    private final OrderStore orders;
    private final AtomicInteger runs = new AtomicInteger();

    UnpaidOrdersReport(OrderStore orders) {
        this.orders = orders;
    }

    /** Once per tick across every instance of the application (the schedule lives in Redis). */
    @DelayqScheduled(queue = "reports", name = "unpaid-orders", every = "${orders.report-every:1h}")
    void report() {
        runs.incrementAndGet();
        LOG.info("{} orders wait for their payment", orders.pending());
    }

    /** How often this instance ran the report. */
    public int runs() {
        return runs.get();
    }
}
