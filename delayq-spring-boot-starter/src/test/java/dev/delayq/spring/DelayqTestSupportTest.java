package dev.delayq.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.DelayQ;
import dev.delayq.test.DelayqTestJobs;
import dev.delayq.test.spring.AutoConfigureDelayqRedis;
import dev.delayq.testkit.RedisServer;
import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The test support an application uses ({@code delayq-test}), on this Boot line: {@link AutoConfigureDelayqRedis}
 * starts a private Redis and points delayq and Spring Data Redis at it with no property written, and
 * {@link DelayqTestJobs} runs a 30-minute time-out now and waits until its queue is drained.
 */
@SpringBootTest(classes = DelayqTestSupportTest.App.class, properties = "spring.data.redis.port=1")
@AutoConfigureDelayqRedis
class DelayqTestSupportTest {
    private static final Duration WAIT = Duration.ofSeconds(30);

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
        final Queue<String> cancelled = new ConcurrentLinkedQueue<>();

        @DelayqListener(queue = "timeouts")
        void onTimeout(Order order) {
            cancelled.add(order.item());
        }
    }

    @Autowired
    DelayqTemplate template;

    @Autowired
    DelayqTestJobs jobs;

    @Autowired
    RedisServer redis;

    @Autowired
    DelayQ delayQ;

    @Autowired
    App app;

    @Test
    void aThirtyMinuteTimeoutRunsNowAndTheQueueIsDrained() {
        assertThat(delayQ.server()).isEqualTo(redis.uri());
        template.enqueue("timeouts", "order-7:timeout", new Order(7, "pen"), Duration.ofMinutes(30));
        assertThat(jobs.runDueNow("timeouts")).isEqualTo(1);
        assertThat(jobs.awaitDrained("timeouts", WAIT).done()).isEqualTo(1);
        assertThat(app.cancelled).containsExactly("pen");
    }

    @Test
    void springDataRedisUsesThePrivateServerTooOverTheApplicationsOwnSettings(@Autowired StringRedisTemplate redisTemplate) {
        redisTemplate.opsForValue().set("delayq-test-support", "here");
        assertThat(redis.call("GET", "delayq-test-support")).isEqualTo("here");
    }
}
