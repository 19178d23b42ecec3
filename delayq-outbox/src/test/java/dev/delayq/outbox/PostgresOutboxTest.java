package dev.delayq.outbox;

/** The outbox's contract on PostgreSQL (embedded: its binaries come through Maven). */
class PostgresOutboxTest extends OutboxContract {
    @Override
    TestDatabase newDatabase() throws Exception {
        return PostgresServer.database();
    }
}
