package dev.delayq.spring;

import dev.delayq.dashboard.DashboardServlet;
import java.util.Map;
import java.util.function.Supplier;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * The dashboard inside the application ({@code delayq.dashboard.enabled=true}): the {@link DashboardServlet} of the
 * application's {@link DelayqClient}, registered with the application's own servlet container at
 * {@code delayq.dashboard.path} (default {@code /delayq}). No second web server, and no Javalin, Jetty or Kotlin (the
 * servlet needs none).
 *
 * <p>Who may use it: with Spring Security (its web security on), the {@code delayqDashboardSecurityFilterChain}
 * ({@code DelayqDashboardSecurity}) requires {@code delayq.dashboard.role} for every request under the path, with the
 * CSRF token in a cookie the pages send back; without it, the dashboard's own token ({@code delayq.dashboard.token},
 * then required) as on the standalone dashboard.
 */
@AutoConfiguration(after = DelayqAutoConfiguration.class, afterName = {
        // After Boot's web security, so that its default filter chain is decided before the dashboard's exists.
        "org.springframework.boot.autoconfigure.security.servlet.SecurityAutoConfiguration",
        "org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration",
        "org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.security.servlet.ManagementWebSecurityAutoConfiguration",
        "org.springframework.boot.security.autoconfigure.actuate.web.servlet.ManagementWebSecurityAutoConfiguration"})
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(ServletRegistrationBean.class)
@ConditionalOnProperty(prefix = "delayq.dashboard", name = "enabled", havingValue = "true")
@ConditionalOnBean(DelayqClient.class)
@EnableConfigurationProperties(DelayqDashboardProperties.class)
public class DelayqDashboardAutoConfiguration {
    static final String HTTP_SECURITY = "org.springframework.security.config.annotation.web.builders.HttpSecurity";
    static final String DASHBOARD_SERVLET = "dev.delayq.dashboard.DashboardServlet";

    /** The servlet at {@code path/*} (only loaded when delayq-dashboard is on the class path). */
    static final class Servlets {
        private Servlets() {
        }

        static ServletRegistrationBean<DashboardServlet> registration(DashboardServlet servlet, String path) {
            ServletRegistrationBean<DashboardServlet> bean = new ServletRegistrationBean<>(servlet, path + "/*");
            bean.setName("delayqDashboard");
            return bean;
        }
    }

    /** Enabled without the artifact: the start fails, saying what to add, rather than serving nothing silently. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingClass(DASHBOARD_SERVLET)
    static class WithoutDashboardArtifact implements InitializingBean {
        @Override
        public void afterPropertiesSet() {
            throw new IllegalStateException("delayq.dashboard.enabled=true, but delayq-dashboard is not on the class "
                    + "path: add the dependency dev.delayq:delayq-dashboard (its version from delayq-bom)");
        }
    }

    /** With Spring Security's web security: the application authenticates, the role and CSRF are checked by it. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {DASHBOARD_SERVLET, HTTP_SECURITY})
    @ConditionalOnBean(type = HTTP_SECURITY)
    @Import(DelayqDashboardSecurity.class)
    static class WithSpringSecurity {
        @Bean
        @ConditionalOnMissingBean(name = "delayqDashboardServlet")
        ServletRegistrationBean<DashboardServlet> delayqDashboardServlet(DelayqClient client,
                                                                         DelayqDashboardProperties properties,
                                                                         ObjectProvider<DelayqOutboxDashboardStatus> outbox) {
            String path = properties.checkedPath();
            properties.checkedRole();
            DashboardServlet servlet = DashboardServlet.builder(client::get).readOnly(properties.isReadOnly())
                    .outbox(outboxStatus(outbox)).authenticatedByApplication(true).build();
            return Servlets.registration(servlet, path);
        }
    }

    /** Without Spring Security's web security: the dashboard's own token, required. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = DASHBOARD_SERVLET)
    @ConditionalOnMissingBean(type = HTTP_SECURITY)
    static class WithToken {
        @Bean
        @ConditionalOnMissingBean(name = "delayqDashboardServlet")
        ServletRegistrationBean<DashboardServlet> delayqDashboardServlet(DelayqClient client,
                                                                         DelayqDashboardProperties properties,
                                                                         ObjectProvider<DelayqOutboxDashboardStatus> outbox) {
            String path = properties.checkedPath();
            String token = properties.getToken();
            if (token == null || token.isBlank()) {
                throw new IllegalArgumentException("delayq.dashboard.enabled=true needs Spring Security (its web "
                        + "security on) or delayq.dashboard.token (at least 16 printable characters, e.g. from "
                        + "'openssl rand -hex 16'): anyone who can reach the application could change jobs");
            }
            try {
                return Servlets.registration(DashboardServlet.builder(client::get).token(token)
                        .readOnly(properties.isReadOnly()).outbox(outboxStatus(outbox)).build(), path);
            } catch (IllegalArgumentException e) {
                // The message is the whole of it (the token's form); said with the property that holds the token.
                throw new IllegalArgumentException("delayq.dashboard.token: " + e.getMessage());
            }
        }
    }

    /** The outbox's status when the application has the outbox on, else null (no outbox block). */
    static Supplier<Map<String, Object>> outboxStatus(ObjectProvider<DelayqOutboxDashboardStatus> outbox) {
        DelayqOutboxDashboardStatus status = outbox.getIfAvailable();
        return status == null ? null : status.status();
    }
}
