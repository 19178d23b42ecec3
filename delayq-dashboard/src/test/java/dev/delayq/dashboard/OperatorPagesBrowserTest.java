package dev.delayq.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.delayq.ClaimOptions;
import dev.delayq.ClaimedJob;
import dev.delayq.Job;
import dev.delayq.JobQueue;
import dev.delayq.Schedule;
import dev.delayq.Worker;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;

/**
 * The pages of issue 43 in a real headless Chromium against a real dashboard and Redis: the workers page lists a
 * running worker and its job, the overview shows ready/delayed/retrying and flags a queue without workers, a processing
 * row names its worker, an error is shown whole on click, the schedules page runs a schedule's tick now and removes it,
 * and limits set from the page hold in the next claim. Screenshots go to {@code target/screenshots}.
 */
class OperatorPagesBrowserTest extends BrowserPages {
    private String text(String css) {
        return textOf(css);
    }

    @Test
    void theWorkersPageListsARunningWorkerAndTheProcessingRowNamesIt() {
        try (Served s = serve()) {
            JobQueue q = s.dq.queue("busy");
            CountDownLatch release = new CountDownLatch(1);
            Worker w = Worker.builder(q, ctx -> release.await()).name("page-worker").concurrency(3)
                    .heartbeatInterval(Duration.ofMillis(200)).build().start();
            try {
                q.enqueue(Job.builder().id("long-job").name("export").build());
                await().atMost(Duration.ofSeconds(30)).until(() -> q.inspector().workers().stream()
                        .anyMatch(i -> !i.running().isEmpty()));
                login(s);
                clickOn("#workers-link");
                waiting().until(() -> d.findElements(By.cssSelector("#workers li[data-job='long-job']")).size() == 1);
                WebElement row = d.findElement(By.cssSelector("#workers tbody tr"));
                assertThat(row.getText()).contains("page-worker", "busy", String.valueOf(ProcessHandle.current().pid()),
                        "long-job", "since ");
                assertThat(text("#workers td.queues")).isEqualTo("busy");
                browser.screenshot("workers");
                clickOn("#workers td.queues a");
                waiting().until(() -> d.findElement(By.tagName("h1")).getText().equals("Queue busy"));

                clickOn(".tabs a[data-state='processing']");
                waiting().until(() -> text("#jobs tr[data-id='long-job'] td.worker").startsWith("page-worker"));
                assertThat(text("#jobs tr[data-id='long-job'] td.worker")).contains("running ");
                assertThat(text("#jobs tr[data-id='long-job'] td.name")).isEqualTo("export");
                waiting().until(() -> text("dd[data-state='workers']").equals("1"));
                browser.screenshot("queue-processing");
            } finally {
                release.countDown();
                w.close();
            }
        }
    }

    @Test
    void theOverviewShowsReadyDelayedRetryingAndFlagsAQueueWithoutWorkers() {
        try (Served s = serve()) {
            JobQueue q = s.dq.queue("orders");
            String longError = "payment gateway timed out after 30 s; " + "x".repeat(300) + " END-OF-ERROR";
            q.enqueue(Job.builder().id("flaky").build());
            ClaimedJob c = q.leases().claim(ClaimOptions.of(1, Duration.ofMinutes(1))).jobs().get(0);
            q.leases().fail(c.lease(), longError, true, Duration.ofHours(1));
            q.enqueue(Job.builder().id("now1").build());
            q.enqueue(Job.builder().id("now2").build());
            Seed.scheduled(q, "later");
            login(s);
            String row = "#queues tr[data-queue='orders'] ";
            waiting().until(() -> text(row + "td[data-state='ready']").equals("2"));
            assertThat(text(row + "td[data-state='delayed']")).isEqualTo("1");
            assertThat(text(row + "td[data-state='retrying']")).isEqualTo("1");
            assertThat(text(row + "td[data-state='scheduled']")).isEqualTo("4");
            assertThat(text(row + "td[data-state='workers']")).isEqualTo("0 · no workers");
            browser.screenshot("overview-states");

            // The retrying job's error: cut in the row, whole after a click.
            d.get(s.dashboard.url() + "queues/orders");
            waiting().until(() -> d.findElements(By.cssSelector("#jobs tr[data-id='flaky'] td.error-cell")).size() == 1);
            WebElement err = d.findElement(By.cssSelector("#jobs tr[data-id='flaky'] td.error-cell"));
            assertThat(err.getText()).doesNotContain("END-OF-ERROR");
            err.click();
            waiting().until(() -> text("#jobs tr[data-id='flaky'] td.error-cell").endsWith("END-OF-ERROR"));
            assertThat(text("dd[data-state='retrying']")).isEqualTo("1");
        }
    }

