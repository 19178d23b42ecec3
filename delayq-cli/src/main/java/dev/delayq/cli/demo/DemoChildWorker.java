package dev.delayq.cli.demo;

import dev.delayq.DelayQ;
import dev.delayq.Worker;
import java.io.FileOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The demo's doomed worker, run in its own JVM so that the demo can kill it with SIGKILL mid-run: no
 * shutdown hook runs, no lease is handed back, renewals simply stop. It records every job it starts
 * ({@code id attempt token} per line, flushed) so the demo can count claims across processes.
 * Arguments: redis URI, key prefix, queue, lease ms, concurrency, starts file.
 */
public final class DemoChildWorker {
    private DemoChildWorker() {
    }

    public static void main(String[] args) throws Exception {
        OutputStream starts = new FileOutputStream(args[5], true);
        DelayQ dq = DelayQ.builder().redis(args[0]).prefix(args[1]).clientName("delayq-demo-doomed").build();
        Worker.builder(dq.queue(args[2]), job -> {
            synchronized (starts) {
                starts.write((job.id() + " " + job.attempt() + " " + job.token() + "\n").getBytes(StandardCharsets.UTF_8));
                starts.flush();
            }
            TimeUnit.MILLISECONDS.sleep(DemoJobs.SLOW_WORK_MS); // slow, so it always holds jobs when it is killed
            DemoJobs.maybeFail(job);
        }).name("demo-doomed").concurrency(Integer.parseInt(args[4])).leaseDuration(Duration.ofMillis(Long.parseLong(args[3])))
                .retryPolicy(DemoJobs.POLICY).build().start();
        System.out.println("ready");
        System.out.flush();
        Thread.currentThread().join();
    }
}
