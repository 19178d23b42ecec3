package dev.delayq.examples.orders;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.stereotype.Component;

/**
 * The orders, in memory to keep the example small (a real service keeps them in its database). Every change is
 * one atomic state transition, so a payment and a time-out arriving together cannot both win.
 */
@Component
public class OrderStore {
    private final AtomicLong ids = new AtomicLong();
    private final Map<Long, OrderStatus> orders = new ConcurrentHashMap<>();

    /** A new pending order's id. */
    public long create() {
        long id = ids.incrementAndGet();
        orders.put(id, OrderStatus.PENDING);
        return id;
    }

    /** The order's status, if it exists. */
    public Optional<OrderStatus> status(long id) {
        return Optional.ofNullable(orders.get(id));
    }

    /** Pays a pending order (a paid one stays paid); the status afterwards, empty when there is no such order. */
    public Optional<OrderStatus> pay(long id) {
        return Optional.ofNullable(orders.computeIfPresent(id,
                (k, s) -> s == OrderStatus.PENDING ? OrderStatus.PAID : s));
    }

    /** How many orders wait for their payment. */
    public long pending() {
        return orders.values().stream().filter(s -> s == OrderStatus.PENDING).count();
    }

    /** Cancels the order if it is still pending; whether it did. */
    public boolean cancelIfUnpaid(long id) {
        return orders.replace(id, OrderStatus.PENDING, OrderStatus.CANCELLED);
    }
}
