package dev.delayq.examples.orders;

import dev.delayq.spring.DelayqTemplate;
import java.time.Duration;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/** The orders API: create, pay, look up. */
@RestController
public class OrderController {
    /** The queue of payment time-outs. */
    static final String QUEUE = "orders";

    private final OrderStore orders;
    private final DelayqTemplate delayq;
    private final Duration paymentTimeout;

    OrderController(OrderStore orders, DelayqTemplate delayq, @Value("${orders.payment-timeout:30s}") Duration paymentTimeout) {
        this.orders = orders;
        this.delayq = delayq;
        this.paymentTimeout = paymentTimeout;
    }

    // tag::create[]
    /** The id of the time-out job of order {@code id}: one per order, so enqueueing it twice creates one job. */
    static String timeoutJob(long id) {
        return "order-" + id + ":timeout";
    }

    /** Creates an order and schedules its payment time-out. */
    @PostMapping("/orders")
    ResponseEntity<OrderView> create() {
        long id = orders.create();
        delayq.enqueue(QUEUE, timeoutJob(id), new PaymentTimeout(id), paymentTimeout);
        return ResponseEntity.status(HttpStatus.CREATED).body(new OrderView(id, OrderStatus.PENDING));
    }
    // end::create[]

    /** Pays an order and cancels its time-out; 409 when it was cancelled already. */
    @PostMapping("/orders/{id}/pay")
    ResponseEntity<OrderView> pay(@PathVariable long id) {
        return orders.pay(id).map(status -> {
            if (status != OrderStatus.PAID) {
                return ResponseEntity.status(HttpStatus.CONFLICT).body(new OrderView(id, status));
            }
            // The order is paid whatever happens next; a time-out already running finds it paid and does nothing.
            delayq.cancel(QUEUE, timeoutJob(id));
            return ResponseEntity.ok(new OrderView(id, status));
        }).orElseGet(() -> ResponseEntity.notFound().build());
    }

    /** An order's status. */
    @GetMapping("/orders/{id}")
    ResponseEntity<OrderView> get(@PathVariable long id) {
        return ResponseEntity.of(orders.status(id).map(status -> new OrderView(id, status)));
    }
}
