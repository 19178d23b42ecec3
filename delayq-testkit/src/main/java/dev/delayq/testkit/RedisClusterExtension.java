package dev.delayq.testkit;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * JUnit 5 extension that gives a test class a private Redis Cluster (3 masters, no replicas, shared by
 * the whole test JVM and stopped at its end) and every test a fresh key prefix.
 */
public final class RedisClusterExtension implements BeforeAllCallback, BeforeEachCallback {
    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(RedisClusterExtension.class);
    private static final AtomicLong PREFIXES = new AtomicLong();

    private volatile RedisCluster cluster;
    private volatile String prefix;

    @Override
    public void beforeAll(ExtensionContext context) {
        cluster = context.getRoot().getStore(NS)
                .getOrComputeIfAbsent("shared", k -> RedisCluster.start(3, 0, 5000), RedisCluster.class);
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        prefix = "c" + PREFIXES.incrementAndGet() + "x" + Long.toString(System.nanoTime() & 0xffffff, 36);
    }

    /** The cluster. */
    public RedisCluster cluster() {
        return cluster;
    }

    /** A key prefix no other test in this JVM uses; new for every test method. */
    public String prefix() {
        return prefix;
    }
}
