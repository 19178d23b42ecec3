package dev.delayq.dashboard;

import dev.delayq.DelayQ;
import java.util.function.Consumer;

/** A client and a dashboard of it on a free loopback port, closed together. */
final class Served implements AutoCloseable {
    /** The token of the tests that need one. */
    static final String TOKEN = "test-token-0123456789abcdef";

    final DelayQ dq;
    final Dashboard dashboard;
    /** Without credentials. */
    final Http anonymous;
    /** With the token (when there is one). */
    final Http http;

    private Served(DelayQ dq, Dashboard dashboard, String token) {
        this.dq = dq;
        this.dashboard = dashboard;
        this.anonymous = new Http(dashboard.url());
        this.http = token != null ? anonymous.withToken(token) : anonymous;
    }

    /** A dashboard with the test token. */
    static Served withToken(String redisUri, String prefix) {
        return start(redisUri, prefix, b -> b.token(TOKEN), TOKEN);
    }

    /** A dashboard without a token (loopback only). */
    static Served open(String redisUri, String prefix) {
        return start(redisUri, prefix, b -> { }, null);
    }

    static Served start(String redisUri, String prefix, Consumer<Dashboard.Builder> config, String token) {
        DelayQ dq = DelayQ.builder().redis(redisUri).prefix(prefix).maxPayloadBytes(8 * 1024 * 1024).build();
        try {
            Dashboard.Builder b = Dashboard.builder(dq).port(0);
            config.accept(b);
            return new Served(dq, b.build().start(), token);
        } catch (RuntimeException e) {
            dq.close();
            throw e;
        }
    }

    @Override
    public void close() {
        try {
            dashboard.close();
        } finally {
            dq.close();
        }
    }
}
