package dev.delayq.examples.orders;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.servlet.util.matcher.PathPatternRequestMatcher;

/**
 * The application's own security: the orders API is open (a demo; a real shop authenticates its customers) and
 * without CSRF (no browser form posts to it), the health endpoint is open, everything else needs a login. The
 * delayq dashboard at /delayq is not configured here: the starter's own filter chain for that path requires the role
 * DELAYQ and comes before this one.
 */
@Configuration(proxyBeanMethods = false)
class OrdersSecurity {
    @Bean
    SecurityFilterChain ordersSecurityFilterChain(HttpSecurity http) throws Exception {
        PathPatternRequestMatcher.Builder path = PathPatternRequestMatcher.withDefaults();
        http.authorizeHttpRequests(a -> a
                        .requestMatchers(path.matcher("/orders/**"), path.matcher("/actuator/health/**")).permitAll()
                        .anyRequest().authenticated())
                .csrf(c -> c.ignoringRequestMatchers(path.matcher("/orders/**")))
                .httpBasic(Customizer.withDefaults());
        return http.build();
    }
}
