package dev.delayq.examples.orders;

/** The payload of an order's time-out job (JSON: {@code {"orderId":7}}). */
public record PaymentTimeout(long orderId) {
}
