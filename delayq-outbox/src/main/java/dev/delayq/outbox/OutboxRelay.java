package dev.delayq.outbox;

import dev.delayq.DelayQ;
import dev.delayq.outbox.internal.Counters;
import dev.delayq.outbox.internal.PgListener;
import dev.delayq.outbox.internal.RelayLoop;
import dev.delayq.outbox.internal.RelayRound;
import dev.delayq.outbox.internal.Sql;
import dev.delayq.outbox.internal.Waker;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * Moves committed outbox rows to Redis: in rounds of up to a batch (default 1,000 rows: one locking select, one
 * pipelined enqueue per queue, one delete, one commit), each job enqueued under the id its row holds, so a row relayed
 * twice is still one job. Relays in several processes share the table: each round locks its rows with
 * {@code FOR UPDATE SKIP LOCKED}, so no row is taken by two relays at once and none waits for another.
 *
 * <p>When idle it wakes on a write of an {@link Outbox} of its own process, on PostgreSQL on the {@code NOTIFY} every
 * write sends on commit (from any process), and otherwise every poll interval. A failed round (database or Redis
 * unreachable) is rolled back, counted, logged and retried after a pause; nothing is lost. A row that holds no valid job
 * is moved aside to the failed table ({@code <table>_failed}) with its error.
 *
 * <pre>{@code
 * OutboxRelay relay = OutboxRelay.builder(dataSource, delayq).outbox(outbox).build().start();
 * ...
 * relay.close();   // on shutdown, before the DataSource and the DelayQ
 * }</pre>
 */
public final class OutboxRelay implements AutoCloseable {
    /** How long after a writer's wake-up the relay keeps looking for the writer's commit. */
    private static final long EXPECT_WINDOW_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final DataSource dataSource;
    private final DelayQ delayq;
    private final Outbox outbox;
    private final int batchSize;
    private final Duration pollInterval;
    private final boolean listen;
    private final String name;
    private final Clock clock;
    private final Runnable afterEnqueue;
    private final Counters counters = new Counters();
    private final Waker waker = new Waker();

    private Connection connection;
    private RelayRound round;
    private OutboxDialect dialect;
    private volatile boolean started;
    private volatile boolean closed;
    private volatile Thread loopThread;
    private Thread listenerThread;
    private PgListener listener;
    private Runnable unregister = () -> { };

    private OutboxRelay(Builder b) {
        this.dataSource = b.dataSource;
        this.delayq = b.delayq;
        this.outbox = b.outbox;
        this.batchSize = b.batchSize;
        this.pollInterval = b.pollInterval;
        this.listen = b.listen;
        this.name = b.name;
        this.clock = b.clock;
        this.afterEnqueue = b.afterEnqueue;
    }

    /** A builder for a relay that reads {@code dataSource}'s outbox table and enqueues through {@code delayq}. */
    public static Builder builder(DataSource dataSource, DelayQ delayq) {
        return new Builder(dataSource, delayq);
    }

    /**
     * Starts the background loop (and, on PostgreSQL, the listener). Returns at once: a database or Redis that is
     * down is retried by the loop.
     *
     * @return this relay
     * @throws IllegalStateException when started before or closed
     */
    public synchronized OutboxRelay start() {
        if (started || closed) {
            throw new IllegalStateException("outbox relay " + name + " is " + (closed ? "closed" : "already started"));
        }
        started = true;
        unregister = outbox.register(() -> waker.expect(EXPECT_WINDOW_NANOS));
        loopThread = new Thread(new RelayLoop(this::relayOnce, waker, pollInterval, name), "delayq-outbox-" + name);
        loopThread.setDaemon(true);
        loopThread.start();
        if (connection != null) {
            listen(connection);
        }
        return this;
    }

