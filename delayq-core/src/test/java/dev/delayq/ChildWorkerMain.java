package dev.delayq;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A worker in a child JVM for crash tests: every job it starts is recorded (one id per line, flushed)
 * in a marker file, and then it holds the job forever, until the parent kills the process.
 * Arguments: redis URI, key prefix, queue, lease ms, concurrency, marker file[, heartbeat interval ms].
 */
public final class ChildWorkerMain {
    private ChildWorkerMain() {
    }

    public static void main(String[] args) throws Exception {
        String uri = args[0];
        String prefix = args[1];
        String queue = args[2];
        long leaseMs = Long.parseLong(args[3]);
        int concurrency = Integer.parseInt(args[4]);
        OutputStream marker = new FileOutputStream(args[5], true);
        DelayQ dq = DelayQ.builder().redis(uri).prefix(prefix).build();
        Worker.Builder worker = Worker.builder(dq.queue(queue), job -> {
            synchronized (marker) {
                marker.write((job.id() + "\n").getBytes(StandardCharsets.UTF_8));
                marker.flush();
            }
            TimeUnit.DAYS.sleep(1); // hold the lease (renewed) until the process is killed
        }).concurrency(concurrency).batchSize(concurrency).leaseDuration(Duration.ofMillis(leaseMs));
        if (args.length > 6) {
            worker.heartbeatInterval(Duration.ofMillis(Long.parseLong(args[6])));
        }
        worker.build().start();
        System.out.println("started");
        System.out.flush();
        Thread.currentThread().join(); // run until killed
        close(marker);
    }

    private static void close(OutputStream out) throws IOException {
        out.close();
    }
}
