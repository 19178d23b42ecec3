package dev.delayq.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.delayq.Job;
import dev.delayq.JobQueue;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.interactions.Actions;

/**
 * The queue page's charts in a real headless Chromium (issue 43): the window buttons switch between 1 h, 24 h and 7 d
 * (kept in the address), the titles say the point's length, and moving over a chart shows the point's time and values.
 */
class QueueChartsBrowserTest extends BrowserPages {
    private String text(String id) {
        return textOf("#" + id);
    }

    /**
     * Moves the pointer over the chart's last point where series {@code series} (1 = first after time) has a value
     * above zero (where the test's jobs ran, as the chart itself places it), and reads the line under the chart.
     */
    private String hover(String key, int series) {
        WebElement over = d.findElement(By.cssSelector("#chart-" + key + " .u-over"));
        Object x = ((JavascriptExecutor) d).executeScript("const u = document.getElementById('chart-' + arguments[0]).plot;"
                + "let i = u.data[arguments[1]].length - 1; while (i > 0 && !(u.data[arguments[1]][i] > 0)) i--;"
                + "return Math.round(u.valToPos(u.data[0][i], 'x'));", key, series);
        int w = over.getSize().getWidth();
        int at = ((Number) x).intValue() - w / 2;
        new Actions(d).moveToElement(over, -w / 2 + 1, 0).moveToElement(over, at, 0).perform();
        return text("hover-" + key);
    }

    @Test
    void theWindowButtonsSwitchTheChartsAndHoverShowsThePointsValues() {
        try (Served s = serve()) {
            JobQueue orders = s.dq.queue("orders");
            List<Job> jobs = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                jobs.add(Job.builder().id("c" + i).build());
            }
            orders.enqueueAll(jobs);
            dev.delayq.Worker worker = dev.delayq.Worker.builder(orders, ctx -> { }).concurrency(2).build().start();
            try {
                await().atMost(Duration.ofSeconds(60)).until(() -> orders.inspector().stats().done() == 8);
            } finally {
                worker.close();
            }
            d.get(s.dashboard.url() + "login");
            d.findElement(By.name("token")).sendKeys(Served.TOKEN);
            clickOn("form button[type=submit]");
            waiting().until(() -> d.findElement(By.tagName("h1")).getText().equals("Overview"));

            d.get(s.dashboard.url() + "queues/orders");
            waiting().until(() -> "1h".equals(d.findElement(By.id("chart-throughput")).getDomAttribute("data-window")));
            assertThat(text("chart-title-throughput")).isEqualTo("Throughput, jobs per minute (last hour)");
            assertThat(text("chart-title-lag")).matches("Dispatch lag, (ms|s|min) \\(last hour\\)");
            assertThat(attrOf("#chart-window [data-window='1h']", "aria-pressed"))
                    .isEqualTo("true");
            waiting().until(() -> hover("throughput", 2).matches(".*completed [1-8] per minute.*"));
            assertThat(text("hover-throughput")).matches("\\d\\d:\\d\\d–\\d\\d:\\d\\d · enqueued .*");

            // Seven days: hourly points, remembered in the address, the hover line says per hour.
            clickOn("#chart-window [data-window='7d']");
            waiting().until(() -> "7d".equals(d.findElement(By.id("chart-throughput")).getDomAttribute("data-window")));
            assertThat(d.getCurrentUrl()).contains("window=7d");
            assertThat(text("chart-title-throughput")).isEqualTo("Throughput, jobs per hour (last 7 days)");
            waiting().until(() -> hover("throughput", 2).contains("completed 8 per hour"));
            browser.screenshot("queue-charts-7d");

            // 24 h: ten-minute points; a reload keeps the window.
            clickOn("#chart-window [data-window='24h']");
            waiting().until(() -> "24h".equals(d.findElement(By.id("chart-throughput")).getDomAttribute("data-window")));
            assertThat(text("chart-title-throughput")).isEqualTo("Throughput, jobs per 10 min (last 24 hours)");
            d.navigate().refresh();
            waiting().until(() -> "24h".equals(d.findElement(By.id("chart-throughput")).getDomAttribute("data-window")));
            waiting().until(() -> hover("lag", 2).matches(".* · p50 [0-9.]+ (ms|s|min) · p99 [0-9.]+ (ms|s|min)"));
        }
    }
}
