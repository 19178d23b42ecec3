package dev.delayq.spring.docs;

// tag::template[]
import dev.delayq.EnqueueResult;
import dev.delayq.spring.DelayqTemplate;
import java.time.Duration;
import org.springframework.stereotype.Service;

@Service
class OrderService {
    private final Orders orders;
    private final DelayqTemplate delayq;

    OrderService(Orders orders, DelayqTemplate delayq) {
        this.orders = orders;
        this.delayq = delayq;
    }

    long place() {
        long id = orders.create();
        EnqueueResult timeout = delayq.enqueue("orders", "order-" + id + ":timeout",   // a stable id: enqueued once
                new PaymentTimeout(id), Duration.ofMinutes(30));                         // the payload as JSON
        return id;
    }

    void paid(long id) {
        orders.markPaid(id);
        delayq.cancel("orders", "order-" + id + ":timeout");
    }
}
// end::template[]
