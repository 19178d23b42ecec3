package dev.delayq.internal.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The worker's own handler threads: every job runs once, slow jobs never wait behind each other, threads end. */
class HandlerPoolTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private final AtomicInteger started = new AtomicInteger();
    private final Set<Thread> threads = ConcurrentHashMap.newKeySet();
    private final ThreadFactory factory = r -> {
        started.incrementAndGet();
        Thread t = new Thread(() -> {
            threads.add(Thread.currentThread());
            try {
                r.run();
            } finally {
                threads.remove(Thread.currentThread());
            }
        }, "test-handler-" + started.get());
        t.setDaemon(true);
        return t;
    };
    private HandlerPool pool;

    @AfterEach
    void close() {
        if (pool != null) {
            pool.shutdownNow();
        }
    }

    @Test
    void everyJobRunsExactlyOnceUnderConcurrentSubmitters() throws Exception {
        pool = new HandlerPool(8, 60, TimeUnit.SECONDS, factory, Ticker.SYSTEM);
        pool.prestart();
        int perSubmitter = 50_000;
        int submitters = 4;
        AtomicIntegerArray runs = new AtomicIntegerArray(perSubmitter * submitters);
        List<Thread> producers = new ArrayList<>();
        for (int s = 0; s < submitters; s++) {
            int base = s * perSubmitter;
            Thread p = new Thread(() -> {
                for (int i = 0; i < perSubmitter; i++) {
                    int n = base + i;
                    pool.execute(() -> runs.incrementAndGet(n));
                }
            });
            producers.add(p);
            p.start();
        }
        for (Thread p : producers) {
            p.join();
        }
        Awaitility.await().atMost(WAIT).until(() -> {
            for (int i = 0; i < runs.length(); i++) {
                if (runs.get(i) == 0) {
                    return false;
                }
            }
            return true;
        });
        for (int i = 0; i < runs.length(); i++) {
            assertThat(runs.get(i)).as("job %d", i).isEqualTo(1);
        }
    }

    @Test
    void burstsOfShortJobsSeparatedByIdleGapsAllRun() {
        // Jobs arriving one at a time while every thread parks in between: each arrival must wake a thread.
        pool = new HandlerPool(4, 60, TimeUnit.SECONDS, factory, Ticker.SYSTEM);
        AtomicInteger done = new AtomicInteger();
        for (int i = 1; i <= 300; i++) {
            pool.execute(done::incrementAndGet);
            int expected = i;
            Awaitility.await().atMost(WAIT).pollInterval(Duration.ofMillis(1)).until(() -> done.get() == expected);
        }
    }

    @Test
    void slowJobsEachGetAThreadAtOnce() {
        pool = new HandlerPool(64, 60, TimeUnit.SECONDS, factory, Ticker.SYSTEM);
        pool.prestart();
        CountDownLatch all = new CountDownLatch(64);
        AtomicInteger ok = new AtomicInteger();
        for (int i = 0; i < 64; i++) {
            pool.execute(() -> {
                all.countDown();
                try {
                    if (all.await(20, TimeUnit.SECONDS)) {
                        ok.incrementAndGet();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        Awaitility.await().atMost(WAIT).until(() -> ok.get() == 64);
    }

    @Test
    void threadsHeldPastTheCoreAreAddedAndEndAfterKeepAliveDownToTheCoreExactly() throws Exception {
        pool = new HandlerPool(2, 100, TimeUnit.MILLISECONDS, factory, Ticker.SYSTEM);
        pool.prestart();
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch holding = new CountDownLatch(8);
        for (int i = 0; i < 8; i++) { // eight jobs that hold their threads: six more than the core
            pool.execute(() -> {
                holding.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        assertThat(holding.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThat(threads).hasSize(8);
        release.countDown();
        // All eight go idle at once and their keep-alives run out together: the extra ones end, never the core.
        Awaitility.await().atMost(WAIT).until(() -> threads.size() <= 2);
        Awaitility.await().during(Duration.ofMillis(500)).atMost(WAIT).until(() -> threads.size() == 2);
        AtomicInteger after = new AtomicInteger();
        pool.execute(after::incrementAndGet);
        Awaitility.await().atMost(WAIT).until(() -> after.get() == 1);
    }

    @Test
    void aJobThatThrowsLeavesItsThreadWorking() {
        pool = new HandlerPool(1, 60, TimeUnit.SECONDS, factory, Ticker.SYSTEM);
        AtomicInteger done = new AtomicInteger();
        for (int i = 0; i < 100; i++) {
            pool.execute(() -> {
                throw new IllegalStateException("a broken job");
            });
            pool.execute(done::incrementAndGet);
        }
        Awaitility.await().atMost(WAIT).until(() -> done.get() == 100);
    }

    @Test
    void shutdownInterruptsRunningJobsEndsEveryThreadAndRefusesNewJobs() throws Exception {
        pool = new HandlerPool(4, 60, TimeUnit.SECONDS, factory, Ticker.SYSTEM);
        pool.prestart();
        CountDownLatch running = new CountDownLatch(2);
        AtomicInteger interrupted = new AtomicInteger();
        for (int i = 0; i < 2; i++) {
            pool.execute(() -> {
                running.countDown();
                try {
                    Thread.sleep(60_000);
                } catch (InterruptedException e) {
                    interrupted.incrementAndGet();
                }
            });
        }
        assertThat(running.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        pool.shutdownNow();
        Awaitility.await().atMost(WAIT).until(() -> interrupted.get() == 2 && threads.isEmpty());
        assertThatThrownBy(() -> pool.execute(() -> { })).isInstanceOf(RejectedExecutionException.class);
    }
}
