package dev.delayq.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebDriverException;
import org.openqa.selenium.logging.LogEntry;

/**
 * The browser tests' one Chromium: started once per test JVM by the first class that needs it (kept in JUnit's root
 * store, so it is closed when the run ends) and shared by every browser test class, which saves a Chromium start
 * (seconds on a loaded machine) per class. Each test starts from a reset session: extra windows closed, no cookies, a
 * blank page, the usual window size and an empty console; after it, the console must hold no script error and no
 * Content-Security-Policy violation. A session that died is replaced. Register it as
 * {@code @RegisterExtension static final BrowserSession BROWSER = new BrowserSession();}; the test classes skip (with
 * the reason) when Chromium or its driver is not installed.
 */
final class BrowserSession implements BeforeAllCallback, BeforeEachCallback, AfterEachCallback {
    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(BrowserSession.class);
    private static final Dimension SIZE = new Dimension(1360, 1100);

    private Browser browser;

    /**
     * Waits for a condition on the page: up to 30 s, checked at once and then every 100 ms, exceptions meaning "not
     * yet".
     */
    static ConditionFactory waiting() {
        return await().atMost(Duration.ofSeconds(30)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(100))
                .ignoreExceptions();
    }

    /** The shared browser, reset for the current test. */
    Browser browser() {
        return browser;
    }

    WebDriver driver() {
        return browser.driver;
    }

    /** Logs in to {@code s}'s dashboard with the test token and waits for the overview. */
    void login(Served s) {
        WebDriver d = browser.driver;
        d.get(s.dashboard.url() + "login");
        d.findElement(By.name("token")).sendKeys(Served.TOKEN);
        d.findElement(By.cssSelector("form button[type=submit]")).click();
        waiting().until(() -> d.findElement(By.tagName("h1")).getText().equals("Overview"));
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        Browser.assumeInstalled();
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        ExtensionContext.Store store = context.getRoot().getStore(NS);
        Browser b = store.getOrComputeIfAbsent(Browser.class, k -> Browser.start(), Browser.class);
        if (!reset(b)) {
            // The session died (a crashed renderer, a killed driver): a new one for this test and the next.
            store.remove(Browser.class, Browser.class);
            closeQuietly(b);
            b = store.getOrComputeIfAbsent(Browser.class, k -> Browser.start(), Browser.class);
            reset(b);
        }
        browser = b;
    }

    @Override
    public void afterEach(ExtensionContext context) {
        if (browser == null || context.getExecutionException().isPresent()) {
            return; // a failed test keeps its own failure
        }
        List<String> bad = browser.console().stream().map(LogEntry::getMessage)
                .filter(m -> m.contains("Content Security Policy") || m.contains("Uncaught") || m.contains("TypeError"))
                .collect(Collectors.toList());
        assertThat(bad).as("console errors").isEmpty();
    }

    /** Back to a fresh session's state; false when the session no longer answers. */
    private static boolean reset(Browser b) {
        try {
            WebDriver d = b.driver;
            List<String> handles = new ArrayList<>(d.getWindowHandles());
            for (int i = 1; i < handles.size(); i++) {
                d.switchTo().window(handles.get(i)).close();
            }
            d.switchTo().window(handles.get(0));
            try {
                d.switchTo().alert().dismiss();
            } catch (WebDriverException e) {
                // no alert open
            }
            d.get("about:blank");
            b.driver.executeCdpCommand("Network.clearBrowserCookies", Map.of());
            d.manage().window().setSize(SIZE);
            b.console(); // start with an empty console
            return true;
        } catch (WebDriverException e) {
            return false;
        }
    }

    private static void closeQuietly(Browser b) {
        try {
            b.close();
        } catch (RuntimeException e) {
            // it was dead already
        }
    }
}
