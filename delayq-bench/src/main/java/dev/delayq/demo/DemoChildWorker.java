package dev.delayq.demo;

import dev.delayq.DelayQ;
import dev.delayq.Worker;
import dev.delayq.cli.RedisTarget;
import java.io.FileOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The demo's doomed worker, run in its own JVM so that the demo can kill it with SIGKILL mid-run: no
 * shutdown hook runs, no lease is handed back, renewals simply stop. It records every job it starts
 * ({@code id attempt token} per line, flushed) so the demo can count claims across processes. Once the demo has
 * created the hold file, a job whose work ends keeps its lease instead of finishing (it prints {@code holding ID}): the
 * demo kills the worker only once it holds one, so that a lease is always left behind to recover.
 * Arguments: key prefix, queue, lease ms, concurrency, starts file, hold file; the server in {@value #URL_ENV}, a
 * password given apart in {@code DELAYQ_REDIS_PASSWORD} (and its user in {@value #USER_ENV}), never on the command line.
 */
public final class DemoChildWorker {
    /** The environment variable naming the server. */
    static final String URL_ENV = "DELAYQ_DEMO_REDIS_URL";
    /** The environment variable naming the ACL user of a password given apart. */
    static final String USER_ENV = "DELAYQ_DEMO_REDIS_USER";

    private DemoChildWorker() {
    }

    public static void main(String[] args) throws Exception {
        OutputStream starts = new FileOutputStream(args[4], true);
        Path hold = Path.of(args[5]);
        DelayQ.Builder b = DelayQ.builder().redis(System.getenv(URL_ENV));
        String password = System.getenv(RedisTarget.PASSWORD_ENV);
        if (password != null) {
            b.username(System.getenv(USER_ENV)).password(password);
        }
        DelayQ dq = b.prefix(args[0]).clientName("delayq-demo-doomed").build();
        Worker.builder(dq.queue(args[1]), job -> {
            synchronized (starts) {
                starts.write((job.id() + " " + job.attempt() + " " + job.token() + "\n").getBytes(StandardCharsets.UTF_8));
                starts.flush();
            }
            TimeUnit.MILLISECONDS.sleep(DemoJobs.SLOW_WORK_MS); // slow, so it holds jobs most of the time
            if (Files.exists(hold)) { // about to be killed: keep this job in hand (its lease renewed) until then
                System.out.println("holding " + job.id());
                System.out.flush();
                Thread.currentThread().join();
            }
            DemoJobs.maybeFail(job);
        }).name("demo-doomed").concurrency(Integer.parseInt(args[3])).leaseDuration(Duration.ofMillis(Long.parseLong(args[2])))
                .retryPolicy(DemoJobs.POLICY).build().start();
        System.out.println("ready");
        System.out.flush();
        Thread.currentThread().join();
    }
}
