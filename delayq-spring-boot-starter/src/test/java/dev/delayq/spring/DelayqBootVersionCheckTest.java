package dev.delayq.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;

/**
 * The starter runs on the Boot line it was built for, and on any other fails the start with one line naming the
 * versions it supports (before an auto-configuration fails on a class Boot moved).
 */
class DelayqBootVersionCheckTest {
    @SpringBootConfiguration
    static class App {
    }

    private static SpringApplicationBuilder app(String bootVersion) {
        return new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
                .initializers(new DelayqBootVersionCheck(bootVersion));
    }

    @Test
    void theBootLineItWasBuiltForStarts() {
        assertThat(SpringBootVersion.getVersion()).startsWith(TestBootLine.VERSION + ".");
        assertThat(DelayqBootLine.supports(SpringBootVersion.getVersion())).isTrue();
        app(SpringBootVersion.getVersion()).run().close();
    }

    @Test
    void anotherBootVersionFailsTheStartWithOneLineNamingTheSupportedOnes() {
        String other = TestBootLine.VERSION.equals("3.5") ? "4.0.7" : "3.5.7";
        for (String version : new String[] {other, "3.4.10", "4.1.2", "2.7.18"}) {
            assertThatThrownBy(() -> app(version).run()).as(version)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage("delayq does not support Spring Boot " + version + ": this starter supports "
                            + DelayqBootLine.SUPPORTED)
                    .hasMessageNotContaining("\n");
        }
        assertThat(DelayqBootLine.SUPPORTED).contains(TestBootLine.VERSION + ".x");
    }

    @Test
    void theCheckIsRegisteredForEveryApplication() {
        assertThat(new SpringApplicationBuilder(App.class).application().getInitializers())
                .anyMatch(DelayqBootVersionCheck.class::isInstance);
    }
}
