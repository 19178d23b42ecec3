package dev.delayq.bench;

import dev.delayq.DelayQ;
import dev.delayq.Worker;
import java.util.ArrayList;
import java.util.List;

/**
 * The consumers of a workload: {@code --consumers} workers in this JVM, each with its own delayq client (its
 * own connection, as separate consumer processes would have), all recording into one {@link Recorder}.
 */
final class Consumers implements AutoCloseable {
    private final List<DelayQ> clients = new ArrayList<>();
    private final List<Worker> workers = new ArrayList<>();

    private Consumers() {
    }

    /** Starts the consumers of {@code queue}. */
    static Consumers start(BenchContext ctx, String queue, Recorder recorder) {
        BenchConfig config = ctx.config();
        Consumers c = new Consumers();
        try {
            for (int i = 1; i <= config.consumers(); i++) {
                DelayQ client = ctx.client("consumer-" + i);
                c.clients.add(client);
                Worker w = Worker.builder(client.queue(queue, config.partitions()), recorder::started)
                        .concurrency(config.concurrency())
                        .batchSize(config.batch())
                        .lookahead(config.lookahead())
                        .name("bench-" + queue + "-" + i)
                        .build();
                c.workers.add(w);
                w.start();
            }
            return c;
        } catch (RuntimeException e) {
            c.close();
            throw e;
        }
    }

    /** Stops the workers (gracefully: outstanding acknowledgements are sent) and closes their clients. */
    @Override
    public void close() {
        RuntimeException failure = null;
        for (AutoCloseable c : concat()) {
            try {
                c.close();
            } catch (Exception e) {
                if (failure == null) {
                    failure = e instanceof RuntimeException re ? re : new IllegalStateException(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    private List<AutoCloseable> concat() {
        List<AutoCloseable> all = new ArrayList<>(workers);
        all.addAll(clients); // workers first: a client must outlive its workers
        return all;
    }
}
