package dev.delayq.testkit;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit 5 extension that gives a test class a private Redis and every test a fresh key prefix.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final RedisExtension redis = RedisExtension.shared();
 *
 * @Test
 * void works() {
 *     connect(redis.uri(), redis.prefix()); // prefix is new for every test
 * }
 * }</pre>
 *
 * <p>{@link #shared()} uses one server for the whole test JVM (tests are isolated by prefix);
 * {@link #dedicated(Consumer)} starts one for the class alone, with its own configuration, for tests that
 * restart, crash or reconfigure it. A {@link RedisServer} test-method parameter is resolved to the server.
 */
public final class RedisExtension implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, ParameterResolver {
    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(RedisExtension.class);
    private static final AtomicLong PREFIXES = new AtomicLong();

    private final Consumer<RedisServer.Builder> dedicatedConfig;
    private volatile RedisServer server;
    private volatile String prefix;

    private RedisExtension(Consumer<RedisServer.Builder> dedicatedConfig) {
        this.dedicatedConfig = dedicatedConfig;
    }

    /** One server for the whole JVM, a fresh prefix per test. */
    public static RedisExtension shared() {
        return new RedisExtension(null);
    }

    /** A server for this test class alone, configured by {@code config}. */
    public static RedisExtension dedicated(Consumer<RedisServer.Builder> config) {
        return new RedisExtension(config);
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        if (dedicatedConfig == null) {
            server = context.getRoot().getStore(NS)
                    .getOrComputeIfAbsent("shared", k -> RedisServer.start(), RedisServer.class);
        } else {
            RedisServer.Builder b = RedisServer.builder();
            dedicatedConfig.accept(b);
            server = b.start();
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (dedicatedConfig != null && server != null) {
            server.close();
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        prefix = "t" + PREFIXES.incrementAndGet() + "x" + Long.toString(System.nanoTime() & 0xffffff, 36);
    }

    /** The server of this test class. */
    public RedisServer server() {
        return server;
    }

    /** {@code redis://127.0.0.1:<port>} of the server. */
    public String uri() {
        return server.uri();
    }

    /** A key prefix no other test in this JVM uses; new for every test method. */
    public String prefix() {
        return prefix;
    }

    @Override
    public boolean supportsParameter(ParameterContext pc, ExtensionContext ec) {
        return pc.getParameter().getType() == RedisServer.class;
    }

    @Override
    public Object resolveParameter(ParameterContext pc, ExtensionContext ec) {
        return server;
    }
}
