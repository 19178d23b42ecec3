package dev.delayq.spring;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.csrf.CookieCsrfTokenRepository;
import org.springframework.security.web.csrf.CsrfException;
import org.springframework.security.web.csrf.CsrfFilter;
import org.springframework.security.web.csrf.CsrfToken;
import org.springframework.security.web.csrf.CsrfTokenRequestAttributeHandler;
import org.springframework.security.web.servlet.util.matcher.PathPatternRequestMatcher;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * The dashboard's Spring Security filter chain, {@code delayqDashboardSecurityFilterChain}: it matches only
 * {@code delayq.dashboard.path} and everything below, requires {@code delayq.dashboard.role} there (HTTP Basic for
 * clients; a user already logged in to the application through its session is recognised), and checks the CSRF token
 * of every change against the {@code XSRF-TOKEN} cookie, which the pages send back as {@code X-XSRF-TOKEN}
 * ({@code delayq.dashboard.csrf=false} turns that off). Ordered before the application's own chains, which it leaves
 * alone for every other path; an application that wants other rules defines a bean of the same name.
 *
 * <p>Imported by {@link DelayqDashboardAutoConfiguration} when Spring Security's web security is on.
 */
@Configuration(proxyBeanMethods = false)
class DelayqDashboardSecurity {
    /** Before the application's chains (Boot's default one is at its BASIC_AUTH_ORDER, applications' often lower). */
    static final int ORDER = Ordered.HIGHEST_PRECEDENCE + 50;

    @Bean
    @Order(ORDER)
    @ConditionalOnMissingBean(name = "delayqDashboardSecurityFilterChain")
    SecurityFilterChain delayqDashboardSecurityFilterChain(HttpSecurity http, DelayqDashboardProperties properties)
            throws Exception {
        String role = properties.checkedRole();
        http.securityMatcher(PathPatternRequestMatcher.withDefaults().matcher(properties.checkedPath() + "/**"))
                .authorizeHttpRequests(a -> a.anyRequest().hasRole(role))
                .httpBasic(Customizer.withDefaults())
                .exceptionHandling(e -> e.accessDeniedHandler((request, response, denied) -> refuse(response,
                        denied instanceof CsrfException
                                ? "the CSRF token is missing or wrong: send the XSRF-TOKEN cookie's value as X-XSRF-TOKEN"
                                : "the dashboard needs the role " + role)));
        if (properties.isCsrf()) {
            // The plain (not XOR-masked) token handler: the pages send the cookie's value back as it is.
            http.csrf(c -> c.csrfTokenRepository(CookieCsrfTokenRepository.withHttpOnlyFalse())
                    .csrfTokenRequestHandler(new CsrfTokenRequestAttributeHandler()))
                    .addFilterAfter(new CsrfCookieFilter(), CsrfFilter.class);
        } else {
            http.csrf(c -> c.disable());
        }
        return http.build();
    }

    /**
     * A refusal answered here, as the dashboard's own errors ({@code {"error": ...}}), rather than by an error dispatch
     * to {@code /error}, which the application's chain would answer 401 for a request whose Basic credentials were not
     * read yet (the CSRF check comes first).
     */
    private static void refuse(HttpServletResponse response, String fixedMessage) throws IOException {
        response.setStatus(HttpServletResponse.SC_FORBIDDEN);
        response.setContentType("application/json");
        response.getWriter().write("{\"error\":\"" + fixedMessage + "\"}");
    }

    /**
     * Loads the (deferred) CSRF token on every request, so the cookie is set on the first page a user opens, before
     * the first change.
     */
    static final class CsrfCookieFilter extends OncePerRequestFilter {
        @Override
        protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
                throws ServletException, IOException {
            Object token = request.getAttribute(CsrfToken.class.getName());
            if (token instanceof CsrfToken csrf) {
                csrf.getToken();
            }
            chain.doFilter(request, response);
        }
    }
}
