package dev.delayq.examples.orders;

/** Where an order is: waiting for its payment, paid, or cancelled because it was not paid in time. */
public enum OrderStatus {
    PENDING, PAID, CANCELLED
}
