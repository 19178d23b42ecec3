package dev.delayq.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.ClaimOptions;
import dev.delayq.ClaimedJob;
import dev.delayq.Job;
import dev.delayq.JobQueue;
import dev.delayq.JobState;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;

/**
 * Triage in a real headless Chromium (issue 43): the queue page's ready, delayed and retrying tabs list what the counts
 * say; "Select all matching" on a searched list selects every matching job across pages, its confirmation names the
 * count, and the retry moves exactly those; the overview's chart window (1 h, 24 h, 7 d) is kept in the links to the
 * queues and in the queue page's paging links. Screenshots go to {@code target/screenshots}.
 */
class TriageBrowserTest extends BrowserPages {
    private List<String> rows() {
        return d.findElements(By.cssSelector("#jobs tbody tr")).stream().map(r -> r.getDomAttribute("data-id")).toList();
    }

    @Test
    void theReadyDelayedAndRetryingTabsListTheScheduledJobsByState() {
        try (Served s = serve()) {
            JobQueue q = s.dq.queue("orders");
            q.enqueue(Job.builder().id("flaky").build());
            ClaimedJob c = q.leases().claim(ClaimOptions.of(1, Duration.ofMinutes(1))).jobs().get(0);
            q.leases().fail(c.lease(), "timeout talking to bank", true, Duration.ofHours(2));
            q.enqueue(Job.builder().id("now1").build());
            q.enqueue(Job.builder().id("now2").build());
            Seed.scheduled(q, "later");
            login(s);

            d.get(s.dashboard.url() + "queues/orders");
            waiting().until(() -> rows().size() == 4);
            assertThat(textOf(".tabs a[data-state='ready']")).isEqualTo("ready 2");
            assertThat(textOf(".tabs a[data-state='retrying']")).isEqualTo("retrying 1");
            clickOn(".tabs a[data-state='retrying']");
            waiting().until(() -> rows().equals(List.of("flaky")));
            assertThat(attrOf(".tabs a.active", "data-state")).isEqualTo("retrying");
            assertThat(textOf("#jobs tr[data-id='flaky'] .error-cell")).contains("timeout talking to bank");
            browser.screenshot("queue-retrying-tab");
            clickOn(".tabs a[data-state='ready']");
            waiting().until(() -> rows().equals(List.of("now1", "now2")));
            clickOn(".tabs a[data-state='delayed']");
            waiting().until(() -> rows().equals(List.of("later")));
            // A scheduled job's operations are offered on these tabs too.
            assertThat(d.findElements(By.cssSelector("#jobs tr[data-id='later'] [data-action='run-now']"))).hasSize(1);
        }
    }

    @Test
    void retryAllMatchingASearchSelectsEveryPageAndConfirmsWithTheCount() {
        try (Served s = serve()) {
            JobQueue q = s.dq.queue("orders");
            Seed.dead(q, "timeout talking to bank", IntStream.range(0, 90).mapToObj(i -> "t" + i).toArray(String[]::new));
            Seed.dead(q, "card declined", IntStream.range(0, 30).mapToObj(i -> "c" + i).toArray(String[]::new));
            login(s);

            d.get(s.dashboard.url() + "queues/orders?state=dead&q=timeout");
            waiting().until(() -> rows().size() == 50); // a search answers 50 matches at a time
            clickOn("#jobs thead input[type=checkbox]");
            clickOn("[data-action='select-all-matching']");
            waiting().until(() -> textOf("#matching-note")
                    .equals("All 90 dead jobs matching \"timeout\" selected, on every page"));
            assertThat(d.findElements(By.cssSelector("#jobs tbody input[type=checkbox]:checked"))).hasSize(50);
            clickOn("[data-action='retry-matching']");
            assertThat(textOf("[data-action='retry-matching']"))
                    .isEqualTo("Sure? Retry all 90 matching");
            browser.screenshot("retry-all-matching-armed");
            clickOn("[data-action='retry-matching']");

            waiting().until(() -> q.inspector().stats().dead() == 30);
            assertThat(q.inspector().stats().scheduled()).isEqualTo(90);
            assertThat(q.inspector().stream(JobState.DEAD).map(j -> j.lastError()).distinct().toList())
                    .containsExactly("card declined");
            waiting().until(() -> textOf("#toast").contains("retried: 90 matching jobs"));
            waiting().until(() -> d.findElements(By.id("no-match")).size() == 1);
        }
    }

    @Test
    void theOverviewsChartWindowIsKeptInTheQueueLinksAndThePagingLinks() {
        try (Served s = serve()) {
            JobQueue q = s.dq.queue("orders");
            Seed.scheduled(q, IntStream.range(0, 60).mapToObj(i -> "s" + i).toArray(String[]::new));
            login(s);

            waiting().until(() -> "1h".equals(d.findElement(By.id("chart-throughput")).getDomAttribute("data-window")));
            assertThat(textOf("#chart-title-throughput"))
                    .isEqualTo("Throughput, jobs per minute (all queues, last hour)");
            clickOn("#chart-window [data-window='7d']");
            waiting().until(() -> "7d".equals(d.findElement(By.id("chart-throughput")).getDomAttribute("data-window")));
            assertThat(textOf("#chart-title-throughput"))
                    .isEqualTo("Throughput, jobs per hour (all queues, last 7 days)");
            assertThat(textOf("#chart-title-lag")).matches("Dispatch lag, (ms|s|min) \\(worst queue, last 7 days\\)");
            assertThat(d.getCurrentUrl()).endsWith("?window=7d");
            waiting().until(() -> attrOf("#queues tr[data-queue='orders'] a", "href")
                    .endsWith("window=7d"));
            browser.screenshot("overview-window-7d");

            clickOn("#queues tr[data-queue='orders'] a");
            waiting().until(() -> "7d".equals(d.findElement(By.id("chart-throughput")).getDomAttribute("data-window")));
            waiting().until(() -> attrOf(".pager [data-page='next']", "href")
                    .contains("window=7d"));
            clickOn(".pager [data-page='next']");
            waiting().until(() -> rows().size() == 10);
            assertThat(d.getCurrentUrl()).contains("offset=50").contains("window=7d");
            assertThat(attrOf("#chart-window [data-window='7d']", "aria-pressed"))
                    .isEqualTo("true");
            // Switched on the queue page, the window goes into the links at once.
            clickOn("#chart-window [data-window='24h']");
            waiting().until(() -> attrOf(".pager [data-page='previous']", "href")
                    .contains("window=24h"));
            assertThat(attrOf(".tabs a[data-state='dead']", "href")).contains("window=24h");
        }
    }
}
