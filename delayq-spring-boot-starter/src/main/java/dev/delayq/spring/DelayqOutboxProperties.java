package dev.delayq.spring;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the transactional outbox (module {@code delayq-outbox}), under {@code delayq.outbox.*}. Every default is
 * the module's own.
 */
@ConfigurationProperties("delayq.outbox")
public class DelayqOutboxProperties {
    /**
     * Whether DelayqTemplate.enqueue inside a transaction of the application's DataSource writes the job into the outbox
     * table (relayed to Redis after the commit, exactly once) instead of enqueueing after the commit. Needs
     * delayq-outbox, spring-jdbc and a DataSource bean.
     */
    private boolean enabled = false;

    /**
     * The outbox table; the failed rows' table has the same name with "_failed". A letter or _, then letters, digits
     * or _, at most 56 characters, optionally after a schema name and a dot.
     */
    private String table = "delayq_outbox";

    /**
     * Whether to create the two outbox tables at start-up when they are not there: always, never, or embedded (only
     * for an embedded database, as spring.batch.jdbc.initialize-schema; PostgreSQL, MySQL and MariaDB never are, so
     * with the default the tables come from your migrations).
     */
    private InitializeSchema initializeSchema = InitializeSchema.EMBEDDED;

    /** Rows the relay takes per round (one locking select, one pipelined enqueue per queue, one delete): 1 to 10000. */
    private int batchSize = 1000;

    /** How often an idle relay looks for rows nothing woke it for (10ms to 1h). */
    private Duration pollInterval = Duration.ofMillis(500);

    /** Whether the relay LISTENs for the writers' notifications on PostgreSQL (with the PostgreSQL JDBC driver). */
    private boolean listen = true;

    /** Whether each write on PostgreSQL sends a NOTIFY that wakes the relays of other instances on commit. */
    private boolean notifyOnCommit = true;

    /** The relay's name, in its threads' names, log lines and meter tags: 1-64 characters. */
    private String relayName = "relay";

    /**
     * How long the relay may have failed (database or Redis unreachable), or have no successful round while rows wait,
     * before the delayqOutbox health contributor reports DOWN. A stopped relay is DOWN at once.
     */
    private Duration downAfter = Duration.ofMinutes(1);

    /** When to create the outbox tables at start-up, as Spring Batch's {@code initialize-schema}. */
    public enum InitializeSchema {
        /** Create them when they are missing. */
        ALWAYS,
        /** Only for an embedded database (H2, HSQLDB, Derby: never one the outbox speaks). */
        EMBEDDED,
        /** Never: the tables come from a migration tool. */
        NEVER
    }

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getTable() {
        return table;
    }

    public void setTable(String table) {
        this.table = table;
    }

    public InitializeSchema getInitializeSchema() {
        return initializeSchema;
    }

    public void setInitializeSchema(InitializeSchema initializeSchema) {
        this.initializeSchema = initializeSchema;
    }

    public int getBatchSize() {
        return batchSize;
    }

    public void setBatchSize(int batchSize) {
        this.batchSize = batchSize;
    }

    public Duration getPollInterval() {
        return pollInterval;
    }

    public void setPollInterval(Duration pollInterval) {
        this.pollInterval = pollInterval;
    }

    public boolean isListen() {
        return listen;
    }

    public void setListen(boolean listen) {
        this.listen = listen;
    }

    public boolean isNotifyOnCommit() {
        return notifyOnCommit;
    }

    public void setNotifyOnCommit(boolean notifyOnCommit) {
        this.notifyOnCommit = notifyOnCommit;
    }

    public String getRelayName() {
        return relayName;
    }

    public void setRelayName(String relayName) {
        this.relayName = relayName;
    }

    public Duration getDownAfter() {
        return downAfter;
    }

    public void setDownAfter(Duration downAfter) {
        this.downAfter = downAfter;
    }
}
