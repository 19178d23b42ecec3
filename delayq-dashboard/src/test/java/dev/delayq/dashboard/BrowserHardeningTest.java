package dev.delayq.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.delayq.JobQueue;
import dev.delayq.JobState;
import dev.delayq.internal.Keys;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;

/**
 * Issue 43 in a real headless Chromium: a dashboard under a base path (/delayq) works page to page; a queue named
 * {@code ..} and jobs {@code .} and {@code ..} are reachable and changed from the pages (a browser resolves such path
 * segments, so the pages name them in the query); a queue whose keys cannot be read is flagged on the overview while
 * the others are shown.
 */
class BrowserHardeningTest extends BrowserPages {
    /** Whether the button still shows its armed confirmation (false once it was replaced or disarmed). */
    private static boolean armed(org.openqa.selenium.WebElement button) {
        try {
            return button.getText().startsWith("Sure?");
        } catch (org.openqa.selenium.StaleElementReferenceException e) {
            return false;
        }
    }

    private long held() {
        String v = (String) ((org.openqa.selenium.JavascriptExecutor) d).executeScript("return document.body.dataset.held || '0';");
        return Long.parseLong(v);
    }

    /**
     * The top bar's "Pause updates" stops the live refresh (a job added meanwhile does not appear until "Resume"), and an
     * armed confirmation holds it too: the row under the cursor stays while "Sure? Delete" waits for its second click.
     */
    @Test
    void theLiveRefreshPausesAndHoldsWhileAConfirmationIsArmed() {
        try (Served s = serve()) {
            JobQueue orders = s.dq.queue("orders");
            Seed.dead(orders, "boom", "d1", "d2");
            d.get(s.dashboard.url() + "login");
            d.findElement(By.name("token")).sendKeys(Served.TOKEN);
            clickOn("form button[type=submit]");
            waiting().until(() -> d.findElement(By.tagName("h1")).getText().equals("Overview"));
            d.get(s.dashboard.url() + "queues/orders?state=dead");
            waiting().until(() -> d.findElements(By.cssSelector("#jobs tbody tr")).size() == 2);

            clickOn("#live");
            assertThat(textOf("#live")).isEqualTo("Resume updates");
            long before = held();
            Seed.dead(orders, "boom", "d3");
            waiting().until(() -> held() >= before + 2);
            assertThat(d.findElements(By.cssSelector("#jobs tr[data-id='d3']"))).as("paused: not shown").isEmpty();
            browser.screenshot("updates-paused");
            clickOn("#live");
            waiting().until(() -> d.findElements(By.cssSelector("#jobs tr[data-id='d3']")).size() == 1);

            // Armed: a refresh that comes meanwhile is held, so the armed button is still there for its second click
            // and a job that died meanwhile is not shown yet. The job is added after the arming click: one added before
            // could be shown by a refresh that came between the two.
            boolean heldWhileArmed = false;
            List<String> added = new java.util.ArrayList<>();
            for (int i = 0; i < 15 && !heldWhileArmed; i++) {
                org.openqa.selenium.WebElement del = d.findElement(By.cssSelector("#jobs tr[data-id='d1'] button[data-action='delete']"));
                long h = held();
                del.click();
                String late = "d4-" + i;
                Seed.dead(orders, "boom", late);
                added.add(late);
                waiting().atMost(Duration.ofSeconds(10)).until(() -> held() > h || !armed(del));
                if (held() > h && armed(del)) {
                    heldWhileArmed = true;
                    assertThat(d.findElements(By.cssSelector("#jobs tr[data-id='" + late + "']"))).as("held: not re-rendered")
                            .isEmpty();
                    del.click();
                }
            }
            assertThat(heldWhileArmed).as("a refresh came while the confirmation was armed").isTrue();
            await().atMost(Duration.ofSeconds(30)).until(() -> orders.get("d1").isEmpty());
            String last = added.get(added.size() - 1);
            waiting().until(() -> d.findElements(By.cssSelector("#jobs tr[data-id='" + last + "']")).size() == 1
                    && d.findElements(By.cssSelector("#jobs tr[data-id='d1']")).isEmpty());

            // "Delete all dead (n)": two clicks, and the dead are gone; the done job stays.
            Seed.done(orders, "ok1");
            String all = "Delete all dead (" + (2 + added.size()) + ")";
            waiting().until(() -> textOf("button[data-action='delete-all-dead']").equals(all));
            clickOn("button[data-action='delete-all-dead']");
            clickOn("button[data-action='delete-all-dead']");
            await().atMost(Duration.ofSeconds(30)).until(() -> orders.inspector().stats().dead() == 0);
            assertThat(orders.get("ok1").orElseThrow().state()).isEqualTo(JobState.DONE);
            waiting().until(() -> d.findElements(By.cssSelector("#jobs tbody tr")).isEmpty()
                    && d.findElements(By.cssSelector("button[data-action='delete-all-dead']")).isEmpty());
        }
    }

