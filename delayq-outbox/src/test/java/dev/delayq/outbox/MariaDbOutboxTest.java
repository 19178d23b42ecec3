package dev.delayq.outbox;

/**
 * The outbox's contract on MariaDB: a private mariadbd from the machine's binaries, else the machine's server on
 * 127.0.0.1:3306, else skipped (and listed as skipped by the build).
 */
class MariaDbOutboxTest extends OutboxContract {
    @Override
    TestDatabase newDatabase() throws Exception {
        return MariaDbServer.database();
    }
}
