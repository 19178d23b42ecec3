package dev.delayq.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayq.Job;
import dev.delayq.JobQueue;
import dev.delayq.JobState;
import java.text.NumberFormat;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.NoAlertPresentException;
import org.openqa.selenium.WebElement;

/**
 * The pages in a real headless Chromium against a real dashboard and Redis: the overview shows what the API says and
 * refreshes by itself, a dead job's Retry button moves it to scheduled, markup in a payload is shown as text and runs
 * nothing, and without the token the page asks for it. Screenshots go to {@code target/screenshots}.
 */
class BrowserTest extends BrowserPages {
    private static final String EVIL = "<img src=x onerror=alert(1)>";

    private String cell(String queue, String state) {
        return textOf("#queues tr[data-queue='" + queue + "'] td[data-state='" + state + "']");
    }

    private static String fmt(long n) {
        return NumberFormat.getIntegerInstance(Locale.US).format(n);
    }

    @Test
    void theOverviewShowsTheCountsTheApiReturnsAndRefreshesWithoutReloading() {
        try (Served s = serve()) {
            JobQueue orders = s.dq.queue("orders");
            JobQueue mail = s.dq.queue("mail");
            runAWorker(orders, 40);
            Seed.scheduled(orders, "o1", "o2", "o3");
            Seed.dead(orders, "card declined", "o4", "o5");
            Seed.processing(orders, "o6");
            Seed.done(mail, "m1");
            Seed.scheduled(mail, "m2", "m3", "m4", "m5");
            login(s);

            JsonNode api = s.http.get("/api/queues").json();
            waiting().until(() -> d.findElements(By.cssSelector("#queues tbody tr")).size() == 2);
            for (JsonNode q : api) {
                for (String state : List.of("scheduled", "processing", "done", "dead")) {
                    assertThat(cell(q.get("name").asText(), state)).as(q.get("name") + " " + state)
                            .isEqualTo(fmt(q.get(state).asLong()));
                }
            }
            assertThat(cell("orders", "dead")).isEqualTo("6");
            assertThat(cell("orders", "done")).isEqualTo("36");
            assertThat(cell("mail", "scheduled")).isEqualTo("4");
            String version = s.dq.serverInfo().version();
            waiting().until(() -> textOf("#mode").contains("Redis " + version));
            browser.screenshot("overview");

            // A change in Redis shows up by itself, in the same page (no reload: the marker survives).
            ((JavascriptExecutor) d).executeScript("window.delayqMarker = 42;");
            Seed.scheduled(mail, "m6");
            Seed.dead(mail, "bounced", "m7");
            waiting().until(() -> cell("mail", "scheduled").equals("5") && cell("mail", "dead").equals("1"));
            assertThat(((JavascriptExecutor) d).executeScript("return window.delayqMarker;")).isEqualTo(42L);
        }
    }

    /** Some history for the charts: {@code n} jobs run by a real worker (one in ten refused for good), then it stops. */
    private static void runAWorker(JobQueue q, int n) {
        List<Job> jobs = new java.util.ArrayList<>();
        for (int i = 0; i < n; i++) {
            jobs.add(Job.builder().id("w" + i).payload(i % 10 == 0 ? "fail" : "ok").build());
        }
        q.enqueueAll(jobs);
        dev.delayq.Worker worker = dev.delayq.Worker.builder(q, ctx -> {
            if (ctx.payloadUtf8().equals("fail")) {
                throw new dev.delayq.NonRetryableException("refused by the test");
            }
        }).concurrency(4).build().start();
        try {
            await().atMost(Duration.ofSeconds(60)).until(() -> q.inspector().stats().done() + q.inspector().stats().dead() == n);
        } finally {
            worker.close();
        }
    }

    @Test
    void aDeadJobIsRetriedWithItsButtonAndMovesToScheduled() {
        try (Served s = serve()) {
            JobQueue orders = s.dq.queue("orders");
            Seed.dead(orders, "card declined", "pay-17", "pay-18");
            login(s);
            d.get(s.dashboard.url() + "queues/orders?state=dead");
            waiting().until(() -> d.findElements(By.cssSelector("#jobs tr[data-id='pay-17']")).size() == 1);
            assertThat(textOf("dd[data-state='dead']")).isEqualTo("2");
            browser.screenshot("queue");

            clickOn("#jobs tr[data-id='pay-17'] button[data-action='retry']");

            await().atMost(Duration.ofSeconds(30)).until(() -> orders.get("pay-17").orElseThrow().state() == JobState.SCHEDULED);
            assertThat(orders.get("pay-18").orElseThrow().state()).isEqualTo(JobState.DEAD);
            waiting().until(() -> d.findElements(By.cssSelector("#jobs tr[data-id='pay-17']")).isEmpty()
                    && textOf("dd[data-state='dead']").equals("1")
                    && textOf("dd[data-state='scheduled']").equals("1"));
            assertThat(d.findElement(By.id("toast")).getDomProperty("textContent")).isEqualTo("retried pay-17");

            // The scheduled tab now lists it.
            clickOn(".tabs a[data-state='scheduled']");
            waiting().until(() -> d.findElements(By.cssSelector("#jobs tr[data-id='pay-17']")).size() == 1);
        }
    }

