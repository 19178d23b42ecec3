package dev.delayq;

import java.io.FileOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * A worker in a child JVM for schedule tests: runs the queue's jobs (and, like every worker, ticks its schedules),
 * recording each job it runs (one id per line, flushed before the job completes). Arguments: redis URI, key prefix,
 * queue, marker file.
 */
public final class ScheduleWorkerMain {
    private ScheduleWorkerMain() {
    }

    public static void main(String[] args) throws Exception {
        OutputStream marker = new FileOutputStream(args[3], true);
        DelayQ dq = DelayQ.builder().redis(args[0]).prefix(args[1]).build();
        Worker.builder(dq.queue(args[2]), job -> {
            synchronized (marker) {
                marker.write((job.id() + "\n").getBytes(StandardCharsets.UTF_8));
                marker.flush();
            }
        }).build().start();
        System.out.println("started");
        System.out.flush();
        Thread.currentThread().join(); // run until killed
    }
}
