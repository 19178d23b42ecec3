package dev.delayq.spring.docs;

/** The application's orders, as the examples of docs/spring-boot.md see them. */
interface Orders {
    long create();

    boolean exists(long id);

    void markPaid(long id);

    void cancelIfUnpaid(long id);

    /** PENDING, PAID or CANCELLED. */
    String status(long id);
}
