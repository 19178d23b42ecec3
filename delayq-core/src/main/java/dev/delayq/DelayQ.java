package dev.delayq;

import dev.delayq.internal.ClientSettings;
import dev.delayq.internal.ServerChecks;
import dev.delayq.internal.base.Validation;
import dev.delayq.internal.queue.QueueDirectory;
import dev.delayq.internal.redis.RedisBackend;
import dev.delayq.internal.trace.JobTracing;
import dev.delayq.internal.trace.OtelTracing;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

/**
 * The delayq client: one connection to Redis shared by every {@link JobQueue} and worker made from it.
 * Thread-safe; create one per application and close it at shutdown.
 *
 * <pre>{@code
 * try (DelayQ dq = DelayQ.builder().redis("redis://localhost:6379").build()) {
 *     JobQueue orders = dq.queue("orders");
 *     orders.enqueue(Job.builder().id("order-731:timeout").payload("731").delay(Duration.ofMinutes(30)).build());
 * }
 * }</pre>
 *
 * <p>On connect the client checks the server's {@code maxmemory-policy}: any policy that evicts keys can
 * silently lose jobs, so it is refused unless {@link Builder#allowEvictingMemoryPolicy(boolean)} is set.
 */
public final class DelayQ implements AutoCloseable {
    private final RedisBackend redis;
    private final ClientSettings settings;
    private final QueueDirectory directory;

    private DelayQ(RedisBackend redis, ClientSettings settings) {
        this.redis = redis;
        this.settings = settings;
        this.directory = new QueueDirectory(redis, settings);
    }

    /** Connects to {@code redisUri} with default settings. */
    public static DelayQ connect(String redisUri) {
        return builder().redis(redisUri).build();
    }

    /** Connects to {@code redisUri} with key prefix {@code prefix} and default settings otherwise. */
    public static DelayQ connect(String redisUri, String prefix) {
        return builder().redis(redisUri).prefix(prefix).build();
    }

    /** A builder with the defaults: redis://127.0.0.1:6379, prefix {@code dq}, timeout 10 s. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The queue named {@code name}: 1-128 characters from {@code A-Z a-z 0-9 . _ - :}. It has the partitions
     * recorded in Redis for it, or one when none are recorded (see {@link #queue(String, int)}).
     *
     * @throws IllegalArgumentException when the name is invalid
     */
    public JobQueue queue(String name) {
        return queue(name, 0);
    }

    /**
     * The queue named {@code name}, split into {@code partitions} partitions (1 to 256): P independent sets of
     * keys {@code {<name>#0}} ... {@code {<name>#P-1}}, which a Redis Cluster spreads over its masters so that one
     * hot queue uses all of them. Jobs are routed to a partition by their dedupe key, else their id; workers
     * claim from all partitions; every other operation sees the queue as one.
     *
     * <p>The count is recorded in Redis the first time ({@code <prefix>:{<name>}:config}), so producers and
     * workers agree; a queue's partition count cannot change. {@code partitions = 0} means "as recorded, else 1".
     *
     * @throws IllegalArgumentException when the name or count is invalid, or the count differs from the recorded one
     */
    public JobQueue queue(String name, int partitions) {
        Validation.queueName(name);
        Validation.range("partitions", partitions, 0, Bounds.MAX_PARTITIONS);
        return directory.queue(name, partitions);
    }

    /**
     * The queue named {@code name}, as {@link #queue(String, int)}, recorded in the prefix's registry now instead of at
     * its first enqueue, so that {@link #queues()} lists it at once: for tools that refuse to change a queue they do not
     * know (a typo in a name would otherwise pause or limit a queue nobody uses, and a queue created later under that
     * name would start paused), such as the command line's {@code pause --create}. Recording a queue that is recorded
     * already changes nothing.
     *
     * @throws IllegalArgumentException when the name or count is invalid, or the count differs from the recorded one
     */
    public JobQueue createQueue(String name, int partitions) {
        JobQueue q = queue(name, partitions);
        directory.register(name);
        return q;
    }

