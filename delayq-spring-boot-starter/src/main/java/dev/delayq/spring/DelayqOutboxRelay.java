package dev.delayq.spring;

import dev.delayq.DelayQ;
import dev.delayq.outbox.Outbox;
import dev.delayq.outbox.OutboxRelay;
import dev.delayq.outbox.OutboxStatus;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.SmartLifecycle;

/**
 * The outbox's {@link OutboxRelay} in a Spring application: built and started when the context starts (or, with
 * {@code delayq.require-redis-at-startup=false}, when Redis is first reached), and closed on shutdown in phase
 * {@value #PHASE}: after the web server's graceful shutdown and the {@link DelayqWorkers} (requests still being served
 * commit rows that it relays), before the DataSource's pool and the {@link DelayQ} are closed (beans are destroyed
 * after every phase has stopped).
 */
public class DelayqOutboxRelay implements SmartLifecycle, DisposableBean {
    /** Below the web server's graceful shutdown ({@code DEFAULT_PHASE - 1024}) and its stop ({@code - 2048}). */
    public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;
    private static final Logger LOG = LoggerFactory.getLogger(DelayqOutboxRelay.class);

    private final DelayqClient client;
    private final DataSource dataSource;
    private final Outbox outbox;
    private final DelayqOutboxProperties properties;
    private final List<Consumer<OutboxRelay>> onStart;
    private final Clock clock;
    private final Instant createdAt;
    private volatile OutboxRelay relay;
    private volatile boolean running;
    private boolean stopped;

    /**
     * A relay of {@code outbox}'s table in {@code dataSource} to {@code client}'s Redis.
     *
     * @param onStart what to do with the relay once it runs (bind its meters)
     */
    public DelayqOutboxRelay(DelayqClient client, DataSource dataSource, Outbox outbox, DelayqOutboxProperties properties,
                             List<Consumer<OutboxRelay>> onStart) {
        this.client = client;
        this.dataSource = dataSource;
        this.outbox = outbox;
        this.properties = properties;
        this.onStart = List.copyOf(onStart);
        this.clock = Clock.systemUTC();
        this.createdAt = clock.instant();
    }

    /** Starts the relay now when Redis has been reached, else as soon as it is. */
    @Override
    public synchronized void start() {
        if (running) {
            return;
        }
        stopped = false;
        running = true;
        if (!client.connected()) {
            LOG.warn("delayq: Redis has not been reached yet: the outbox relay of table {} starts when it is (rows wait "
                    + "in the table meanwhile)", outbox.table());
        }
        client.whenConnected(this::startOn);
    }

    private synchronized void startOn(DelayQ delayQ) {
        if (stopped || relay != null && relay.running()) {
            return;
        }
        OutboxRelay r = OutboxRelay.builder(dataSource, delayQ).outbox(outbox).batchSize(properties.getBatchSize())
                .pollInterval(properties.getPollInterval()).listen(properties.isListen())
                .name(properties.getRelayName()).build();
        r.start();
        relay = r;
        for (Consumer<OutboxRelay> c : onStart) {
            c.accept(r);
        }
        LOG.info("delayq: the outbox relay '{}' moves the committed rows of table {} to Redis (batches of {}, polling "
                + "every {})", r.name(), outbox.table(), properties.getBatchSize(), properties.getPollInterval());
    }

    /** Closes the relay: a round under way finishes (its rows relayed and deleted, or rolled back and left). */
    @Override
    public synchronized void stop() {
        running = false;
        stopped = true;
        OutboxRelay r = relay;
        if (r != null) {
            r.close();
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }

    /** Also on context close without a stop (a failed refresh): the relay never outlives its DataSource. */
    @Override
    public void destroy() {
        stop();
    }

    /** The relay, or null before it started (Redis not reached yet). */
    public OutboxRelay relay() {
        return relay;
    }

    /** The outbox whose rows it relays. */
    public Outbox outbox() {
        return outbox;
    }

    /** The relay's status read now (a count of the table), or null before the relay started. */
    public OutboxStatus status() {
        OutboxRelay r = relay;
        return r == null ? null : r.status();
    }

    /**
     * The outbox's state for the dashboard ({@code Dashboard.builder(dq).outbox(relay::dashboardStatus)}): the
     * {@code delayqOutbox} health's details ({@code pending}, {@code oldestPendingAge}, {@code relay}, the counts)
     * with {@code status} UP or DOWN. Counts the table: call it when shown, not in a loop.
     */
    public Map<String, Object> dashboardStatus() {
        DelayqOutboxHealthDetails.Report r = DelayqOutboxHealthDetails.of(this);
        Map<String, Object> status = new LinkedHashMap<>();
        status.put("status", r.up() ? "UP" : "DOWN");
        status.putAll(r.details());
        return status;
    }

    /** When this bean was made: a relay not started for longer than {@code down-after} is reported DOWN. */
    Instant createdAt() {
        return createdAt;
    }

    /** How long the health contributor tolerates failing rounds. */
    Duration downAfter() {
        return properties.getDownAfter();
    }

    Clock clock() {
        return clock;
    }
}
