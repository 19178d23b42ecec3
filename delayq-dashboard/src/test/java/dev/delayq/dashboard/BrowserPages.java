package dev.delayq.dashboard;

import dev.delayq.testkit.RedisExtension;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Consumer;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;

/**
 * What every browser test class shares: the JVM's Redis, the one Chromium ({@link BrowserSession}) reset for each test,
 * and dashboards whose pages refresh every {@link #REFRESH} instead of every 5 s, so that a change made through the
 * API while a page is open shows within a fraction of a second (the tests wait for it with a deadline, never a sleep).
 */
abstract class BrowserPages {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();
    @RegisterExtension
    static final BrowserSession BROWSER = new BrowserSession();

    /** How often the test dashboards' pages refresh (the default is 5 s). */
    static final Duration REFRESH = Duration.ofMillis(250);

    Browser browser;
    WebDriver d;

    @BeforeEach
    void driver() {
        browser = BROWSER.browser();
        d = browser.driver;
    }

    static ConditionFactory waiting() {
        return BrowserSession.waiting();
    }

    /** A dashboard with the test token on this test's prefix, its pages refreshing every {@link #REFRESH}. */
    Served serve() {
        return serve(b -> { });
    }

    /** {@link #serve()} with more settings. */
    Served serve(Consumer<Dashboard.Builder> config) {
        return Served.start(REDIS.uri(), REDIS.prefix(), b -> config.accept(b.token(Served.TOKEN).refresh(REFRESH)),
                Served.TOKEN);
    }

    /**
     * The text of the first element {@code css} matches, read again when a refresh replaced the element between finding
     * and reading it (a page refreshing every 250 ms re-renders its counts often).
     */
    String textOf(String css) {
        try {
            return d.findElement(By.cssSelector(css)).getText();
        } catch (StaleElementReferenceException e) {
            return waiting().until(() -> d.findElement(By.cssSelector(css)).getText(), t -> true);
        }
    }

    /** An attribute of the first element {@code css} matches (null when absent), read as {@link #textOf} reads text. */
    String attrOf(String css, String attribute) {
        try {
            return d.findElement(By.cssSelector(css)).getDomAttribute(attribute);
        } catch (StaleElementReferenceException e) {
            return waiting().until(() -> Optional.ofNullable(d.findElement(By.cssSelector(css)).getDomAttribute(attribute)),
                    a -> true).orElse(null);
        }
    }

    /** Clicks the first element {@code css} matches, found again when a refresh replaced it before the click. */
    void clickOn(String css) {
        try {
            d.findElement(By.cssSelector(css)).click();
        } catch (StaleElementReferenceException e) {
            waiting().until(() -> {
                d.findElement(By.cssSelector(css)).click();
                return true;
            });
        }
    }

    /** Logs in to {@code s}'s dashboard with the test token and waits for the overview. */
    void login(Served s) {
        BROWSER.login(s);
    }
}