    /**
     * The operator's view of the queue named {@code name} ({@code queue(name).inspector()}): list, stats, history,
     * retry, purge, check, pause, limits, events.
     *
     * @throws IllegalArgumentException when the name is invalid
     */
    public QueueInspector inspector(String name) {
        return queue(name).inspector();
    }

    /**
     * The stats of each of {@code queues}, as {@link QueueInspector#statsAsync()} answers them, read in few requests
     * however many queues: every partition of every queue in {@code stats_many.lua} calls of at most 250 partitions,
     * all sent at once (2,001 queues: 9 calls on a single node; on a Redis Cluster at least one call per slot touched).
     * One future per queue, by name in the order given: a queue whose keys cannot be read (a key of a type delayq does
     * not write, a total that is not a number) fails its own future only; Redis unreachable or too slow fails them all.
     *
     * @throws IllegalArgumentException when a name is invalid
     */
    public java.util.Map<String, java.util.concurrent.CompletableFuture<QueueStats>> statsAsync(List<String> queues) {
        queues.forEach(Validation::queueName);
        return dev.delayq.internal.queue.ManyStats.statsAsync(queues.stream().map(q -> directory.queue(q, 0)).toList());
    }

    /** The names of the queues that have had jobs enqueued under this prefix (or were created), sorted. */
    public List<String> queues() {
        return directory.names();
    }

    /** The first part of every key name of this client. */
    public String prefix() {
        return settings.prefix();
    }

    /** The largest payload this client accepts, in bytes. */
    public int maxPayloadBytes() {
        return settings.maxPayloadBytes();
    }

    /** The server, as {@code redis://host:port} (without credentials). */
    public String server() {
        return redis.server();
    }

    /**
     * The Redis server's clock ({@code TIME}), the one time base of every queue: due times, leases and
     * delays are all measured on it.
     */
    public java.time.Instant serverTime() {
        long micros = redis.timeMicros();
        return java.time.Instant.ofEpochSecond(micros / 1_000_000L, (micros % 1_000_000L) * 1000L);
    }

    /** Facts about the server (version, mode, memory, clients), read now from {@code INFO}. */
    public ServerInfo serverInfo() {
        java.util.Map<String, String> info = redis.info("all");
        return new ServerInfo(redis.server(), redis.mode(), info.getOrDefault("redis_version", "unknown"),
                longOf(info.get("used_memory")), longOf(info.get("maxmemory")), longOf(info.get("connected_clients")),
                longOf(info.get("uptime_in_seconds")));
    }

