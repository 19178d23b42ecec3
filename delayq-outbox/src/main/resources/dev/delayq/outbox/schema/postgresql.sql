-- delayq outbox, PostgreSQL 13+. Plain SQL for Flyway, Liquibase (sqlFile) or psql; docs/outbox.md.
-- The table name is delayq_outbox: to use another, replace every "delayq_outbox" below (both tables keep the suffix
-- "_failed" for the second one) and give the same name to Outbox.builder().table(...) and the relay.
-- delayq_outbox: one row per job written in the application's transaction, deleted when relayed to Redis.
CREATE TABLE delayq_outbox (
    seq           BIGSERIAL PRIMARY KEY,
    queue         VARCHAR(128) NOT NULL,
    job_id        VARCHAR(512) NOT NULL,
    name          VARCHAR(128),
    payload       BYTEA NOT NULL,
    delay_ms      BIGINT,
    run_at_ms     BIGINT,
    max_attempts  INTEGER NOT NULL DEFAULT 0,
    priority      SMALLINT NOT NULL DEFAULT 0,
    timeout_ms    BIGINT,
    dedupe_key    VARCHAR(512),
    dedupe_ttl_ms BIGINT,
    group_key     VARCHAR(128),
    after_ids     TEXT,
    on_parent_dead VARCHAR(8),
    traceparent   VARCHAR(55),
    tracestate    VARCHAR(512),
    created_at    TIMESTAMPTZ(3) NOT NULL DEFAULT statement_timestamp()
);
-- delayq_outbox_failed: rows the relay could not enqueue (invalid), moved aside with the error.
CREATE TABLE delayq_outbox_failed (
    seq           BIGINT PRIMARY KEY,
    queue         VARCHAR(128) NOT NULL,
    job_id        VARCHAR(512) NOT NULL,
    name          VARCHAR(128),
    payload       BYTEA NOT NULL,
    delay_ms      BIGINT,
    run_at_ms     BIGINT,
    max_attempts  INTEGER NOT NULL,
    priority      SMALLINT NOT NULL,
    timeout_ms    BIGINT,
    dedupe_key    VARCHAR(512),
    dedupe_ttl_ms BIGINT,
    group_key     VARCHAR(128),
    after_ids     TEXT,
    on_parent_dead VARCHAR(8),
    traceparent   VARCHAR(55),
    tracestate    VARCHAR(512),
    created_at    TIMESTAMPTZ(3) NOT NULL,
    error         VARCHAR(2048) NOT NULL,
    failed_at     TIMESTAMPTZ(3) NOT NULL DEFAULT statement_timestamp()
);
