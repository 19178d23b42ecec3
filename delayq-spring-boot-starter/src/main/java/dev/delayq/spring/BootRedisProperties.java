package dev.delayq.spring;

import java.time.Duration;
import java.util.List;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * The part of Boot's {@code spring.data.redis.*} settings that delayq reads, bound by delayq itself: Boot's own
 * properties class has another name and package on each Boot line, and exists only with Spring Data Redis. Boot
 * documents these properties; this class is not a {@code @ConfigurationProperties} type, so they are not listed
 * twice.
 */
final class BootRedisProperties {
    private String url;
    private String host = "localhost";
    private int port = 6379;
    private int database;
    private String username;
    private String password;
    private Duration timeout;
    private String clientName;
    private final Ssl ssl = new Ssl();
    private Sentinel sentinel;
    private Cluster cluster;

    /** {@code spring.data.redis.*} of {@code environment}. */
    static BootRedisProperties of(Environment environment) {
        return Binder.get(environment).bindOrCreate("spring.data.redis", Bindable.of(BootRedisProperties.class));
    }

    /** {@code spring.data.redis.ssl.*}. */
    public static class Ssl {
        private boolean enabled;
        private String bundle;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public String getBundle() {
            return bundle;
        }

        public void setBundle(String bundle) {
            this.bundle = bundle;
        }
    }

    /** {@code spring.data.redis.sentinel.*}. */
    public static class Sentinel {
        private String master;
        private List<String> nodes;
        private String username;
        private String password;

        public String getMaster() {
            return master;
        }

        public void setMaster(String master) {
            this.master = master;
        }

        public List<String> getNodes() {
            return nodes;
        }

        public void setNodes(List<String> nodes) {
            this.nodes = nodes;
        }

        public String getUsername() {
            return username;
        }

        public void setUsername(String username) {
            this.username = username;
        }

        public String getPassword() {
            return password;
        }

        public void setPassword(String password) {
            this.password = password;
        }
    }

    /** {@code spring.data.redis.cluster.*}. */
    public static class Cluster {
        private List<String> nodes;

        public List<String> getNodes() {
            return nodes;
        }

        public void setNodes(List<String> nodes) {
            this.nodes = nodes;
        }
    }

    public String getUrl() {
        return url;
    }

    public void setUrl(String url) {
        this.url = url;
    }

    public String getHost() {
        return host;
    }

    public void setHost(String host) {
        this.host = host;
    }

    public int getPort() {
        return port;
    }

    public void setPort(int port) {
        this.port = port;
    }

    public int getDatabase() {
        return database;
    }

    public void setDatabase(int database) {
        this.database = database;
    }

    public String getUsername() {
        return username;
    }

    public void setUsername(String username) {
        this.username = username;
    }

    public String getPassword() {
        return password;
    }

    public void setPassword(String password) {
        this.password = password;
    }

    public Duration getTimeout() {
        return timeout;
    }

    public void setTimeout(Duration timeout) {
        this.timeout = timeout;
    }

    public String getClientName() {
        return clientName;
    }

    public void setClientName(String clientName) {
        this.clientName = clientName;
    }

    public Ssl getSsl() {
        return ssl;
    }

    public Sentinel getSentinel() {
        return sentinel;
    }

    public void setSentinel(Sentinel sentinel) {
        this.sentinel = sentinel;
    }

    public Cluster getCluster() {
        return cluster;
    }

    public void setCluster(Cluster cluster) {
        this.cluster = cluster;
    }
}
