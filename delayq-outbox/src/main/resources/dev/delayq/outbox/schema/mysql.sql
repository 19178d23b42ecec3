-- delayq outbox, MySQL 8.0.1+ and MariaDB 10.6+ (InnoDB; FOR UPDATE SKIP LOCKED). Plain SQL for Flyway, Liquibase
-- (sqlFile) or the mysql client; docs/outbox.md.
-- The table name is delayq_outbox: to use another, replace every "delayq_outbox" below (both tables keep the suffix
-- "_failed" for the second one) and give the same name to Outbox.builder().table(...) and the relay.
-- delayq_outbox: one row per job written in the application's transaction, deleted when relayed to Redis.
CREATE TABLE delayq_outbox (
    seq           BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    queue         VARCHAR(128) NOT NULL,
    job_id        VARCHAR(512) NOT NULL,
    name          VARCHAR(128),
    payload       LONGBLOB NOT NULL,
    delay_ms      BIGINT,
    run_at_ms     BIGINT,
    max_attempts  INT NOT NULL DEFAULT 0,
    priority      SMALLINT NOT NULL DEFAULT 0,
    timeout_ms    BIGINT,
    dedupe_key    VARCHAR(512),
    dedupe_ttl_ms BIGINT,
    group_key     VARCHAR(128),
    after_ids     MEDIUMTEXT,
    on_parent_dead VARCHAR(8),
    traceparent   VARCHAR(55),
    tracestate    VARCHAR(512),
    created_at    TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
-- delayq_outbox_failed: rows the relay could not enqueue (invalid), moved aside with the error.
CREATE TABLE delayq_outbox_failed (
    seq           BIGINT NOT NULL PRIMARY KEY,
    queue         VARCHAR(128) NOT NULL,
    job_id        VARCHAR(512) NOT NULL,
    name          VARCHAR(128),
    payload       LONGBLOB NOT NULL,
    delay_ms      BIGINT,
    run_at_ms     BIGINT,
    max_attempts  INT NOT NULL,
    priority      SMALLINT NOT NULL,
    timeout_ms    BIGINT,
    dedupe_key    VARCHAR(512),
    dedupe_ttl_ms BIGINT,
    group_key     VARCHAR(128),
    after_ids     MEDIUMTEXT,
    on_parent_dead VARCHAR(8),
    traceparent   VARCHAR(55),
    tracestate    VARCHAR(512),
    created_at    TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    error         VARCHAR(2048) NOT NULL,
    failed_at     TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
