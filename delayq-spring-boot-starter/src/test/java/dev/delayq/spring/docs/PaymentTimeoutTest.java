package dev.delayq.spring.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.test.DelayqTestJobs;
import dev.delayq.test.spring.AutoConfigureDelayqRedis;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

// tag::boot-test[]
@SpringBootTest(classes = ShopApplication.class)
@AutoConfigureDelayqRedis
class PaymentTimeoutTest {
    @Autowired OrderService orders;
    @Autowired Orders store;
    @Autowired DelayqTestJobs jobs;

    @Test
    void anUnpaidOrderIsCancelledByItsTimeout() {
        long id = orders.place();                            // enqueues a time-out due in 30 minutes
        jobs.runDueNow("orders");                            // due now: the application's worker runs it
        jobs.awaitDrained("orders", Duration.ofSeconds(10)); // nothing scheduled or running any more
        assertThat(store.status(id)).isEqualTo("CANCELLED");
    }
}
// end::boot-test[]
