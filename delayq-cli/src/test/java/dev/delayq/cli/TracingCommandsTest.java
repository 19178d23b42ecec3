package dev.delayq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.testkit.RedisExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command line joins traces: {@code enqueue} takes its parent from $TRACEPARENT/$TRACESTATE, and a real
 * {@code work --exec} run hands each command the attempt's context in TRACEPARENT. With an OTEL_* variable set the SDK
 * is on: the job carries the enqueue's span (a child of $TRACEPARENT) and the command gets the attempt's span (a child
 * of that); without, the contexts travel as they are.
 */
class TracingCommandsTest {
    static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
    static final String TP = "00-" + TRACE_ID + "-00f067aa0ba902b7-01";

    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    @TempDir
    Path dir;

    private Cli cli;

    @BeforeEach
    void connect() {
        cli = new Cli(REDIS.uri(), REDIS.prefix());
    }

    /** The environment a command of {@code work --exec} saw, read from the file it wrote. */
    private Map<String, String> commandEnv(String id) throws IOException {
        Map<String, String> env = new HashMap<>();
        for (String line : Files.readAllLines(dir.resolve(id + ".env"))) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                env.put(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        return env;
    }

    /** Runs the queue's one job with a command that writes its environment to DIR/ID.env. */
    private void work(Cli runner, String queue) {
        Cli.Result r = runner.run("work", queue, "--exec", "env > " + dir + "/$DELAYQ_JOB_ID.env", "--max-jobs", "1");
        assertThat(r.exit()).as(r.err()).isZero();
    }

    private String storedTraceparent(String queue, String id) {
        Cli.Result r = cli.run("job", queue, id, "--json");
        assertThat(r.exit()).as(r.err()).isZero();
        String out = r.out();
        int at = out.indexOf("\"traceparent\":\"");
        return at < 0 ? null : out.substring(at + 15, out.indexOf('"', at + 15));
    }

    @Test
    void untracedTheContextsTravelAsTheyAre() throws IOException {
        Cli.Result e = cli.env(Map.of("TRACEPARENT", TP, "TRACESTATE", "congo=t61rcWkgMzE")).run("enqueue", "plain", "--id", "a");
        assertThat(e.exit()).as(e.err()).isZero();
        assertThat(storedTraceparent("plain", "a")).isEqualTo(TP);
        assertThat(cli.run("job", "plain", "a", "--json").out()).contains("\"tracestate\":\"congo=t61rcWkgMzE\"");

        work(cli.env(Map.of()), "plain");
        Map<String, String> env = commandEnv("a");
        assertThat(env).containsEntry("TRACEPARENT", TP).containsEntry("TRACESTATE", "congo=t61rcWkgMzE");
    }

    /** The spans the console exporter logged (java.util.logging), as its lines: 'name' : traceId spanId KIND ... */
    private static final class ExportedSpans extends Handler {
        final List<String> lines = new CopyOnWriteArrayList<>();
        final Logger logger = Logger.getLogger("io.opentelemetry.exporter.logging.LoggingSpanExporter");

        ExportedSpans() {
            logger.addHandler(this);
        }

        @Override
        public void publish(LogRecord r) {
            lines.add(r.getMessage());
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
            logger.removeHandler(this);
        }
    }

    @Test
    void tracedTheJobCarriesTheEnqueuesSpanAndTheCommandTheAttempts() throws IOException {
        ExportedSpans exported = new ExportedSpans();
        try {
            traced(exported);
        } finally {
            exported.close();
        }
    }

    private void traced(ExportedSpans exported) throws IOException {
        // The console exporter: with none, the SDK makes no spans at all and the contexts pass through unchanged.
        Map<String, String> otel = Map.of("OTEL_TRACES_EXPORTER", "console");
        Map<String, String> withParent = new HashMap<>(otel);
        withParent.put("TRACEPARENT", TP);
        Cli.Result e = cli.env(withParent).run("enqueue", "traced", "--id", "t");
        assertThat(e.exit()).as(e.err()).isZero();
        String stored = storedTraceparent("traced", "t");
        assertThat(stored).as("the enqueue's span, a child of $TRACEPARENT").startsWith("00-" + TRACE_ID + "-").isNotEqualTo(TP);

        work(cli.env(otel), "traced");
        String passed = commandEnv("t").get("TRACEPARENT");
        assertThat(passed).as("the attempt's span: the producer's trace, a span of its own")
                .startsWith("00-" + TRACE_ID + "-").isNotEqualTo(stored).isNotEqualTo(TP);
        String producerSpan = stored.substring(36, 52);
        assertThat(exported.lines).as("the spans exported").anySatisfy(l -> assertThat(l)
                .startsWith("'send traced' : " + TRACE_ID + " " + producerSpan + " PRODUCER"));
        assertThat(exported.lines).anySatisfy(l -> assertThat(l)
                .startsWith("'process traced' : " + TRACE_ID + " " + passed.substring(36, 52) + " CONSUMER")
                .contains("delayq.attempt=1"));
    }

    @Test
    void aJobWithoutContextGivesItsCommandNoTraceparentAndABadOneIsRefused() throws IOException {
        assertThat(cli.env(Map.of()).run("enqueue", "bare", "--id", "b").exit()).isZero();
        assertThat(storedTraceparent("bare", "b")).isNull();
        work(cli.env(Map.of()), "bare");
        assertThat(commandEnv("b")).doesNotContainKeys("TRACEPARENT", "TRACESTATE");

        Cli.Result bad = cli.env(Map.of("TRACEPARENT", "00-xyz")).run("enqueue", "bare", "--id", "c");
        assertThat(bad.exit()).isEqualTo(2);
        assertThat(bad.err()).contains("$TRACEPARENT/$TRACESTATE: traceparent '00-xyz' is not a W3C trace context")
                .doesNotContain("\tat ");
        assertThat(cli.run("job", "bare", "c").exit()).as("nothing enqueued").isNotZero();
    }
}
