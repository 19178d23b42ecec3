package dev.delayq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.testkit.RedisExtension;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A queue name that is not in the prefix's registry is warned about on stderr and the command still runs; a command that
 * changes a queue's settings (pause, resume, limit, events) refuses it instead and writes nothing, unless --create.
 */
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
    void settingCommandsRefuseAnUnknownQueueWriteNothingAndCreateItWithCreate() {
        assertThat(cli.run("enqueue", "orders", "--id", "a").exit()).isZero();
        String known = "delayq: queue 'ordrs' is not known under prefix '" + REDIS.prefix() + "' (known: orders); did you "
                + "mean 'orders'? ";
        String[][] refused = {
                {"pause", "ordrs"}, {"resume", "ordrs"}, {"limit", "ordrs", "--concurrency", "2"},
                {"limit", "ordrs", "--rate", "10/s"}, {"limit", "ordrs", "--clear"}, {"events", "ordrs", "--enable"},
                {"events", "ordrs", "--disable"}, {"limit", "ordrs"}, {"events", "ordrs"}, {"--json", "pause", "ordrs"}};
        for (String[] args : refused) {
            Cli.Result r = cli.run(args);
            assertThat(r.exit()).as(String.join(" ", args)).isEqualTo(Exit.USAGE);
            assertThat(r.out()).as(String.join(" ", args)).isEmpty();
            assertThat(r.err()).as(String.join(" ", args)).startsWith(known).hasLineCount(1);
        }
        assertThat(cli.run("pause", "ordrs").err()).isEqualTo(known + "Nothing was changed: --create creates the queue "
                + "and pauses it\n");
        assertThat(cli.run("limit", "ordrs", "--rate", "10/s").err()).isEqualTo(known + "Nothing was changed: --create "
                + "creates the queue and sets its limits\n");
        assertThat(cli.run("events", "ordrs", "--enable").err()).isEqualTo(known + "Nothing was changed: --create "
                + "creates the queue and turns its events on\n");
        assertThat(cli.run("limit", "ordrs").err()).isEqualTo(known + "A queue that does not exist has no limits to show "
                + "(--create creates it)\n");
        // Nothing at all was written for it: no setting, no partition count, no registry entry.
        assertThat(String.valueOf(REDIS.server().call("KEYS", REDIS.prefix() + ":*"))).doesNotContain("ordrs");
        assertThat(REDIS.server().call("SMEMBERS", REDIS.prefix() + ":queues")).asString().doesNotContain("ordrs");

        Cli.Result paused = cli.run("pause", "imports", "--create");
        assertThat(paused.exit()).as(paused.err()).isZero();
        assertThat(paused.out()).isEqualTo("paused imports\n");
        assertThat(paused.err()).isEmpty();
        Cli.Result limited = cli.run("limit", "reports", "--rate", "10/s", "--concurrency", "4", "--create");
        assertThat(limited.out()).isEqualTo("limits reports: rate 10/1s, concurrency 4\n");
        assertThat(cli.run("events", "audit", "--enable", "--create").exit()).isZero();
        assertThat(cli.run("resume", "imports").out()).isEqualTo("resumed imports\n"); // known now: no --create needed
        assertThat(cli.run("pause", "imports").out()).isEqualTo("paused imports\n");

        Cli.Result table = cli.run("queues");
        assertThat(table.exit()).as(table.err()).isZero();
        assertThat(table.lines().get(0).split(" +")).containsExactly("QUEUE", "SCHEDULED", "PROCESSING", "DONE", "DEAD",
                "PAUSED", "RATE", "CONCURRENCY", "WORKERS");
        assertThat(table.lines()).hasSize(5);
        assertThat(table.lines().get(1).split(" +")).containsExactly("audit", "0", "0", "0", "0", "no", "-", "-", "0");
        assertThat(table.lines().get(2).split(" +")).containsExactly("imports", "0", "0", "0", "0", "yes", "-", "-", "0");
        assertThat(table.lines().get(3).split(" +")).containsExactly("orders", "1", "0", "0", "0", "no", "-", "-", "0",
                "no", "workers");
        assertThat(table.lines().get(4).split(" +")).containsExactly("reports", "0", "0", "0", "0", "no", "10/1s", "4", "0");
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
