package dev.delayq.spring;

import dev.delayq.Bounds;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.util.unit.DataSize;

/**
 * Settings of delayq in a Spring Boot application, under {@code delayq.*}. The connection comes from Boot's own
 * Redis settings ({@code spring.data.redis.*}, or a service connection) unless {@link #getRedisUrl() redis-url}
 * is set. Every default is delayq's own.
 */
@ConfigurationProperties("delayq")
public class DelayqProperties {
    /** Whether delayq is configured at all: false creates no client, no workers, no health indicator. */
    private boolean enabled = true;

    /**
     * The Redis server of delayq, overriding Boot's Redis settings: redis://[user:password@]host:port[/db],
     * rediss://... for TLS, or redis-sentinel://host:port[,host:port][/db]#master.
     */
    private String redisUrl;

    /**
     * Whether the server is a Redis Cluster. Left unset, it is true when Boot's settings name cluster nodes
     * (spring.data.redis.cluster.nodes) and false otherwise.
     */
    private Boolean cluster;

    /**
     * Name of an SSL bundle (spring.ssl.bundle.*) whose trusted certificates verify a rediss://
     * redis-url. Boot's Redis settings bring their own bundle.
     */
    private String sslBundle;

    /** First part of every key name of delayq: 1-64 characters from A-Z a-z 0-9 . _ - :. */
    private String prefix = "dq";

    /** The Redis timeout when neither delayq.timeout nor spring.data.redis.timeout is set. */
    static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

    /**
     * Command and connect timeout of delayq's Redis connection. Unset, it is spring.data.redis.timeout when that is
     * set, else 10s.
     */
    private Duration timeout;

    /**
     * Largest payload accepted by an enqueue, at most 256MB. The default is the core's, 256KB: every state change of a
     * job rewrites its payload, so keep large data elsewhere and enqueue a reference to it.
     */
    private DataSize maxPayloadSize = DataSize.ofBytes(Bounds.DEFAULT_MAX_PAYLOAD);

    /** How long completed jobs are kept, for inspection and id de-duplication (0 = deleted at once). */
    private Duration doneRetention = Duration.ofHours(1);

    /** How long dead jobs (attempts used up, or a non-retryable failure) are kept with their error. */
    private Duration deadRetention = Duration.ofDays(7);

    /**
     * Accept a server whose maxmemory-policy evicts keys. By default such a server is refused at startup:
     * eviction silently loses jobs.
     */
    private boolean allowEvictingMemoryPolicy;

    /**
     * Whether an unreachable Redis fails the application's start. false: the application starts, the delayq health
     * contributor is DOWN, and delayq connects in the background (every reconnect-delay), then starts the workers.
     */
    private boolean requireRedisAtStartup = true;

    /**
     * The delay between connection attempts while Redis has not been reached since start-up, and the longest wait
     * between reconnection attempts after a connection is lost (Lettuce's waits double from 1 ms up to it; at most 5m).
     */
    private Duration reconnectDelay = Duration.ofSeconds(2);

    /** Default retry policy of every job. */
    private final Retry retry = new Retry();

    /** The producer side (DelayqTemplate). */
    @NestedConfigurationProperty
    private final DelayqProducerProperties producer = new DelayqProducerProperties();

    /** Defaults of the workers that run DelayqListener methods. */
    private final Worker worker = new Worker();

    /**
     * Settings of each queue by name, applied in Redis at start-up before the workers start: rate (jobs/period, e.g.
     * 100/1s), concurrency-limit, job-timeout, max-attempts, paused, events.
     */
    private final Map<String, DelayqQueueProperties> queues = new LinkedHashMap<>();

    /**
     * Recurring schedules by name, created or updated at start-up before the workers start: queue, cron or every,
     * zone (default UTC), missed (SKIP, ONCE, ALL), payload.
     */
    private final Map<String, DelayqScheduleProperties> schedules = new LinkedHashMap<>();

    /**
     * What happens at start-up to a schedule of a queue this application consumes that neither a DelayqScheduled
     * method nor delayq.schedules declares: remove (it is removed, and the log says so) or report (it is left
     * ticking, and the log warns).
     */
    private ScheduleRemoval scheduleRemoval = ScheduleRemoval.REMOVE;

    /** What happens to schedules an application no longer declares ({@code delayq.schedule-removal}). */
    public enum ScheduleRemoval {
        /** Removed at start-up (logged). */
        REMOVE,
        /** Left ticking, with a warning in the log at start-up. */
        REPORT
    }

    /** Retries of failed attempts: exponential backoff with full jitter, from base up to cap. */
    public static class Retry {
        /** Attempts in all, the first included (1 = never retry); a job's own max attempts wins. */
        private int maxAttempts = 5;

        /** Shortest delay before a retry. */
        private Duration base = Duration.ofSeconds(5);

        /** Longest delay before a retry. */
        private Duration cap = Duration.ofHours(1);

        public int getMaxAttempts() {
            return maxAttempts;
        }

        public void setMaxAttempts(int maxAttempts) {
            this.maxAttempts = maxAttempts;
        }

        public Duration getBase() {
            return base;
        }

        public void setBase(Duration base) {
            this.base = base;
        }

        public Duration getCap() {
            return cap;
        }

        public void setCap(Duration cap) {
            this.cap = cap;
        }
    }

    /** Worker defaults; a DelayqListener attribute overrides its counterpart for one listener. */
    public static class Worker {
        /** Whether DelayqListener methods run: false leaves a producer-only application. */
        private boolean enabled = true;

