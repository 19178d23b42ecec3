package dev.delayq.spring.docs;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Import;

/** The application the examples of docs/spring-boot.md belong to, run by {@link PaymentTimeoutTest}. */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import({InMemoryOrders.class, OrderService.class, PaymentTimeoutListener.class, ReportFlow.class})
class ShopApplication {
}
