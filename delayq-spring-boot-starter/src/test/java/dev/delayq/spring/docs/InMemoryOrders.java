package dev.delayq.spring.docs;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.stereotype.Component;

/** The orders of {@link ShopApplication}, in memory. */
@Component
class InMemoryOrders implements Orders {
    private final AtomicLong ids = new AtomicLong();
    private final Map<Long, String> status = new ConcurrentHashMap<>();

    @Override
    public long create() {
        long id = ids.incrementAndGet();
        status.put(id, "PENDING");
        return id;
    }

    @Override
    public boolean exists(long id) {
        return status.containsKey(id);
    }

    @Override
    public void markPaid(long id) {
        status.replace(id, "PENDING", "PAID");
    }

    @Override
    public void cancelIfUnpaid(long id) {
        status.replace(id, "PENDING", "CANCELLED");
    }

    @Override
    public String status(long id) {
        return status.get(id);
    }
}
