package dev.delayq.spring;

import org.springframework.boot.SpringBootVersion;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Fails the start of an application whose Spring Boot version this starter was not built for, with one line naming
 * the versions it supports, before any auto-configuration is loaded (on the wrong Boot line those fail with a
 * {@code NoClassDefFoundError} of a class Boot moved, which names neither delayq nor the fix).
 */
public class DelayqBootVersionCheck implements ApplicationContextInitializer<ConfigurableApplicationContext> {
    private final String bootVersion;

    /** Checks the Spring Boot on the class path. */
    public DelayqBootVersionCheck() {
        this(SpringBootVersion.getVersion());
    }

    DelayqBootVersionCheck(String bootVersion) {
        this.bootVersion = bootVersion;
    }

    /**
     * @throws IllegalStateException on a Boot version this artifact does not support, naming the supported ones
     */
    @Override
    public void initialize(ConfigurableApplicationContext context) {
        // No version (a repackaged Boot without its manifest): nothing to tell by.
        if (bootVersion != null && !DelayqBootLine.supports(bootVersion)) {
            throw new IllegalStateException("delayq does not support Spring Boot " + bootVersion + ": this starter supports "
                    + DelayqBootLine.SUPPORTED);
        }
    }
}
