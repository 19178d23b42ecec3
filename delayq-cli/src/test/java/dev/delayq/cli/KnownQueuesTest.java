package dev.delayq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.testkit.RedisExtension;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A queue name that is not in the prefix's registry is warned about on stderr; the command still runs. */
class KnownQueuesTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    private Cli cli;

    @BeforeEach
    void connect() {
        cli = new Cli(REDIS.uri(), REDIS.prefix());
    }

    private String warning(String queue, String known, String similar) {
        return "delayq: warning: queue '" + queue + "' is not known under prefix '" + REDIS.prefix() + "' (" + known + ")"
                + (similar == null ? "" : "; did you mean '" + similar + "'?");
    }

    @Test
    void operatorCommandsWarnAboutAnUnknownQueueAndStillRun() {
        Cli.Result none = cli.run("stats", "orders");
        assertThat(none.exit()).isZero();
        assertThat(none.err()).isEqualTo(warning("orders", "no queue has had jobs yet", null) + "\n");

        assertThat(cli.run("enqueue", "orders", "--id", "a").err()).isEmpty(); // a new queue: no similar name, no warning
        Cli.Result typo = cli.run("stats", "ordres");
        assertThat(typo.exit()).isZero();
        assertThat(typo.out()).contains("scheduled   0");
        assertThat(typo.err()).isEqualTo(warning("ordres", "known: orders", "orders") + "\n");

        Cli.Result check = cli.run("check", "Orders");
        assertThat(check.exit()).isZero();
        assertThat(check.err()).isEqualTo(warning("Orders", "known: orders", "orders") + "\n");

        Cli.Result known = cli.run("stats", "orders");
        assertThat(known.err()).isEmpty();
    }

    @Test
    void enqueueWarnsOnlyWhenAKnownNameIsClose() {
        String q = "invoices-" + System.nanoTime();
        assertThat(cli.run("enqueue", q, "--id", "a").err()).isEmpty();
        Cli.Result close = cli.run("enqueue", q.replace("invoices", "invoice"), "--id", "b");
        assertThat(close.exit()).isZero();
        assertThat(close.out()).isEqualTo("created b\n");
        assertThat(close.err()).startsWith("delayq: warning: queue '" + q.replace("invoices", "invoice") + "' is not known")
                .endsWith("; did you mean '" + q + "'?\n");
    }

    @Test
    void longListsAreCut() {
        for (int i = 0; i < 7; i++) {
            assertThat(cli.run("enqueue", "bulk-" + i + "x", "--id", "a").exit()).isZero();
        }
        Cli.Result r = cli.run("stats", "zzz");
        assertThat(r.err()).contains("(known: ").contains(", ... ").contains(" in all)");
        assertThat(KnownQueues.similar("ordrs", List.of("orders", "mail", "order-log"))).containsExactly("orders");
        assertThat(KnownQueues.similar("jbos", List.of("jobs", "bob"))).containsExactly("jobs");
        assertThat(KnownQueues.similar("x", List.of("orders"))).isEmpty();
    }
}
