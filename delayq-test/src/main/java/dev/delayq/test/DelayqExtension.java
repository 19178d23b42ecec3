package dev.delayq.test;

import dev.delayq.DelayQ;
import dev.delayq.testkit.RedisServer;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit 5: a private {@code redis-server} for the test class (on a free loopback port, stopped after the class; the
 * one on {@code PATH} when it is 6.2 or newer, else one bundled with delayq's test kit), and for each test a
 * {@link DelayQ} connected to it under a key prefix of that test alone, with {@link DelayqTestJobs} on it.
 *
 * <pre>{@code
 * @ExtendWith(DelayqExtension.class)
 * class PaymentTimeoutTest {
 *     @Test
 *     void anUnpaidOrderIsCancelled(DelayQ delayQ, DelayqTestJobs jobs) { ... }
 * }
 * }</pre>
 *
 * <p>Test methods (and {@code @BeforeEach} / {@code @AfterEach} methods) may take a {@link DelayQ}, a
 * {@link DelayqTestJobs} and the {@link RedisServer}. Test methods of one class run one at a time (the client is the
 * current test's). Or, as a field, {@code @RegisterExtension static final DelayqExtension DELAYQ =
 * DelayqExtension.create();} with {@link #delayQ()}, {@link #jobs()}, {@link #uri()} and {@link #prefix()}.
 */
public final class DelayqExtension implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback,
        ParameterResolver {
    private static final AtomicLong PREFIXES = new AtomicLong();

    private final Consumer<DelayQ.Builder> config;
    private volatile RedisServer server;
    private volatile DelayQ delayQ;
    private volatile String prefix;
    private volatile boolean serverPerTest;

    /** The extension with delayq's default client settings (for {@code @ExtendWith}). */
    public DelayqExtension() {
        this(b -> { });
    }

    private DelayqExtension(Consumer<DelayQ.Builder> config) {
        this.config = config;
    }

    /** The extension with delayq's default client settings. */
    public static DelayqExtension create() {
        return new DelayqExtension();
    }

    /** The extension, each test's client built with {@code config} too (its URI and prefix are the extension's). */
    public static DelayqExtension create(Consumer<DelayQ.Builder> config) {
        if (config == null) {
            throw new IllegalArgumentException("config must not be null");
        }
        return new DelayqExtension(config);
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        server = RedisServer.start();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (server != null) {
            server.close();
            server = null;
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        if (server == null) { // registered on an instance field: no beforeAll, a server for the test alone
            serverPerTest = true;
            server = RedisServer.start();
        }
        prefix = "test" + PREFIXES.incrementAndGet() + "x" + Long.toString(System.nanoTime() & 0xffffff, 36);
        DelayQ.Builder b = DelayQ.builder();
        config.accept(b);
        delayQ = b.redis(server.uri()).prefix(prefix).build();
    }

    @Override
    public void afterEach(ExtensionContext context) {
        DelayQ d = delayQ;
        delayQ = null;
        if (d != null) {
            d.close();
        }
        if (serverPerTest) {
            afterAll(context);
        }
    }

    /** The server of this test class. */
    public RedisServer server() {
        return server;
    }

    /** {@code redis://127.0.0.1:<port>} of the server. */
    public String uri() {
        return server.uri();
    }

    /** The key prefix of the current test (no other test in this JVM uses it). */
    public String prefix() {
        return prefix;
    }

    /** The current test's client (closed after the test). */
    public DelayQ delayQ() {
        return delayQ;
    }

    /** Helpers on the current test's client. */
    public DelayqTestJobs jobs() {
        return new DelayqTestJobs(this::delayQ);
    }

    @Override
    public boolean supportsParameter(ParameterContext pc, ExtensionContext ec) {
        Class<?> type = pc.getParameter().getType();
        return type == DelayQ.class || type == DelayqTestJobs.class || type == RedisServer.class;
    }

    @Override
    public Object resolveParameter(ParameterContext pc, ExtensionContext ec) {
        Class<?> type = pc.getParameter().getType();
        if (type == RedisServer.class) {
            return server;
        }
        if (delayQ == null) {
            throw new ParameterResolutionException("a " + type.getSimpleName() + " is there for test methods only "
                    + "(each test has its own), not for " + pc.getDeclaringExecutable());
        }
        return type == DelayQ.class ? delayQ : jobs();
    }
}
