package dev.delayq.spring;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The dashboard inside the application, under {@code delayq.dashboard.*}: its pages and JSON API served by the
 * application's own web server (servlet stack) at {@link #getPath() path}, protected by Spring Security when the
 * application has it, else by the dashboard's token.
 */
@ConfigurationProperties(prefix = "delayq.dashboard")
public class DelayqDashboardProperties {
    /**
     * Whether the application serves the delayq dashboard and its JSON API from its own web server (servlet stack; needs
     * the delayq-dashboard artifact).
     */
    private boolean enabled;

    /** Where the dashboard is served, below the context path: "/delayq" serves "/delayq/" and "/delayq/api/...". */
    private String path = "/delayq";

    /**
     * With Spring Security: the role a user needs for the dashboard (without "ROLE_"), required by the dashboard's own
     * security filter chain for every request under the path.
     */
    private String role = "DELAYQ";

    /**
     * With Spring Security: whether changes made on the dashboard (POST, DELETE) need the CSRF token, which the pages
     * send from the XSRF-TOKEN cookie as the X-XSRF-TOKEN header. false for an application that turns CSRF off.
     */
    private boolean csrf = true;

    /**
     * Without Spring Security: the token every request must carry (Authorization: Bearer, or the dashboard's login
     * page), at least 16 printable characters, e.g. from 'openssl rand -hex 16'. Required then; unused with Spring
     * Security.
     */
    private String token;

    /** Whether the dashboard only shows: every change is refused (403). */
    private boolean readOnly;

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getPath() {
        return path;
    }

    public void setPath(String path) {
        this.path = path;
    }

    public String getRole() {
        return role;
    }

    public void setRole(String role) {
        this.role = role;
    }

    public boolean isCsrf() {
        return csrf;
    }

    public void setCsrf(boolean csrf) {
        this.csrf = csrf;
    }

    public String getToken() {
        return token;
    }

    public void setToken(String token) {
        this.token = token;
    }

    public boolean isReadOnly() {
        return readOnly;
    }

    public void setReadOnly(boolean readOnly) {
        this.readOnly = readOnly;
    }

    /**
     * The path, checked: one or more segments of letters, digits, '-', '_', '.' or '~', each after a '/', no '/' at
     * the end.
     *
     * @throws IllegalArgumentException naming the property, the value and what is allowed
     */
    String checkedPath() {
        if (path == null || !path.matches("(/[A-Za-z0-9._~-]+)+") || path.matches(".*/\\.{1,2}(/.*)?")) {
            throw new IllegalArgumentException("delayq.dashboard.path is '" + path + "': use a path such as /delayq "
                    + "(segments of letters, digits, '-', '_', '.' or '~', each after a '/', none '.' or '..', no '/' "
                    + "at the end)");
        }
        return path;
    }

    /**
     * The role, checked: letters, digits, '_', '.' or '-', without the "ROLE_" prefix Spring Security adds.
     *
     * @throws IllegalArgumentException naming the property, the value and what is allowed
     */
    String checkedRole() {
        if (role == null || !role.matches("[A-Za-z0-9_.-]+") || role.startsWith("ROLE_")) {
            throw new IllegalArgumentException("delayq.dashboard.role is '" + role + "': give a role name of letters, "
                    + "digits, '_', '.' or '-', without the 'ROLE_' prefix, e.g. DELAYQ");
        }
        return role;
    }
}
