package dev.delayq.dashboard;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.logging.Level;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;

/**
 * A headless Chromium from the system's packages, driven by its chromedriver. Tests that need it skip (with the
 * reason) when either is not installed; CI installs them.
 */
final class Browser implements AutoCloseable {
    static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    /** Where the screenshots of a test run go (the module's target directory). */
    static final Path SCREENSHOTS = Path.of("target", "screenshots");

    final ChromeDriver driver;
    private final ChromeDriverService service;
    private final Path profile;

    private Browser(ChromeDriver driver, ChromeDriverService service, Path profile) {
        this.driver = driver;
        this.service = service;
        this.profile = profile;
    }

    /** Skips the calling test class unless Chromium and its driver are installed. */
    static void assumeInstalled() {
        assumeTrue(Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
                "browser tests need " + CHROMIUM + " and " + CHROMEDRIVER + " (Debian packages chromium and "
                        + "chromium-driver); skipped because " + (Files.isExecutable(CHROMIUM) ? CHROMEDRIVER : CHROMIUM)
                        + " is missing");
    }

    /** Starts Chromium with a fresh profile. */
    static Browser start() {
        Path profile;
        try {
            profile = Files.createTempDirectory("delayq-chromium-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage", "--window-size=1360,1100", "--user-data-dir=" + profile);
        LoggingPreferences logs = new LoggingPreferences();
        logs.enable(LogType.BROWSER, Level.ALL);
        options.setCapability("goog:loggingPrefs", logs);
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort().withLogOutput(java.io.OutputStream.nullOutputStream()).build();
        ChromeDriver driver = new ChromeDriver(service, options);
        driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(60)).scriptTimeout(Duration.ofSeconds(30));
        return new Browser(driver, service, profile);
    }

    /** The console messages since the last call. */
    List<LogEntry> console() {
        return driver.manage().logs().get(LogType.BROWSER).getAll();
    }

    /** Saves a screenshot of the page as {@code target/screenshots/<name>.png}; returns its path. */
    Path screenshot(String name) {
        File shot = ((TakesScreenshot) driver).getScreenshotAs(OutputType.FILE);
        try {
            Files.createDirectories(SCREENSHOTS);
            Path target = SCREENSHOTS.resolve(name + ".png");
            Files.copy(shot.toPath(), target, StandardCopyOption.REPLACE_EXISTING);
            return target;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        try {
            driver.quit();
        } finally {
            service.stop();
            deleteTree(profile);
        }
    }

    private static void deleteTree(Path dir) {
        try (var paths = Files.walk(dir)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a leftover profile in /tmp harms nothing
        }
    }
}