    /**
     * Runs one round now, on the calling thread: relays up to a batch of committed rows.
     *
     * @return the rows taken off the outbox (relayed, or moved aside as invalid)
     * @throws SQLException                 when the database fails (the round is rolled back, its rows stay)
     * @throws dev.delayq.DelayQException   when Redis fails (likewise)
     */
    public synchronized int relayOnce() throws SQLException {
        if (closed && Thread.currentThread() != loopThread) {
            throw new IllegalStateException("outbox relay " + name + " is closed");
        }
        try {
            int n = round(connection());
            counters.success(clock.instant());
            return n;
        } catch (SQLException | RuntimeException | Error e) {
            counters.failure(clock.instant(), e);
            discard();
            throw e;
        }
    }

    private int round(Connection c) throws SQLException {
        return round.run(c);
    }

    /** The relay's connection, opened (and the dialect learnt) on first use or after a failure. */
    private Connection connection() throws SQLException {
        if (connection == null) {
            Connection c = dataSource.getConnection();
            try {
                c.setAutoCommit(false);
                // No gap locks (InnoDB): the relay's locking read must not hold up the writers' inserts.
                c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
                dialect = OutboxDialect.of(c);
            } catch (SQLException | RuntimeException e) {
                c.close();
                throw e;
            }
            connection = c;
            round = new RelayRound(outbox.sql(dialect), delayq, batchSize, counters, afterEnqueue);
            if (started) {
                listen(c);
            }
        }
        return connection;
    }

    /** Starts the PostgreSQL listener once, when the relay runs, listens and the database is PostgreSQL. */
    private void listen(Connection c) {
        if (listen && listener == null && !closed && dialect == OutboxDialect.POSTGRESQL && pgjdbc(c)) {
            listener = new PgListener(dataSource, outbox.sql(dialect).channel(), waker);
            listenerThread = new Thread(listener, "delayq-outbox-listen-" + name);
            listenerThread.setDaemon(true);
            listenerThread.start();
        }
    }

    /** Whether {@code c} is pgjdbc's: another PostgreSQL driver, or none of the optional pgjdbc classes, means polling. */
    private static boolean pgjdbc(Connection c) {
        try {
            return PgListener.supported(c);
        } catch (LinkageError e) {
            return false;
        }
    }

    private void discard() {
        if (connection != null) {
            try {
                connection.rollback();
            } catch (SQLException | RuntimeException ignored) {
                // The connection is broken: closing it below is all that is left to do.
            }
            try {
                connection.close();
            } catch (SQLException | RuntimeException ignored) {
                // Likewise: a fresh connection is opened for the next round.
            }
            connection = null;
        }
    }

    /**
     * The relay's state: whether it runs, its figures, and the outbox's pending rows and oldest row's age, read now from
     * the database (a count of the table: cache it where it is scraped often; {@link OutboxMetrics} does).
     */
    public OutboxStatus status() {
        long pending = -1;
        Duration oldest = null;
        try (Connection c = dataSource.getConnection()) {
            Sql sql = outbox.sql(OutboxDialect.of(c));
            try (PreparedStatement ps = c.prepareStatement(sql.pending()); ResultSet rs = ps.executeQuery()) {
                rs.next();
                pending = rs.getLong(1);
                long age = rs.getLong(2);
                oldest = rs.wasNull() ? Duration.ZERO : Duration.ofMillis(Math.max(0, age));
            }
        } catch (SQLException | RuntimeException e) {
            // Reported as unknown (-1, null): the status itself must not fail a health check's caller.
        }
        return new OutboxStatus(running(), pending, oldest, counters.relayed.get(), counters.duplicates.get(),
                counters.failed.get(), counters.errors.get(), counters.lastError(), counters.lastErrorAt(),
                counters.lastSuccessAt(), counters.lastRoundFailed());
    }

    /** Whether the background loop runs (started and not closed). */
    public boolean running() {
        return started && !closed && loopThread != null && loopThread.isAlive();
    }

    /** The relay's name (its threads are named after it). */
    public String name() {
        return name;
    }

    /** The outbox whose table this relay reads. */
    public Outbox outbox() {
        return outbox;
    }

    /** Rows relayed since start (cheap: no database read). */
    long relayedCount() {
        return counters.relayed.get();
    }