    @Test
    void deadJobsSortNewestFirstWithTheToggle() {
        try (Served s = serve()) {
            JobQueue q = s.dq.queue("sorted");
            for (String id : List.of("d1", "d2", "d3")) {
                Seed.dead(q, "boom", id); // one at a time: each dies after the one before
            }
            login(s);
            d.get(s.dashboard.url() + "queues/sorted?state=dead");
            waiting().until(() -> d.findElements(By.cssSelector("#jobs tbody tr")).size() == 3);
            assertThat(d.findElements(By.cssSelector("#jobs tbody tr")).stream().map(r -> r.getAttribute("data-id")))
                    .containsExactly("d1", "d2", "d3");
            clickOn("#sort-toggle");
            waiting().until(() -> d.findElement(By.id("sort-toggle")).getAttribute("data-order").equals("newest")
                    && d.findElements(By.cssSelector("#jobs tbody tr")).stream().map(r -> r.getAttribute("data-id"))
                            .toList().equals(List.of("d3", "d2", "d1")));
            assertThat(d.getCurrentUrl()).contains("order=newest");
        }
    }

    @Test
    void theSchedulesPageRunsATickNowAndRemovesASchedule() {
        try (Served s = serve()) {
            JobQueue q = s.dq.queue("reports");
            q.schedules().upsert(Schedule.cron("nightly", "0 3 * * *", ZoneId.of("Europe/Paris")));
            q.schedules().upsert(Schedule.every("often", Duration.ofHours(6)));
            login(s);
            d.get(s.dashboard.url() + "queues/reports");
            waiting().until(() -> d.findElement(By.id("tools-link")).isDisplayed());
            clickOn("#tools-link");
            String nightly = "#schedules tr[data-schedule='nightly'] ";
            waiting().until(() -> d.findElements(By.cssSelector(nightly)).size() == 1);
            assertThat(text(nightly + "td.next-local")).contains("T03:00", "Europe/Paris");
            assertThat(text(nightly + "td.next-utc")).endsWith("Z");
            browser.screenshot("schedules");

            clickOn(nightly + "button[data-action='schedule-run-now']");
            waiting().until(() -> q.inspector().stats().ready() == 1);
            assertThat(q.inspector().list(dev.delayq.JobState.SCHEDULED, 0, 10)).extracting(dev.delayq.JobInfo::id)
                    .anyMatch(id -> id.startsWith("nightly@"));

            By remove = By.cssSelector("#schedules tr[data-schedule='often'] button[data-action='schedule-remove']");
            waiting().until(() -> d.findElement(remove).isDisplayed());
            d.findElement(remove).click();
            d.findElement(remove).click(); // the second click confirms
            waiting().until(() -> q.schedules().get("often").isEmpty()
                    && d.findElements(By.cssSelector("#schedules tr[data-schedule='often']")).isEmpty());
            assertThat(q.schedules().get("nightly")).isPresent();
        }
    }

