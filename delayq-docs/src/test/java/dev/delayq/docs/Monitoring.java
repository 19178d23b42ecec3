package dev.delayq.docs;

import dev.delayq.CheckReport;
import dev.delayq.DelayQ;
import dev.delayq.JobQueue;
import dev.delayq.PurgeResult;
import dev.delayq.QueueStats;
import dev.delayq.Worker;
import dev.delayq.dashboard.Dashboard;
import dev.delayq.dashboard.MetricsServer;
import dev.delayq.micrometer.MicrometerMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;

/** docs/operations.md and docs/dashboard.md: meters, Prometheus, the dashboard in an application, checks. */
final class Monitoring {
    private Monitoring() {
    }

    static void metrics(JobQueue orders) {
        // tag::metrics[]
        PrometheusMeterRegistry prometheusRegistry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        Worker worker = Worker.builder(orders, ctx -> { })
                .metrics(new MicrometerMetrics(prometheusRegistry))   // delayq.jobs.completed, delayq.dispatch.lag, ...
                .build()
                .start();
        MetricsServer metrics = MetricsServer.builder(prometheusRegistry)    // GET /metrics on its own port, nothing else
                .port(9400)
                .bind("0.0.0.0")
                .build()
                .start();
        // ... metrics.close(); worker.close()
        // end::metrics[]
    }

    static void dashboard(DelayQ dq, PrometheusMeterRegistry prometheusRegistry) {
        // tag::dashboard[]
        Dashboard dashboard = Dashboard.builder(dq)             // the client's queues, under its prefix
                .port(8080).bind("0.0.0.0")
                .token(System.getenv("DELAYQ_DASHBOARD_TOKEN")) // required for any address but loopback
                .readOnly(false)
                .registry(prometheusRegistry)                   // optional: /metrics serves the application's meters too
                .build()
                .start();
        // ... dashboard.close(); then dq.close()
        // end::dashboard[]
    }

    static void housekeeping(JobQueue orders) {
        // tag::housekeeping[]
        QueueStats stats = orders.inspector().stats();                  // per state, totals, paused, oldest due job and its lag
        System.out.println(stats.scheduled() + " scheduled, oldest due " + stats.oldestDueLagMillis() + " ms ago");
        CheckReport report = orders.inspector().check();                // records and index entries agree? safe while workers run
        if (!report.clean()) {
            report.problems().forEach(System.err::println);
        }
        PurgeResult purged = orders.inspector().purge(Duration.ofDays(1)); // done and dead jobs finished more than a day ago
        // end::housekeeping[]
        System.out.println(purged);
    }
}
