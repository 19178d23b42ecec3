package dev.delayq.spring;

import dev.delayq.outbox.Outbox;
import dev.delayq.outbox.OutboxMetrics;
import dev.delayq.outbox.OutboxRelay;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.NoneNestedConditions;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.util.unit.DataSize;

/**
 * The transactional outbox ({@code delayq-outbox}) in a Spring Boot application, with {@code delayq.outbox.enabled=true}:
 * an {@link Outbox} on the application's {@link DataSource} (its tables created at start-up as
 * {@code delayq.outbox.initialize-schema} says), the {@link DelayqOutboxWriter} through which {@link DelayqTemplate}
 * writes the jobs enqueued inside a transaction, the {@link DelayqOutboxRelay} that moves committed rows to Redis, and,
 * when the application has them, the relay's meters and the {@code delayqOutbox} health contributor. Enabled without
 * delayq-outbox and spring-jdbc on the class path, or without a DataSource bean, the start-up fails and says which.
 */
@AutoConfiguration(after = DelayqAutoConfiguration.class, afterName = {
        "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
        "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration"})
@ConditionalOnProperty(prefix = "delayq.outbox", name = "enabled", havingValue = "true")
@ConditionalOnBean(DelayqClient.class)
@EnableConfigurationProperties(DelayqOutboxProperties.class)
public class DelayqOutboxAutoConfiguration {
    /** The class-path needs, for a start-up failure that names them. */
    static final String OUTBOX_CLASS = "dev.delayq.outbox.Outbox";
    static final String JDBC_CLASS = "org.springframework.jdbc.datasource.DataSourceUtils";

    /** The outbox, its writer and relay: delayq-outbox and spring-jdbc are there. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {OUTBOX_CLASS, JDBC_CLASS})
    @Import(DelayqOutboxBootLine.class)
    static class Jdbc {
        /**
         * The outbox on the application's DataSource (its tables created first when {@code initialize-schema} says so);
         * payloads up to {@code delayq.max-payload-size}, as the relay's {@code DelayQ} accepts.
         */
        @Bean
        @ConditionalOnMissingBean
        Outbox delayqOutbox(DelayqOutboxProperties properties, ObjectProvider<DataSource> dataSource,
                            ObjectProvider<DelayqProperties> delayq) {
            check(properties);
            DataSize max = delayq.getIfAvailable(DelayqProperties::new).getMaxPayloadSize();
            Outbox outbox;
            try {
                outbox = Outbox.builder().table(properties.getTable()).notifyOnCommit(properties.isNotifyOnCommit())
                        .maxPayloadBytes((int) Math.min(Integer.MAX_VALUE, max.toBytes())).build();
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("delayq.outbox.table: " + e.getMessage()); // the whole story: one line
            }
            OutboxSchemaInitializer.initialize(dataSource(dataSource), outbox.table(), properties.getInitializeSchema());
            return outbox;
        }

        /** What {@link DelayqTemplate} writes through inside a transaction of the DataSource. */
        @Bean
        @ConditionalOnMissingBean
        DelayqOutboxWriter delayqOutboxWriter(Outbox outbox, ObjectProvider<DataSource> dataSource) {
            return new JdbcOutboxWriter(outbox, dataSource(dataSource));
        }

        /** The relay, started with the context and stopped before the DataSource and the DelayQ close. */
        @Bean
        @ConditionalOnMissingBean
        DelayqOutboxRelay delayqOutboxRelay(DelayqClient client, ObjectProvider<DataSource> dataSource, Outbox outbox,
                                            DelayqOutboxProperties properties,
                                            ObjectProvider<OutboxRelayStartListener> listeners) {
            return new DelayqOutboxRelay(client, dataSource(dataSource), outbox, properties,
                    listeners.orderedStream().map(l -> (Consumer<OutboxRelay>) l::started).toList());
        }

        /** What the dashboard inside the application shows of the outbox (a type it can see without delayq-outbox). */
        @Bean
        DelayqOutboxDashboardStatus delayqOutboxDashboardStatus(DelayqOutboxRelay relay) {
            return new DelayqOutboxDashboardStatus(relay::dashboardStatus);
        }
    }

    /** The relay's meters ({@link OutboxMetrics}) in the application's {@link MeterRegistry}. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {OUTBOX_CLASS, JDBC_CLASS, "io.micrometer.core.instrument.MeterRegistry"})
    @ConditionalOnBean(MeterRegistry.class)
    static class Metrics {
        @Bean
        OutboxRelayStartListener delayqOutboxMeters(MeterRegistry registry) {
            return relay -> new OutboxMetrics(relay).bindTo(registry);
        }
    }

    /** Enabled without the module or spring-jdbc: the start-up fails, naming what is missing. */
    @Configuration(proxyBeanMethods = false)
    @Conditional(MissingClasses.EitherMissing.class)
    static class MissingClasses {
        /** Matches when delayq-outbox or spring-jdbc (or both) is missing. */
        static class EitherMissing extends NoneNestedConditions {
            EitherMissing() {
                super(ConfigurationPhase.REGISTER_BEAN);
            }

            @ConditionalOnClass(name = {OUTBOX_CLASS, JDBC_CLASS})
            static class BothPresent {
            }
        }

        @Bean
        Object delayqOutboxMissingClasses() {
            throw new IllegalStateException("delayq.outbox.enabled=true needs delayq-outbox and spring-jdbc on the class "
                    + "path (dev.delayq:delayq-outbox, and spring-boot-starter-jdbc or org.springframework:spring-jdbc)");
        }
    }

    /** What runs once the relay has started (its meters are bound so). */
    @FunctionalInterface
    interface OutboxRelayStartListener {
        void started(OutboxRelay relay);
    }

    /** The application's one DataSource (or its primary), or a start-up failure in one line. */
    static DataSource dataSource(ObjectProvider<DataSource> provider) {
        DataSource ds = provider.getIfUnique();
        if (ds == null) {
            throw new IllegalStateException("delayq.outbox.enabled=true needs a DataSource bean (one, or one marked "
                    + "@Primary): add spring-boot-starter-jdbc and spring.datasource.url, or set "
                    + "delayq.outbox.enabled=false");
        }
        return ds;
    }

    /** Every setting checked before anything is built, each message naming its property. */
    static void check(DelayqOutboxProperties p) {
        if (p.getBatchSize() < 1 || p.getBatchSize() > 10_000) {
            throw new IllegalArgumentException("delayq.outbox.batch-size " + p.getBatchSize() + " is invalid: use 1 to "
                    + "10000 rows");
        }
        Duration poll = p.getPollInterval();
        if (poll == null || poll.compareTo(Duration.ofMillis(10)) < 0 || poll.compareTo(Duration.ofHours(1)) > 0) {
            throw new IllegalArgumentException("delayq.outbox.poll-interval " + poll + " is invalid: use 10ms to 1h");
        }
        Duration down = p.getDownAfter();
        if (down == null || down.isNegative() || down.isZero()) {
            throw new IllegalArgumentException("delayq.outbox.down-after " + down + " is invalid: use a positive "
                    + "duration");
        }
        String name = p.getRelayName();
        if (name == null || name.isEmpty() || name.length() > 64 || name.chars().anyMatch(Character::isISOControl)) {
            throw new IllegalArgumentException("delayq.outbox.relay-name '" + name + "' is invalid: use 1-64 characters, "
                    + "no control characters");
        }
        if (p.getInitializeSchema() == null) {
            throw new IllegalArgumentException("delayq.outbox.initialize-schema must be always, embedded or never");
        }
    }
}
