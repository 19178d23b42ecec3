package dev.delayq.spring;

import dev.delayq.EnqueueResult;
import dev.delayq.Job;
import dev.delayq.outbox.Outbox;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.UncategorizedSQLException;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.jdbc.support.SQLExceptionSubclassTranslator;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The outbox writer of a JDBC {@link DataSource}: inside a Spring-managed transaction that holds a connection of the
 * DataSource (a {@code DataSourceTransactionManager}'s, a {@code JpaTransactionManager}'s, a
 * {@code JdbcTransactionManager}'s), the job's row is inserted through that connection
 * ({@link DataSourceUtils#getConnection}), so it commits and rolls back with the application's own rows. Loaded only
 * by {@link DelayqOutboxAutoConfiguration}, when spring-jdbc and delayq-outbox are there.
 */
final class JdbcOutboxWriter implements DelayqOutboxWriter {
    private final Outbox outbox;
    private final DataSource dataSource;
    private final SQLExceptionSubclassTranslator translator = new SQLExceptionSubclassTranslator();

    JdbcOutboxWriter(Outbox outbox, DataSource dataSource) {
        this.outbox = outbox;
        this.dataSource = dataSource;
    }

    @Override
    public boolean inTransaction() {
        // A transaction of another resource only (a JMS or Redis transaction manager, say) has no connection of this
        // DataSource: a row written on a connection of its own would commit at once, outside it. The template enqueues
        // after that transaction's commit instead, as without an outbox.
        return TransactionSynchronizationManager.isActualTransactionActive()
                && TransactionSynchronizationManager.isSynchronizationActive()
                && TransactionSynchronizationManager.getResource(dataSource) != null;
    }

    @Override
    public EnqueueResult writeInTransaction(String queue, Job job) {
        if (!inTransaction()) {
            return null;
        }
        Connection c = DataSourceUtils.getConnection(dataSource);
        try {
            outbox.enqueue(c, queue, job);
        } catch (SQLException e) {
            DataAccessException translated = translator.translate("delayq outbox insert", null, e);
            throw translated != null ? translated : new UncategorizedSQLException("delayq outbox insert", null, e);
        } finally {
            DataSourceUtils.releaseConnection(c, dataSource);
        }
        // The insert woke this process's relay already; after the commit it looks again at once.
        TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
            @Override
            public void afterCommit() {
                outbox.wakeRelays();
            }
        });
        return new EnqueueResult(job.id(), true);
    }
}
