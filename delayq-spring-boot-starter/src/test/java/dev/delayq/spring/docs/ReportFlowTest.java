package dev.delayq.spring.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.test.DelayqTestJobs;
import dev.delayq.test.spring.AutoConfigureDelayqRedis;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

/** The flow example of docs/spring-boot.md runs: the summary reads both parts' results. */
@SpringBootTest(classes = ShopApplication.class)
@AutoConfigureDelayqRedis
class ReportFlowTest {
    @Autowired ReportFlow flow;
    @Autowired DelayqTestJobs jobs;

    @Test
    void theSummaryReadsThePartsResults() {
        flow.start(3, 4);
        jobs.awaitDrained("reports", Duration.ofSeconds(30));
        assertThat(flow.reports.published).hasSize(1);
        assertThat(flow.reports.published.get(0)).containsExactlyInAnyOrder(
                new ReportFlow.PartTotal(3, 300), new ReportFlow.PartTotal(4, 400));
    }
}
