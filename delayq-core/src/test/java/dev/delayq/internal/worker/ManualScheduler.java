package dev.delayq.internal.worker;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A timer whose tasks run when the test says, once the fake ticker has passed their time. */
final class ManualScheduler implements Scheduler {
    private final Ticker ticker;
    private final List<long[]> due = new ArrayList<>();
    private final List<Runnable> tasks = new ArrayList<>();

    ManualScheduler(Ticker ticker) {
        this.ticker = ticker;
    }

    @Override
    public synchronized void schedule(Runnable task, long delay, TimeUnit unit) {
        due.add(new long[] {ticker.nanos() + unit.toNanos(delay)});
        tasks.add(task);
    }

    /** Tasks scheduled and not yet run. */
    synchronized int pending() {
        return tasks.size();
    }

    /** The delay of the earliest pending task from now, in ns. */
    synchronized long nextDelayNanos() {
        long min = Long.MAX_VALUE;
        for (long[] d : due) {
            min = Math.min(min, d[0] - ticker.nanos());
        }
        return min;
    }

    /** Runs every task whose time has come (on this thread); returns how many ran. */
    int runDue() {
        List<Runnable> ready = new ArrayList<>();
        synchronized (this) {
            for (int i = 0; i < tasks.size(); i++) {
                if (due.get(i)[0] - ticker.nanos() <= 0) {
                    ready.add(tasks.remove(i));
                    due.remove(i);
                    i--;
                }
            }
        }
        ready.forEach(Runnable::run);
        return ready.size();
    }
}