    private static long longOf(String value) {
        try {
            return value == null ? 0 : Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** The Redis server's version, e.g. {@code 7.0.15}. */
    public String serverVersion() {
        return redis.info("server").getOrDefault("redis_version", "unknown");
    }

    /**
     * Deletes every key under this client's prefix: all its queues, jobs, dedupe keys and the queue registry.
     * For throw-away prefixes (demos, benchmarks, tests); returns how many keys were deleted.
     */
    public long deleteAll() {
        // "<prefix>:{*" and not "<prefix>:*": prefix dq must not take dq:staging's keys along (prefixes have no glob
        // characters, and every queue key starts with "<prefix>:{").
        long n = redis.deleteMatching(settings.prefix() + ":{*");
        return n + redis.deleteMatching(settings.prefix() + ":queues");
    }

    /**
     * Closes the workers built on this client's queues that are still running (gracefully: running jobs finish within
     * their shutdown grace, the rest are handed back), then the connections.
     */
    @Override
    public void close() {
        directory.lifecycle().closeAll();
        redis.close();
    }

    /** Builder of a {@link DelayQ}; every setting is validated by {@link #build()}. */
    public static final class Builder {
        private static final Duration MAX_RECONNECT_DELAY = Duration.ofMinutes(5);
        private String uri = "redis://127.0.0.1:6379";
        private String prefix = "dq";
        private Duration timeout = Duration.ofSeconds(10);
        private Duration reconnectDelay;
        private int maxPayloadBytes = Bounds.DEFAULT_MAX_PAYLOAD;
        private Duration doneRetention = Duration.ofHours(1);
        private Duration deadRetention = Duration.ofDays(7);
        private RetryPolicy retryPolicy = RetryPolicy.defaults();
        private boolean allowEviction;
        private Clock clock = Clock.systemUTC();
        private String clientName = "delayq";
        private boolean cluster;
        private Durability durability = Durability.none();
        private java.nio.file.Path tlsTrust;
        private String username;
        private char[] password;
        private JobTracing tracing = JobTracing.OFF;
        private ProducerMetrics producerMetrics = ProducerMetrics.NONE;

        private Builder() {
        }

        /** The server: {@code redis://[user:password@]host:port[/db]}, or {@code rediss://} for TLS. */
        public Builder redis(String uri) {
            this.uri = uri;
            return this;
        }

        /** First part of every key name (default {@code dq}); 1-64 characters from {@code A-Z a-z 0-9 . _ - :}. */
        public Builder prefix(String prefix) {
            this.prefix = prefix;
            return this;
        }

        /**
         * Connect to a Redis Cluster: {@code redis(uri)} names any node (the others are discovered). Lettuce's
         * cluster client follows topology changes (periodic and adaptive refresh) and failovers by itself.
         */
        public Builder cluster(boolean cluster) {
            this.cluster = cluster;
            return this;
        }

        /**
         * How durable an enqueue must be before it returns (default {@link Durability#none()}): e.g.
         * {@code Durability.replicas(1, Duration.ofSeconds(1))} waits until a replica has every job.
         */
        public Builder durability(Durability durability) {
            this.durability = durability;
            return this;
        }

        /**
         * The ACL user name, overriding one given in the URI; needs {@link #password(CharSequence)} too.
         */
        public Builder username(String username) {
            this.username = username;
            return this;
        }

        /**
         * The password, overriding one given in the URI: read it from a file or a secret store instead of writing it
         * into a URI that logs and process listings may show.
         */
        public Builder password(CharSequence password) {
            this.password = password == null ? null : password.toString().toCharArray();
            return this;
        }

        /**
         * For {@code rediss://} servers whose certificate a private CA signed: trust the CA certificates in this
         * PEM file (default: the JVM's trust store).
         */
        public Builder tlsTrustedCertificates(java.nio.file.Path pemFile) {
            this.tlsTrust = pemFile;
            return this;
        }

        /**
         * The longest wait between attempts to reconnect after a connection to Redis is lost (default 30 s, as
         * Lettuce's: its waits double from 1 ms up to this bound). Redis back after an outage of 10 s is reconnected
         * within this bound of its return (with the default, about 6 s later); a lower bound costs one connection
         * attempt per bound while Redis is down. From 1 ms to 5 minutes.
         */
        public Builder reconnectDelay(Duration maxDelay) {
            this.reconnectDelay = maxDelay;
            return this;
        }

        /** Command and connect timeout (default 10 s). */
        public Builder timeout(Duration timeout) {
            this.timeout = timeout;
            return this;
        }

        /** Largest payload accepted (default {@link Bounds#DEFAULT_MAX_PAYLOAD}, 256 KiB; at most 256 MiB). */
        public Builder maxPayloadBytes(int bytes) {
            this.maxPayloadBytes = bytes;
            return this;
        }

        /** How long completed jobs are kept for inspection and id de-duplication (default 1 h; 0 = not kept). */
        public Builder doneRetention(Duration retention) {
            this.doneRetention = retention;
            return this;
        }

        /** How long dead jobs are kept (default 7 days). */
        public Builder deadRetention(Duration retention) {
            this.deadRetention = retention;
            return this;
        }

        /** Default retry policy for claims, failures and recoveries made through this client. */
        public Builder retryPolicy(RetryPolicy policy) {
            this.retryPolicy = policy;
            return this;
        }

        /** Accept a server whose {@code maxmemory-policy} evicts keys (jobs may then be lost). */
        public Builder allowEvictingMemoryPolicy(boolean allow) {
            this.allowEviction = allow;
            return this;
        }

        /** The client's clock (default UTC system clock); queue logic never uses it as "now". */
        public Builder clock(Clock clock) {
            this.clock = clock;
            return this;
        }

        /**
         * Where the enqueues of this client's queues report what they did (default {@link ProducerMetrics#NONE}, which
         * costs nothing): e.g. {@code new MicrometerProducerMetrics(registry)} for {@code delayq.jobs.enqueued},
         * {@code delayq.jobs.duplicates}, {@code delayq.enqueue.errors} and {@code delayq.enqueue.latency} by queue.
         */
        public Builder producerMetrics(ProducerMetrics metrics) {
            this.producerMetrics = metrics;
            return this;
        }

        /** The connection name shown by {@code CLIENT LIST} (default {@code delayq}). */
        public Builder clientName(String name) {
            this.clientName = name;
            return this;
        }

        /**
         * Traces with OpenTelemetry (the optional dependency {@code io.opentelemetry:opentelemetry-api}; default: no
         * spans, and no OpenTelemetry class is loaded): every enqueue of this client's queues makes a PRODUCER span
         * {@code send <queue>} whose context the jobs carry, and every attempt of a worker built on them runs in a
         * CONSUMER span {@code process <queue>}, a child of that context, current while the handler runs
         * (docs/tracing.md).
         *
         * @throws NullPointerException when {@code openTelemetry} is null
         */
        public Builder openTelemetry(io.opentelemetry.api.OpenTelemetry openTelemetry) {
            this.tracing = OtelTracing.of(openTelemetry);
            return this;
        }

        /**
         * Validates the settings, connects and checks the server.
         *
         * @throws IllegalArgumentException        naming an invalid setting
         * @throws DelayQConnectionException       when Redis cannot be reached or refuses the credentials
         * @throws DelayQConfigurationException    when the server evicts keys and that was not allowed
         */
        public DelayQ build() {
            Validation.prefix(prefix);
            Validation.positive("timeout", timeout);
            if (reconnectDelay != null) {
                Validation.atMost("reconnect delay", Validation.positive("reconnect delay", reconnectDelay), MAX_RECONNECT_DELAY);
            }
            Validation.range("max payload bytes", maxPayloadBytes, 0, Bounds.MAX_PAYLOAD_LIMIT);
            Validation.delay("done retention", doneRetention);
            Validation.delay("dead retention", deadRetention);
            if (retryPolicy == null || clock == null || uri == null || durability == null || producerMetrics == null) {
                throw new IllegalArgumentException("redis URI, retry policy, clock, durability and producer metrics must "
                        + "not be null (ProducerMetrics.NONE reports nowhere)");
            }
            if (username != null && password == null) {
                throw new IllegalArgumentException("username '" + username + "' is set without a password: set password(...) too");
            }
            if (tlsTrust != null && !java.nio.file.Files.isReadable(tlsTrust)) {
                throw new IllegalArgumentException("TLS trusted certificates file " + tlsTrust + " cannot be read");
            }
            RedisBackend redis = RedisBackend.connect(uri, username, password, timeout, clientName, cluster, tlsTrust,
                    reconnectDelay);
            try {
                redis.loadScripts();
                ServerChecks.verify(redis, durability, allowEviction);
            } catch (RuntimeException e) {
                redis.close();
                throw e;
            }
            return new DelayQ(redis, new ClientSettings(prefix, maxPayloadBytes, doneRetention, deadRetention, retryPolicy, clock,
                    durability, tracing, producerMetrics));
        }
    }

    /** Internal: the backend, for the worker runtime in this module. */
    RedisBackend backend() {
        return redis;
    }
}
