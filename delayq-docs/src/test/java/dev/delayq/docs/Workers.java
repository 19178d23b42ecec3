package dev.delayq.docs;

import dev.delayq.JobContext;
import dev.delayq.JobListener;
import dev.delayq.JobQueue;
import dev.delayq.Worker;
import dev.delayq.micrometer.MicrometerMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/** docs/worker.md: running a queue's jobs. */
final class Workers {
    private Workers() {
    }

    static Worker settings(JobQueue imports, MeterRegistry registry) {
        // tag::settings[]
        Worker worker = Worker.builder(imports)
                .handle("import", Workers::importFile)            // jobs named "import"
                .handle("thumbnail", ctx -> thumbnail(ctx.payload()))
                .concurrency(32)                                  // handlers running at once [10]
                .leaseDuration(Duration.ofMinutes(2))             // renewed every third of it while a job runs [30 s]
                .jobTimeout(Duration.ofMinutes(20))               // for jobs without their own timeout [none]
                .shutdownGrace(Duration.ofSeconds(30))            // close(): let running handlers finish this long [10 s]
                .metrics(new MicrometerMetrics(registry))         // Micrometer meters, tagged queue and worker
                .name("importer-1")                               // in logs, the purge lock, the meters [host-pid-random]
                .shutdownHook(true)                               // close gracefully when the JVM shuts down [false]
                .build()
                .start();
        // ... worker.close(): stop claiming, finish or hand back running jobs, end the threads
        // end::settings[]
        return worker;
    }

    // tag::long-handler[]
    static void importFile(JobContext ctx) throws Exception {
        List<String> rows = download(ctx.payloadUtf8());
        for (int i = 0; i < rows.size(); i++) {
            ctx.ensureLease();                                    // throws once the lease is lost: stop here
            store(ctx.id(), i, rows.get(i));                      // idempotent: keyed by the job id and the row
            if (i % 1000 == 0) {
                ctx.progress(100 * i / rows.size());              // shown by get(), `delayq job` and the dashboard
            }
        }
    }
    // end::long-handler[]

    static Worker listenerAndExecutor(JobQueue imports) {
        // tag::listener[]
        ExecutorService handlers = Executors.newFixedThreadPool(64);   // on Java 21: newVirtualThreadPerTaskExecutor()
        Worker worker = Worker.builder(imports, Workers::importFile)
                .executor(handlers)                               // the worker's own handler threads by default
                .concurrency(64)
                .listener((ctx, outcome) -> {                     // what Redis recorded for every run; on I/O threads
                    if (outcome == JobListener.Outcome.REFUSED) {
                        System.err.println(ctx.id() + ": lease lost, token " + ctx.token() + " refused");
                    }
                })
                .build()
                .start();
        // end::listener[]
        return worker;
    }

    private static List<String> download(String url) {
        return List.of();
    }

    private static void store(String id, int row, String value) {
    }

    private static void thumbnail(byte[] image) {
    }
}
