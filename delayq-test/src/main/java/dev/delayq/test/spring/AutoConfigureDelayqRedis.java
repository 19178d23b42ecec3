package dev.delayq.test.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * On a Spring Boot test ({@code @SpringBootTest} and the test slices): starts a private {@code redis-server} for the
 * test's application context (on a free loopback port; the one on {@code PATH} when it is 6.2 or newer, else one
 * bundled with delayq's test kit) and points the application at it, as Boot's {@code @ServiceConnection} does with a
 * container: no property and no {@code @DynamicPropertySource} to write.
 *
 * <pre>{@code
 * @SpringBootTest
 * @AutoConfigureDelayqRedis
 * class PaymentTimeoutTest {
 *     @Autowired OrderService orders;
 *     @Autowired DelayqTestJobs jobs;
 *
 *     @Test
 *     void anUnpaidOrderIsCancelledByItsTimeout() {
 *         long id = orders.place();                      // a time-out due in 30 minutes
 *         jobs.runDueNow("orders");                      // due now
 *         jobs.awaitDrained("orders", Duration.ofSeconds(10));
 *         assertThat(orders.status(id)).isEqualTo(CANCELLED);
 *     }
 * }
 * }</pre>
 *
 * <p>What it sets, above every other property source: {@code delayq.redis-url} (and {@code delayq.cluster=false}), and
 * Spring Data Redis's {@code spring.data.redis.url}, {@code host} and {@code port}, so the application's own Redis
 * templates use the same server. The context gets two beans: the {@link dev.delayq.testkit.RedisServer} (to stop or
 * restart it in a test) and a {@link dev.delayq.test.DelayqTestJobs} on the application's {@code DelayQ}. The server
 * lives as long as the context (Spring caches contexts between test classes: each cached context has its own server)
 * and is stopped when the context closes or the JVM exits.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
public @interface AutoConfigureDelayqRedis {
}
