package dev.delayq.spring.docs;

/** The payload of a payment time-out job (docs/spring-boot.md). */
record PaymentTimeout(long orderId) {
}
