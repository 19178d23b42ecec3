package dev.delayq.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.ClaimOptions;
import dev.delayq.Job;
import dev.delayq.JobQueue;
import dev.delayq.Limits;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;

/**
 * Flows and groups in a real headless Chromium (issues 40 and 41): the queue page's waiting tab lists a waiting child,
 * a waiting job's page says what it waits for and links its parents, a parent's page links its waiting children (the
 * first 20, "and K more"), each link opens that job's page; the Groups panel of a queue with groups lists its top
 * groups, and a queue without groups has none. Screenshots go to {@code target/screenshots}.
 */
class FlowsAndGroupsBrowserTest extends BrowserPages {
    private List<String> rows() {
        return d.findElements(By.cssSelector("#jobs tbody tr")).stream().map(r -> r.getDomAttribute("data-id")).toList();
    }

    private List<String> linked(String list) {
        return d.findElements(By.cssSelector("#" + list + " li[data-id]")).stream()
                .map(li -> li.getDomAttribute("data-id") + ":" + li.findElement(By.cssSelector(".badge")).getText()).toList();
    }

    @Test
    void theWaitingTabListsAChildAndItsPageLinksItsParentsWhoseLinksLeadBack() {
        try (Served s = serve()) {
            JobQueue q = s.dq.queue("reports");
            q.enqueue(Job.builder().id("part-1").build());
            q.enqueue(Job.builder().id("part-2").delay(Duration.ofHours(1)).build());
            q.enqueue(Job.builder().id("summary").after("part-1", "part-2").build());
            List<Job> more = new ArrayList<>();
            for (int i = 0; i < 21; i++) {
                more.add(Job.builder().id(String.format("n-%02d", i)).after("part-1").build());
            }
            q.enqueueAll(more);
            login(s);
            assertThat(((JavascriptExecutor) d).executeScript("return document.documentElement.dataset.refresh")).isEqualTo("250");

            d.get(s.dashboard.url() + "queues/reports?state=waiting");
            waiting().until(() -> rows().size() == 22);
            assertThat(rows()).contains("summary", "n-00", "n-20");
            assertThat(textOf(".tabs a[data-state='waiting']")).isEqualTo("waiting 22");
            assertThat(attrOf(".tabs a.active", "data-state")).isEqualTo("waiting");
            // A waiting job may be cancelled: its row offers it.
            assertThat(d.findElements(By.cssSelector("#jobs tr[data-id='summary'] [data-action='cancel']"))).hasSize(1);
            browser.screenshot("queue-waiting-tab");

            clickOn("#jobs tr[data-id='summary'] a");
            waiting().until(() -> textOf("#job-state").equals("waiting"));
            assertThat(textOf("#flow-waits"))
                    .isEqualTo("Waiting for 2 of its parents to finish (0 done); a dead parent makes it dead.");
            assertThat(linked("job-parents")).containsExactly("part-1:scheduled", "part-2:scheduled");
            browser.screenshot("job-waiting-parents");

            clickOn("#job-parents li[data-id='part-1'] a");
            waiting().until(() -> textOf("#job-id").equals("part-1"));
            waiting().until(() -> linked("job-children").size() == 20);
            assertThat(linked("job-children").get(0)).isEqualTo("summary:waiting");
            assertThat(textOf("#children-more")).isEqualTo("and 2 more");
            browser.screenshot("job-parent-children");

            // part-1 runs and completes meanwhile: the page, refreshing by itself, shows it done with no children left.
            q.leases().complete(q.leases().claim(ClaimOptions.of(1, Duration.ofMinutes(1))).jobs().get(0).lease());
            waiting().until(() -> textOf("#job-state").equals("done"));
            waiting().until(() -> d.findElements(By.id("job-children")).isEmpty());

            d.navigate().back();
            waiting().until(() -> textOf("#job-id").equals("summary"));
            waiting().until(() -> linked("job-parents").equals(List.of("part-1:done", "part-2:scheduled")));
            assertThat(textOf("#flow-waits")).startsWith("Waiting for 1 of its parents to finish (1 done)");
            clickOn("#job-parents li[data-id='part-2'] a");
            waiting().until(() -> textOf("#job-id").equals("part-2"));
            waiting().until(() -> linked("job-children").equals(List.of("summary:waiting")));
            assertThat(d.findElements(By.id("children-more"))).isEmpty();
        }
    }

    @Test
    void theGroupsPanelListsTheLargestBacklogsOfAQueueWithGroupsOnly() {
        try (Served s = serve()) {
            JobQueue tenants = s.dq.queue("tenants");
            List<Job> jobs = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                for (int k = 0; k <= i; k++) {
                    jobs.add(Job.builder().id("t" + i + "-" + k).group("tenant-" + i).delay(Duration.ofHours(1)).build());
                }
            }
            tenants.enqueueAll(jobs);
            tenants.inspector().groupLimits(Limits.ofConcurrency(2));
            s.dq.queue("plain").enqueue(Job.builder().id("p").build());
            login(s);

            d.get(s.dashboard.url() + "queues/tenants");
            waiting().until(() -> d.findElements(By.cssSelector("#groups tbody tr")).size() == 3);
            assertThat(d.findElements(By.cssSelector("#groups tbody tr")).stream().map(r -> r.getDomAttribute("data-group")))
                    .containsExactly("tenant-2", "tenant-1", "tenant-0");
            assertThat(textOf("#groups tr[data-group='tenant-2'] [data-col='scheduled']")).isEqualTo("3");
            assertThat(textOf("#groups-note"))
                    .isEqualTo("3 groups with scheduled jobs or running leases; every group's limits: concurrency 2");
            browser.screenshot("queue-groups");

            // A new group's jobs appear at the next refresh.
            tenants.enqueueAll(List.of(Job.builder().id("x1").group("tenant-9").delay(Duration.ofHours(1)).build(),
                    Job.builder().id("x2").group("tenant-9").delay(Duration.ofHours(1)).build(),
                    Job.builder().id("x3").group("tenant-9").delay(Duration.ofHours(1)).build(),
                    Job.builder().id("x4").group("tenant-9").delay(Duration.ofHours(1)).build()));
            waiting().until(() -> attrOf("#groups tbody tr", "data-group").equals("tenant-9"));

            d.get(s.dashboard.url() + "queues/plain");
            waiting().until(() -> rows().equals(List.of("p")));
            assertThat(d.findElement(By.id("groups-panel")).isDisplayed()).isFalse();
        }
    }
}
