package dev.delayq.spring;

import dev.delayq.DelayQ;
import dev.delayq.Worker;
import dev.delayq.WorkerMetrics;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Runs the {@link DelayqListener} and {@link DelayqScheduled} methods of each queue as one {@link Worker}, after
 * applying {@code delayq.queues.*} and upserting the declared schedules: built and started when the context is ready,
 * closed gracefully on shutdown (all at once, each stops claiming, lets running handlers finish within its
 * shutdown grace and hands the rest back), before the {@link DelayQ} bean they use is closed.
 *
 * <p>It stops in the first shutdown phase, before the web server's graceful shutdown, so requests still being
 * served can enqueue until the end.
 */
public class DelayqWorkers implements SmartLifecycle, DisposableBean {
    private static final Logger LOG = LoggerFactory.getLogger(DelayqWorkers.class);

    private final DelayqClient client;
    private final DelayqProperties properties;
    private final DelayqListenerBeanPostProcessor listeners;
    private final DelayqPayloadConverter converter;
    private final WorkerMetrics metrics;
    private final ConfigurableBeanFactory beanFactory;
    private final List<Worker> workers = new ArrayList<>();
    private final ExecutorService executor;
    private volatile DelayqObservations observations = DelayqObservations.NONE;
    private volatile boolean running;
    private boolean stopped;

    /**
     * Workers for the listeners found by {@code listeners}, on {@code delayQ}.
     *
     * @param metrics     where the workers' measurements go ({@link WorkerMetrics#NONE} for nowhere)
     * @param beanFactory resolves {@code ${...}} placeholders of the listener attributes
     */
    public DelayqWorkers(DelayQ delayQ, DelayqProperties properties, DelayqListenerBeanPostProcessor listeners,
                         DelayqPayloadConverter converter, WorkerMetrics metrics, ConfigurableBeanFactory beanFactory) {
        this(DelayqClient.of(delayQ), properties, listeners, converter, metrics, beanFactory);
    }

    /**
     * Workers for the listeners found by {@code listeners}, on {@code client}: started at once when it is connected,
     * else when it connects ({@code delayq.require-redis-at-startup=false}).
     */
    public DelayqWorkers(DelayqClient client, DelayqProperties properties, DelayqListenerBeanPostProcessor listeners,
                         DelayqPayloadConverter converter, WorkerMetrics metrics, ConfigurableBeanFactory beanFactory) {
        this.client = client;
        this.properties = properties;
        this.listeners = listeners;
        this.converter = converter;
        this.metrics = metrics;
        this.beanFactory = beanFactory;
        this.executor = VirtualThreads.executorIf(beanFactory);
    }

    /** Observes every run of a listener method with {@code observations} (before {@link #start()}). */
    DelayqWorkers observedBy(DelayqObservations observations) {
        this.observations = observations == null ? DelayqObservations.NONE : observations;
        return this;
    }

    /**
     * Checks the listener and scheduled methods and {@code delayq.queues.*}; then, now if Redis has been reached or
     * else as soon as it is, sets the queues up, upserts the declared schedules and builds and starts a worker per
     * queue with listener or scheduled methods.
     *
     * @throws IllegalArgumentException naming the method or property and the attribute that is invalid, or the two
     *                                  methods of one queue and job name (nothing stays started)
     */
    @Override
    public synchronized void start() {
        if (running) {
            return;
        }
        EndpointAttributes attributes = new EndpointAttributes(beanFactory);
        QueuePlan plan = QueuePlan.of(listeners.endpoints(), attributes);
        List<DeclaredSchedules.Declared> schedules = DeclaredSchedules.of(plan, properties, attributes);
        for (String queue : properties.getQueues().keySet()) {
            QueueSetup.limits(queue, properties.getQueues().get(queue)); // every setting checked before any is applied
        }
        stopped = false;
        if (!client.connected() && !plan.groups().isEmpty()) {
            LOG.warn("delayq: Redis has not been reached yet: the workers of {} start when it is", plan.groups().keySet());
        }
        client.whenConnected(d -> startOn(d, plan, schedules));
        running = true;
    }

    private synchronized void startOn(DelayQ delayQ, QueuePlan plan, List<DeclaredSchedules.Declared> schedules) {
        if (stopped) {
            return; // stopped before Redis was reached
        }
        try {
            List<Worker> built = new ArrayList<>();
            for (QueuePlan.Group g : plan.groups().values()) {
                built.add(plan.build(g, delayQ, properties, converter, metrics, executor, observations));
            }
            OperatorCalls ops = new OperatorCalls(delayQ);
            QueueSetup.apply(ops, properties.getQueues());
            DeclaredSchedules.apply(ops, schedules, plan.groups().keySet(), properties.getScheduleRemoval());
            for (Worker w : built) {
                workers.add(w);
                w.start();
                LOG.info("delayq: {} run{} the jobs of queue '{}' (worker {}{})", plan.groups().get(w.queue()).describe(),
                        plan.groups().get(w.queue()).all().size() == 1 ? "s" : "", w.queue(), w.name(),
                        executor != null ? ", virtual threads" : "");
            }
        } catch (RuntimeException ex) {
            closeAll();
            running = false;
            throw ex;
        }
    }

    /** Closes every worker at once (each within its shutdown grace) and returns when all are closed. */
    @Override
    public synchronized void stop() {
        running = false;
        stopped = true;
        closeAll();
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return SmartLifecycle.DEFAULT_PHASE;
    }

    /** Also on context close without a stop (a failed refresh): the workers never outlive the client. */
    @Override
    public synchronized void destroy() {
        running = false;
        stopped = true;
        closeAll();
        if (executor != null) {
            executor.shutdown(); // the workers are closed: no handler runs on it any more
        }
    }

    /** The workers running the listeners (empty before start and after stop). */
    public synchronized List<Worker> workers() {
        return List.copyOf(workers);
    }

    private void closeAll() {
        List<Thread> closers = new ArrayList<>();
        for (Worker w : workers) {
            Thread t = new Thread(w::close, "delayq-close-" + w.name());
            t.start();
            closers.add(t);
        }
        boolean interrupted = false;
        for (Thread t : closers) {
            while (true) {
                try {
                    t.join();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true; // finish closing: a half-closed worker would lose its hand-back
                }
            }
        }
        workers.clear();
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
