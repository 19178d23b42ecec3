package dev.delayq.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.outbox.Outbox;
import dev.delayq.testkit.RedisExtension;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * When the outbox is configured and when not: off by default (the after-commit enqueue stays), on only with the
 * module, spring-jdbc and a DataSource (else the start-up fails in one line naming what is missing), its tables
 * created as {@code initialize-schema} says, every setting checked with its property's name.
 */
class DelayqOutboxConfigurationTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DelayqAutoConfiguration.class, DelayqOutboxAutoConfiguration.class,
                    TestBootLine.JACKSON_AUTO_CONFIGURATION))
            .withPropertyValues("delayq.redis-url=" + REDIS.uri(), "delayq.prefix=" + REDIS.prefix(),
                    "delayq.worker.enabled=false");

    private static boolean tableExists(DataSource ds, String table) {
        return new JdbcTemplate(ds).queryForObject("SELECT count(*) FROM information_schema.tables WHERE table_name = ?",
                Long.class, table) == 1;
    }

    @Test
    void offByDefaultTheRelayIsSkippedAndTheEnqueueWaitsForTheCommitAsBefore() {
        DataSource ds = OutboxPostgres.newDatabase();
        runner.withBean(DataSource.class, () -> ds).run(ctx -> {
            assertThat(ctx).hasNotFailed().doesNotHaveBean(DelayqOutboxRelay.class).doesNotHaveBean(Outbox.class)
                    .doesNotHaveBean(DelayqOutboxWriter.class);
            assertThat(tableExists(ds, "delayq_outbox")).isFalse();
            DelayqTemplate template = ctx.getBean(DelayqTemplate.class);
            new TransactionTemplate(new DataSourceTransactionManager(ds)).executeWithoutResult(s -> {
                template.enqueue("off", "after-commit", "x", Duration.ofHours(1));
                assertThat(template.queue("off").get("after-commit")).as("before the commit").isEmpty();
            });
            assertThat(template.queue("off").get("after-commit")).as("after the commit").isPresent();
        });
    }

    @Test
    void enabledWithoutADataSourceTheStartFailsInOneLine() {
        runner.withPropertyValues("delayq.outbox.enabled=true").run(ctx -> {
            assertThat(ctx).hasFailed();
            assertThat(ctx.getStartupFailure()).rootCause().hasMessage("delayq.outbox.enabled=true needs a DataSource "
                    + "bean (one, or one marked @Primary): add spring-boot-starter-jdbc and spring.datasource.url, or "
                    + "set delayq.outbox.enabled=false");
        });
    }

    @Test
    void withoutTheModuleOrSpringJdbcTheStarterWorksAndEnablingTheOutboxSaysWhatIsMissing() {
        for (FilteredClassLoader without : new FilteredClassLoader[] {
                new FilteredClassLoader(Outbox.class), new FilteredClassLoader(DataSourceUtils.class)}) {
            runner.withClassLoader(without).run(ctx -> {
                assertThat(ctx).hasNotFailed().doesNotHaveBean(DelayqOutboxRelay.class);
                DelayqTemplate template = ctx.getBean(DelayqTemplate.class);
                template.enqueue("plain", "no-outbox", "x", Duration.ofHours(1));
                assertThat(template.queue("plain").get("no-outbox")).isPresent();
            });
            runner.withClassLoader(without).withPropertyValues("delayq.outbox.enabled=true").run(ctx -> {
                assertThat(ctx).hasFailed();
                assertThat(ctx.getStartupFailure()).rootCause()
                        .hasMessageContaining("delayq.outbox.enabled=true needs delayq-outbox and spring-jdbc");
            });
        }
    }

    @Test
    void initializeSchemaCreatesTheTablesOnceAndNeverLeavesThemToTheMigrations() {
        DataSource ds = OutboxPostgres.newDatabase();
        ApplicationContextRunner enabled = runner.withBean(DataSource.class, () -> ds)
                .withPropertyValues("delayq.outbox.enabled=true", "delayq.outbox.table=orders_outbox");
        enabled.withPropertyValues("delayq.outbox.initialize-schema=never").run(ctx -> {
            assertThat(ctx).hasNotFailed().hasSingleBean(DelayqOutboxRelay.class);
            assertThat(tableExists(ds, "orders_outbox")).isFalse();
        });
        enabled.run(ctx -> assertThat(tableExists(ds, "orders_outbox")).as("embedded, the default").isFalse());
        enabled.withPropertyValues("delayq.outbox.initialize-schema=always").run(ctx -> {
            assertThat(ctx).hasNotFailed();
            assertThat(tableExists(ds, "orders_outbox")).isTrue();
            assertThat(tableExists(ds, "orders_outbox_failed")).isTrue();
        });
        enabled.withPropertyValues("delayq.outbox.initialize-schema=always").run(ctx ->
                assertThat(ctx).as("the tables already there").hasNotFailed());
    }

    @Test
    void theHealthContributorIsThereWithActuatorUnlessTurnedOff() {
        DataSource ds = OutboxPostgres.newDatabase();
        ApplicationContextRunner enabled = runner.withBean(DataSource.class, () -> ds)
                .withPropertyValues("delayq.outbox.enabled=true");
        enabled.run(ctx -> assertThat(ctx).hasBean("delayqOutboxHealthIndicator"));
        enabled.withPropertyValues("management.health.delayq-outbox.enabled=false")
                .run(ctx -> assertThat(ctx).hasNotFailed().doesNotHaveBean("delayqOutboxHealthIndicator"));
    }

    @Test
    void everySettingIsCheckedWithItsPropertysName() {
        DataSource ds = OutboxPostgres.newDatabase();
        ApplicationContextRunner enabled = runner.withBean(DataSource.class, () -> ds)
                .withPropertyValues("delayq.outbox.enabled=true");
        enabled.withPropertyValues("delayq.outbox.batch-size=0").run(ctx -> assertThat(ctx.getStartupFailure())
                .rootCause().hasMessage("delayq.outbox.batch-size 0 is invalid: use 1 to 10000 rows"));
        enabled.withPropertyValues("delayq.outbox.poll-interval=1ms").run(ctx -> assertThat(ctx.getStartupFailure())
                .rootCause().hasMessage("delayq.outbox.poll-interval PT0.001S is invalid: use 10ms to 1h"));
        enabled.withPropertyValues("delayq.outbox.table=1bad").run(ctx -> assertThat(ctx.getStartupFailure())
                .rootCause().hasMessageStartingWith("delayq.outbox.table: outbox table '1bad' is invalid"));
        enabled.withPropertyValues("delayq.outbox.down-after=0s").run(ctx -> assertThat(ctx.getStartupFailure())
                .rootCause().hasMessageStartingWith("delayq.outbox.down-after PT0S is invalid"));
    }
}
