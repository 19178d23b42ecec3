package dev.delayq.spring;

import java.util.Map;
import java.util.function.Supplier;

/**
 * The outbox's status for the dashboard inside the application (pending rows, oldest pending age, the relay's state),
 * a bean when the outbox is on; it names only JDK types, so the dashboard's configuration reads it without loading
 * anything of delayq-outbox or spring-jdbc.
 *
 * @param status read at every refresh of the dashboard's overview
 */
public record DelayqOutboxDashboardStatus(Supplier<Map<String, Object>> status) {
}
