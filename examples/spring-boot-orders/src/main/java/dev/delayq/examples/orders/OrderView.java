package dev.delayq.examples.orders;

/** An order as the API shows it. */
public record OrderView(long id, OrderStatus status) {
}