    /** Search by error text, then the matches retried together with "select all" and "Retry selected". */
    @Test
    void aSearchFindsJobsAndTheMatchesAreRetriedTogether() {
        try (Served s = serve()) {
            JobQueue orders = s.dq.queue("orders");
            Seed.dead(orders, "card declined", "pay-1", "pay-2");
            Seed.dead(orders, "connect timeout", "mail-1", "mail-2");
            d.get(s.dashboard.url() + "login");
            d.findElement(By.name("token")).sendKeys(Served.TOKEN);
            clickOn("form button[type=submit]");
            waiting().until(() -> d.findElement(By.tagName("h1")).getText().equals("Overview"));
            d.get(s.dashboard.url() + "queues/orders?state=dead");
            waiting().until(() -> d.findElements(By.cssSelector("#jobs tbody tr")).size() == 4);

            d.findElement(By.id("find")).sendKeys("timeout");
            clickOn("#find-form button[type=submit]");
            waiting().until(() -> d.findElements(By.cssSelector("#jobs tbody tr")).size() == 2
                    && d.findElements(By.cssSelector("#jobs tr[data-id='mail-1']")).size() == 1);
            assertThat(textOf("#search-note")).isEqualTo("2 matching in 4 jobs read from position 1 to the end");
            browser.screenshot("search");
            clickOn("#jobs thead input[type=checkbox]");
            clickOn("button[data-action='retry-selected']");
            await().atMost(Duration.ofSeconds(30)).until(() -> orders.get("mail-1").orElseThrow().state() == JobState.SCHEDULED
                    && orders.get("mail-2").orElseThrow().state() == JobState.SCHEDULED);
            assertThat(orders.get("pay-1").orElseThrow().state()).isEqualTo(JobState.DEAD);
            waiting().until(() -> d.findElements(By.id("no-match")).size() == 1);
        }
    }

    @Test
    void underABasePathDotNamesAreReachableAndAnUnreadableQueueIsFlagged() {
        try (Served s = serve(b -> b.basePath("/delayq"))) {
            JobQueue dots = s.dq.queue("..");
            Seed.dead(dots, "dot failed", ".", "..");
            JobQueue orders = s.dq.queue("orders");
            Seed.dead(orders, "boom", "..");
            Seed.scheduled(s.dq.queue("broken"), "b1");
            REDIS.server().call("HSET", new String(new Keys(REDIS.prefix(), "broken").meta(), StandardCharsets.UTF_8),
                    "enqueued", "many");

            String url = s.dashboard.url();
            assertThat(url).endsWith("/delayq/");
            d.get(url + "login");
            d.findElement(By.name("token")).sendKeys(Served.TOKEN);
            clickOn("form button[type=submit]");
            waiting().until(() -> d.findElement(By.tagName("h1")).getText().equals("Overview"));
            assertThat(d.getCurrentUrl()).isEqualTo(url);

            // The unreadable queue is flagged; the others are shown with their counts.
            waiting().until(() -> d.findElements(By.cssSelector("#queues tbody tr")).size() == 3);
            assertThat(textOf("#queues tr[data-queue='broken'] .badge")).isEqualTo("unreadable");
            assertThat(textOf("#queues tr[data-queue='broken'] td.error"))
                    .startsWith("the queue's keys cannot be read: ");
            assertThat(textOf("#queues tr[data-queue='orders'] td[data-state='dead']"))
                    .isEqualTo("1");
            browser.screenshot("overview-unreadable-queue");

            // The queue '..': its link, its dead tab, its job '.', retried from the job's page.
            clickOn("#queues tr[data-queue='..'] td[data-state='dead'] a");
            waiting().until(() -> d.findElements(By.cssSelector("#jobs tr[data-id='.']")).size() == 1
                    && d.findElements(By.cssSelector("#jobs tr[data-id='..']")).size() == 1);
            assertThat(d.findElement(By.tagName("h1")).getText()).isEqualTo("Queue ..");
            assertThat(d.getCurrentUrl()).contains("/delayq/queues/_?").contains("queue=..");
            clickOn("#jobs tr[data-id='.'] td.id a");
            waiting().until(() -> textOf("#job-id").equals(".")
                    && textOf("#job-state").equals("dead"));
            assertThat(textOf("#job-error")).isEqualTo("dot failed");
            browser.screenshot("job-dot");
            clickOn("#job-actions button[data-action='retry']");
            await().atMost(Duration.ofSeconds(30)).until(() -> dots.get(".").orElseThrow().state() == JobState.SCHEDULED);
            assertThat(dots.get("..").orElseThrow().state()).isEqualTo(JobState.DEAD);

            // The job '..' of a queue with a plain name, retried from its row.
            d.get(url + "queues/orders?state=dead");
            waiting().until(() -> d.findElements(By.cssSelector("#jobs tr[data-id='..']")).size() == 1);
            clickOn("#jobs tr[data-id='..'] button[data-action='retry']");
            await().atMost(Duration.ofSeconds(30)).until(() -> orders.get("..").orElseThrow().state() == JobState.SCHEDULED);
            waiting().until(() -> d.findElement(By.id("toast")).getDomProperty("textContent").equals("retried .."));
        }
    }
}