    Counters counters() {
        return counters;
    }

    /**
     * Stops the loop and the listener (a round under way finishes: its rows are relayed and deleted, or rolled back
     * and left) and closes the relay's connections. Idempotent.
     */
    @Override
    public void close() {
        Thread loop;
        Thread listening;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            unregister.run();
            waker.close();
            if (listener != null) {
                listener.close();
            }
            loop = loopThread;
            listening = listenerThread;
        }
        join(loop);
        join(listening);
        synchronized (this) {
            discard();
        }
    }

    private static void join(Thread t) {
        if (t == null) {
            return;
        }
        try {
            t.join(TimeUnit.SECONDS.toMillis(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Builder of an {@link OutboxRelay}; {@link #build()} validates every setting. */
    public static final class Builder {
        private final DataSource dataSource;
        private final DelayQ delayq;
        private Outbox outbox;
        private int batchSize = 1000;
        private Duration pollInterval = Duration.ofMillis(500);
        private boolean listen = true;
        private String name = "relay";
        private Clock clock = Clock.systemUTC();
        private Runnable afterEnqueue = () -> { };

        private Builder(DataSource dataSource, DelayQ delayq) {
            this.dataSource = dataSource;
            this.delayq = delayq;
        }

        /**
         * The outbox whose table to read (default: {@code Outbox.builder().build()}, table {@code delayq_outbox}).
         * Pass the application's own: its writes then wake this relay at once.
         */
        public Builder outbox(Outbox outbox) {
            this.outbox = outbox;
            return this;
        }

        /** Rows per round (default 1,000; 1 to 10,000). */
        public Builder batchSize(int rows) {
            this.batchSize = rows;
            return this;
        }

        /** How often an idle relay looks for rows nobody woke it for (default 500 ms; 10 ms to 1 h). */
        public Builder pollInterval(Duration interval) {
            this.pollInterval = interval;
            return this;
        }

        /** Whether to {@code LISTEN} for the writers' notifications on PostgreSQL (default {@code true}). */
        public Builder listen(boolean listen) {
            this.listen = listen;
            return this;
        }

        /** The relay's name, in its threads' names and its log lines (default {@code relay}; 1-64 characters). */
        public Builder name(String name) {
            this.name = name;
            return this;
        }

        /** The clock of the status's instants (default UTC system clock); the rows' ages use the database's. */
        public Builder clock(Clock clock) {
            this.clock = clock;
            return this;
        }

        /** Runs between a round's enqueue to Redis and its commit: the fault suite stops a relay there. */
        Builder afterEnqueue(Runnable action) {
            this.afterEnqueue = Objects.requireNonNull(action, "action");
            return this;
        }

        /**
         * Validates and builds the relay (not started).
         *
         * @throws IllegalArgumentException naming the invalid setting and what is allowed
         */
        public OutboxRelay build() {
            if (dataSource == null) {
                throw new IllegalArgumentException("data source must not be null: the relay reads the outbox through it");
            }
            if (delayq == null) {
                throw new IllegalArgumentException("delayq must not be null: the relay enqueues through it");
            }
            if (batchSize < 1 || batchSize > 10_000) {
                throw new IllegalArgumentException("batch size " + batchSize + " is invalid: use 1 to 10,000 rows");
            }
            if (pollInterval == null || pollInterval.compareTo(Duration.ofMillis(10)) < 0
                    || pollInterval.compareTo(Duration.ofHours(1)) > 0) {
                throw new IllegalArgumentException("poll interval " + pollInterval + " is invalid: use 10 ms to 1 h");
            }
            if (name == null || name.isEmpty() || name.length() > 64 || name.chars().anyMatch(Character::isISOControl)) {
                throw new IllegalArgumentException("relay name '" + name + "' is invalid: use 1-64 characters, no "
                        + "control characters");
            }
            if (clock == null) {
                throw new IllegalArgumentException("clock must not be null");
            }
            if (outbox == null) {
                outbox = Outbox.builder().build();
            }
            return new OutboxRelay(this);
        }
    }
}