    @Test
    void selectedDeadJobsAreRetriedTogetherAndAScheduledJobIsRescheduledFromItsPage() {
        try (Served s = serve()) {
            JobQueue orders = s.dq.queue("orders");
            Seed.dead(orders, "card declined", "b1", "b2", "b3");
            login(s);
            d.get(s.dashboard.url() + "queues/orders?state=dead");
            waiting().until(() -> d.findElements(By.cssSelector("#jobs tbody tr")).size() == 3);
            for (String id : List.of("b1", "b3")) {
                clickOn("#jobs tr[data-id='" + id + "'] input[type=checkbox]");
            }
            waiting().until(() -> d.findElement(By.cssSelector("button[data-action='retry-selected']")).isDisplayed());
            clickOn("button[data-action='retry-selected']");
            await().atMost(Duration.ofSeconds(30)).until(() -> orders.get("b1").orElseThrow().state() == JobState.SCHEDULED
                    && orders.get("b3").orElseThrow().state() == JobState.SCHEDULED);
            assertThat(orders.get("b2").orElseThrow().state()).isEqualTo(JobState.DEAD);
            waiting().until(() -> d.findElements(By.cssSelector("#jobs tbody tr")).size() == 1);
            assertThat(d.findElement(By.id("toast")).getDomProperty("textContent")).isEqualTo("retried: 2 of 2");

            d.get(s.dashboard.url() + "queues/orders/jobs/b1");
            WebElement delay = waiting().until(() -> d.findElement(By.cssSelector("input.delay")), e -> e != null);
            delay.clear();
            delay.sendKeys("2h");
            java.time.Instant before = s.dq.serverTime();
            clickOn("button[data-action='reschedule']");
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> orders.get("b1").orElseThrow().dueAt().isAfter(before.plus(Duration.ofMinutes(119))));
        }
    }

    @Test
    void deleteTakesASecondClickAndPauseShowsOnTheQueue() {
        try (Served s = serve()) {
            JobQueue orders = s.dq.queue("orders");
            Seed.dead(orders, "card declined", "gone-1");
            login(s);
            d.get(s.dashboard.url() + "queues/orders?state=dead");
            By delete = By.cssSelector("#jobs tr[data-id='gone-1'] button[data-action='delete']");
            waiting().until(() -> d.findElement(delete).isDisplayed());
            d.findElement(delete).click();
            waiting().until(() -> d.findElement(delete).getText().equals("Sure? Delete"));
            assertThat(orders.get("gone-1")).as("not after one click").isPresent();
            d.findElement(delete).click();
            await().atMost(Duration.ofSeconds(30)).until(() -> orders.get("gone-1").isEmpty());
            waiting().until(() -> d.findElements(By.cssSelector("#jobs tr[data-id='gone-1']")).isEmpty());

            clickOn("button[data-action='pause']");
            await().atMost(Duration.ofSeconds(30)).until(() -> orders.inspector().stats().paused());
            waiting().until(() -> textOf("h1 .badge.paused").equals("paused"));
            clickOn("button[data-action='resume']");
            await().atMost(Duration.ofSeconds(30)).until(() -> !orders.inspector().stats().paused());
            waiting().until(() -> d.findElements(By.cssSelector("h1 .badge.paused")).isEmpty());
        }
    }

    @Test
    void markupInAPayloadAnIdAndAnErrorIsShownAsTextAndRunsNothing() {
        try (Served s = serve()) {
            JobQueue orders = s.dq.queue("orders");
            String id = "xss-" + EVIL;
            orders.enqueue(Job.builder().id(id).payload(EVIL).delay(Duration.ofHours(1)).build());
            Seed.dead(orders, EVIL, "xss-dead");
            login(s);

            d.get(s.dashboard.url() + "queues/orders/jobs/" + ApiReadTest.encode(id));
            waiting().until(() -> textOf("#job-payload").equals(EVIL));
            assertThat(textOf("#job-id")).isEqualTo(id);
            assertThat(d.getTitle()).startsWith(id);
            assertNothingRan();
            browser.screenshot("job");

            d.get(s.dashboard.url() + "queues/orders?state=scheduled");
            waiting().until(() -> d.findElements(By.cssSelector("#jobs tbody tr")).size() == 1);
            WebElement row = d.findElement(By.cssSelector("#jobs tbody tr"));
            assertThat(row.getDomAttribute("data-id")).isEqualTo(id);
            assertThat(row.getText()).contains(id, EVIL);
            assertNothingRan();

            d.get(s.dashboard.url() + "queues/orders/jobs/xss-dead");
            waiting().until(() -> textOf("#job-error").equals(EVIL));
            assertNothingRan();
            browser.screenshot("job-dead");
        }
    }

    /** No element came out of the markup (it would be an img) and no alert opened. */
    private void assertNothingRan() {
        assertThat(d.findElements(By.tagName("img"))).isEmpty();
        try {
            d.switchTo().alert();
            fail("an alert opened: markup from Redis ran as script");
        } catch (NoAlertPresentException expected) {
            // nothing ran
        }
    }

    /**
     * Cross-site request forgery, as a browser does it: the browser is logged in, and a page of another origin on the same
     * host (another port: the same site, so the browser sends the session cookie along) posts a form to the dashboard.
     * The dashboard gets the cookie, and refuses the change for its origin.
     */
    @Test
    void aPageOfAnotherPortOnTheSameHostCannotMakeTheLoggedInBrowserChangeAnything() throws java.io.IOException {
        try (Served s = serve()) {
            JobQueue orders = s.dq.queue("orders");
            Seed.dead(orders, "card declined", "forged");
            login(s);
            String target = s.dashboard.url() + "api/queues/orders/jobs/forged/retry";
            byte[] page = ("<!doctype html><title>another site</title><form method=\"post\" action=\"" + target
                    + "\"></form><script>document.forms[0].submit()</script>").getBytes(java.nio.charset.StandardCharsets.UTF_8);
            com.sun.net.httpserver.HttpServer other = com.sun.net.httpserver.HttpServer.create(
                    new java.net.InetSocketAddress("127.0.0.1", 0), 0);
            other.createContext("/", exchange -> {
                exchange.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
                exchange.sendResponseHeaders(200, page.length);
                exchange.getResponseBody().write(page);
                exchange.close();
            });
            other.start();
            try {
                d.get("http://127.0.0.1:" + other.getAddress().getPort() + "/");
                // The form's POST reached the dashboard with the cookie (without it the answer would be 401, "a token is
                // required") and was refused for where it came from.
                waiting().until(() -> d.getCurrentUrl().equals(target) && d.getPageSource().contains("refused"));
                assertThat(d.getPageSource()).contains("cross-site request refused (Sec-Fetch-Site: same-site)");
            } finally {
                other.stop(0);
            }
            assertThat(orders.get("forged").orElseThrow().state()).isEqualTo(JobState.DEAD);
            // The browser is still logged in, and the dashboard's own Retry button works.
            d.get(s.dashboard.url() + "queues/orders?state=dead");
            waiting().until(() -> d.findElements(By.cssSelector("#jobs tr[data-id='forged']")).size() == 1);
            clickOn("#jobs tr[data-id='forged'] button[data-action='retry']");
            await().atMost(Duration.ofSeconds(30)).until(() -> orders.get("forged").orElseThrow().state() == JobState.SCHEDULED);
        }
    }

    @Test
    void withoutTheTokenThePageAsksForIt() {
        try (Served s = serve()) {
            Seed.dead(s.dq.queue("orders"), "secret error", "secret-job");
            d.get(s.dashboard.url() + "queues/orders/jobs/secret-job");
            waiting().until(() -> d.findElement(By.name("token")).isDisplayed());
            assertThat(d.getTitle()).isEqualTo("delayq: log in");
            assertThat(d.getPageSource()).doesNotContain("secret error");
            browser.screenshot("login");

            d.findElement(By.name("token")).sendKeys("not-the-token-0123456789");
            clickOn("form button[type=submit]");
            waiting().until(() -> textOf(".error").equals("That token is not right."));

            d.findElement(By.name("token")).sendKeys(Served.TOKEN);
            clickOn("form button[type=submit]");
            waiting().until(() -> d.findElement(By.tagName("h1")).getText().equals("Overview"));
            waiting().until(() -> d.findElements(By.cssSelector("#queues tr[data-queue='orders']")).size() == 1);

            // Logging out asks for it again.
            clickOn("#logout button");
            waiting().until(() -> d.findElement(By.name("token")).isDisplayed());
            d.get(s.dashboard.url());
            waiting().until(() -> d.findElement(By.name("token")).isDisplayed());
        }
    }
}
