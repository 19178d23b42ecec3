package dev.delayq.examples.orders;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * Orders that must be paid within a time-out: {@code POST /orders} creates one and schedules its time-out with
 * delayq; {@code POST /orders/{id}/pay} pays it and cancels the time-out; the time-out cancels an unpaid order.
 * Run it with a Redis on localhost:6379 ({@code spring.data.redis.*} to change that).
 */
@SpringBootApplication
public class OrdersApplication {
    /** Starts the application. */
    public static void main(String[] args) {
        SpringApplication.run(OrdersApplication.class, args);
    }
}
