package dev.delayq.outbox;

import org.junit.jupiter.api.BeforeAll;

/** The kill scenario on PostgreSQL. */
class PostgresOrdersKillTest extends OrdersKillTest {
    @BeforeAll
    static void startDatabase() throws Exception {
        start(PostgresServer.database());
    }
}