        /** Most handlers of one listener running at once. */
        private int concurrency = 10;

        /** Most jobs leased per claim (never more than free handler slots). */
        private int batchSize = 100;

        /** A job's lease, renewed every third of it while its handler runs; at least 100 ms. */
        private Duration leaseDuration = Duration.ofSeconds(30);

        /**
         * Lease jobs due within this much of now and start each exactly at its due time (zero: only jobs already
         * due). Must be under half the lease; a job leased ahead can no longer be cancelled.
         */
        private Duration lookahead = Duration.ofMillis(50);

        /**
         * On shutdown, how long running handlers may finish; jobs still running then are handed back (due again at
         * once, the attempt not counted). Keep it under spring.lifecycle.timeout-per-shutdown-phase.
         */
        private Duration shutdownGrace = Duration.ofSeconds(10);

        /** How often done and dead jobs past retention are deleted, by one worker per queue (zero: never). */
        private Duration purgeInterval = Duration.ofMinutes(5);

        /** Longest sleep when nothing is scheduled, a safety net for a lost wake-up notice. */
        private Duration maxIdleSleep = Duration.ofSeconds(60);

        /**
         * The workers' name in logs and in their meters' worker tag, the same across restarts (unset: host, process id
         * and a random part). Give each instance of the application its own, e.g. ${HOSTNAME}.
         */
        private String name;

        public String getName() {
            return name;
        }

        public void setName(String name) {
            this.name = name;
        }

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public int getConcurrency() {
            return concurrency;
        }

        public void setConcurrency(int concurrency) {
            this.concurrency = concurrency;
        }

        public int getBatchSize() {
            return batchSize;
        }

        public void setBatchSize(int batchSize) {
            this.batchSize = batchSize;
        }

        public Duration getLeaseDuration() {
            return leaseDuration;
        }

        public void setLeaseDuration(Duration leaseDuration) {
            this.leaseDuration = leaseDuration;
        }

        public Duration getLookahead() {
            return lookahead;
        }

        public void setLookahead(Duration lookahead) {
            this.lookahead = lookahead;
        }

        public Duration getShutdownGrace() {
            return shutdownGrace;
        }

        public void setShutdownGrace(Duration shutdownGrace) {
            this.shutdownGrace = shutdownGrace;
        }

        public Duration getPurgeInterval() {
            return purgeInterval;
        }

        public void setPurgeInterval(Duration purgeInterval) {
            this.purgeInterval = purgeInterval;
        }

        public Duration getMaxIdleSleep() {
            return maxIdleSleep;
        }

        public void setMaxIdleSleep(Duration maxIdleSleep) {
            this.maxIdleSleep = maxIdleSleep;
        }
    }

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getRedisUrl() {
        return redisUrl;
    }

    public void setRedisUrl(String redisUrl) {
        this.redisUrl = redisUrl;
    }

    public Boolean getCluster() {
        return cluster;
    }

    public void setCluster(Boolean cluster) {
        this.cluster = cluster;
    }

    public String getSslBundle() {
        return sslBundle;
    }

    public void setSslBundle(String sslBundle) {
        this.sslBundle = sslBundle;
    }

    public String getPrefix() {
        return prefix;
    }

    public void setPrefix(String prefix) {
        this.prefix = prefix;
    }

    public Duration getTimeout() {
        return timeout;
    }

    public void setTimeout(Duration timeout) {
        this.timeout = timeout;
    }

    public DataSize getMaxPayloadSize() {
        return maxPayloadSize;
    }

    public void setMaxPayloadSize(DataSize maxPayloadSize) {
        this.maxPayloadSize = maxPayloadSize;
    }

    public Duration getDoneRetention() {
        return doneRetention;
    }

    public void setDoneRetention(Duration doneRetention) {
        this.doneRetention = doneRetention;
    }

    public Duration getDeadRetention() {
        return deadRetention;
    }

    public void setDeadRetention(Duration deadRetention) {
        this.deadRetention = deadRetention;
    }

    public boolean isAllowEvictingMemoryPolicy() {
        return allowEvictingMemoryPolicy;
    }

    public void setAllowEvictingMemoryPolicy(boolean allowEvictingMemoryPolicy) {
        this.allowEvictingMemoryPolicy = allowEvictingMemoryPolicy;
    }

    public Map<String, DelayqQueueProperties> getQueues() {
        return queues;
    }

    public Map<String, DelayqScheduleProperties> getSchedules() {
        return schedules;
    }

    public ScheduleRemoval getScheduleRemoval() {
        return scheduleRemoval;
    }

    public void setScheduleRemoval(ScheduleRemoval scheduleRemoval) {
        this.scheduleRemoval = scheduleRemoval;
    }

    public boolean isRequireRedisAtStartup() {
        return requireRedisAtStartup;
    }

    public void setRequireRedisAtStartup(boolean requireRedisAtStartup) {
        this.requireRedisAtStartup = requireRedisAtStartup;
    }

    public Duration getReconnectDelay() {
        return reconnectDelay;
    }

    public void setReconnectDelay(Duration reconnectDelay) {
        this.reconnectDelay = reconnectDelay;
    }

    public DelayqProducerProperties getProducer() {
        return producer;
    }

    public Retry getRetry() {
        return retry;
    }

    public Worker getWorker() {
        return worker;
    }
}