    @Test
    void theSchedulesPagePausesAndResumesASchedule() {
        try (Served s = serve()) {
            JobQueue q = s.dq.queue("pausable");
            q.schedules().upsert(Schedule.every("hourly", Duration.ofHours(1)));
            login(s);
            d.get(s.dashboard.url() + "queues/pausable/schedules");
            String row = "#schedules tr[data-schedule='hourly'] ";
            By pause = By.cssSelector(row + "button[data-action='schedule-pause']");
            waiting().until(() -> !d.findElements(pause).isEmpty() && d.findElement(pause).isDisplayed());
            assertThat(text(row + "td.next-utc")).endsWith("Z");
            d.findElement(pause).click();
            By resume = By.cssSelector(row + "button[data-action='schedule-resume']");
            waiting().until(() -> q.schedules().get("hourly").orElseThrow().paused() && !d.findElements(resume).isEmpty());
            assertThat(text(row + "td.next-utc")).isEqualTo("paused");
            assertThat(d.findElements(By.cssSelector(row + "button[data-action='schedule-run-now']"))).as("no tick to run").isEmpty();
            assertThat(q.inspector().stats().scheduled()).as("the pending tick cancelled").isZero();
            browser.screenshot("schedule-paused");

            d.findElement(resume).click();
            waiting().until(() -> !q.schedules().get("hourly").orElseThrow().paused() && !d.findElements(pause).isEmpty());
            assertThat(text(row + "td.next-utc")).endsWith("Z");
            assertThat(q.inspector().stats().scheduled()).as("its next tick enqueued").isEqualTo(1);
        }
    }

    @Test
    void theJobPageListsTheErrorHistory() {
        try (Served s = serve()) {
            JobQueue q = s.dq.queue("flaky");
            q.enqueue(dev.delayq.Job.builder().id("f").maxAttempts(5).build());
            for (int i = 1; i <= 3; i++) {
                q.reschedule("f", Duration.ZERO);
                dev.delayq.ClaimedJob j = q.leases().claim(dev.delayq.ClaimOptions.of(1, Duration.ofMinutes(1))).jobs().get(0);
                q.leases().fail(j.lease(), "<b>boom</b> " + i, true, Duration.ofHours(1));
            }
            login(s);
            d.get(s.dashboard.url() + "queues/flaky/jobs/f");
            waiting().until(() -> d.findElements(By.cssSelector("#job-errors li")).size() == 3);
            assertThat(d.findElements(By.cssSelector("#job-errors li")).stream().map(e -> e.getAttribute("data-attempt")).toList())
                    .containsExactly("3", "2", "1");
            assertThat(text("#job-errors li[data-attempt='2'] pre")).as("shown as text").isEqualTo("<b>boom</b> 2");
            assertThat(d.findElements(By.cssSelector("#job-errors b"))).isEmpty();
            browser.screenshot("job-errors");
        }
    }

    @Test
    void limitsSetFromThePageHoldInTheNextClaim() {
        try (Served s = serve()) {
            JobQueue q = s.dq.queue("mail");
            Seed.scheduled(q, "m0");
            q.inspector().events(true);
            login(s);
            d.get(s.dashboard.url() + "queues/mail/schedules");
            // The event stream, tailed on each refresh: a job enqueued now shows up without a reload.
            waiting().until(() -> text("#events-body p.empty").startsWith("No events"));
            Seed.scheduled(q, "m-live");
            waiting().until(() -> text("#events tbody tr").contains("enqueued") && text("#events tbody tr").contains("m-live"));
            waiting().until(() -> d.findElement(By.id("limit-concurrency")).isDisplayed());
            WebElement rate = d.findElement(By.id("limit-rate"));
            rate.clear();
            rate.sendKeys("100/1m");
            WebElement conc = d.findElement(By.id("limit-concurrency"));
            conc.clear();
            conc.sendKeys("1");
            clickOn("button[data-action='limits-save']");
            waiting().until(() -> q.inspector().limits().concurrency() == 1);
            assertThat(q.inspector().limits().rateJobs()).isEqualTo(100);
            waiting().until(() -> text("#limits-now").equals("rate 100/1m, concurrency 1"));

            q.enqueue(Job.builder().id("a").build());
            q.enqueue(Job.builder().id("b").build());
            assertThat(q.leases().claim(ClaimOptions.of(2, Duration.ofMinutes(1))).jobs()).hasSize(1);
        }
    }
}
