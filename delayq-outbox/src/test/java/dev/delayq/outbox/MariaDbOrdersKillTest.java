package dev.delayq.outbox;

import org.junit.jupiter.api.BeforeAll;

/** The kill scenario on MariaDB (skipped, and listed, where no MariaDB can be had: {@link MariaDbServer}). */
class MariaDbOrdersKillTest extends OrdersKillTest {
    @BeforeAll
    static void startDatabase() throws Exception {
        start(MariaDbServer.database());
    }
}
