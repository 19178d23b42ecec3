package dev.delayq.dashboard;

import dev.delayq.DelayQ;
import dev.delayq.QueueInspector;
import dev.delayq.QueueStats;
import dev.delayq.WorkerInfo;
import dev.delayq.internal.present.JobFields;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The workers part of the API: {@code GET /api/workers} (every live worker of every queue, by their heartbeats), the
 * {@code workers} count and the {@code unattended} flag of a queue's counts, and the worker running each job of a
 * processing page. The processing record holds no owner: a job's worker is the one whose last heartbeat lists it.
 */
final class WorkersApi {
    private final Supplier<? extends DelayQ> client;

    WorkersApi(Supplier<? extends DelayQ> client) {
        this.client = client;
    }

    void routes(Routes r) {
        r.get("/api/workers", this::workers);
    }

    /**
     * Every live worker once (a worker of several queues beats into each queue's registry), by name, then id:
     * {@code id, name, host, pid, queues, concurrency, running} ({@code id}, {@code startedAt}, and {@code queue} when
     * known), {@code startedAt, lastBeat, version}.
     */
    private void workers(Exchange ctx) {
        DelayQ dq = client.get();
        Map<String, Map<String, Object>> byId = new LinkedHashMap<>();
        for (String name : dq.queues()) {
            for (WorkerInfo w : dq.inspector(name).workers()) {
                byId.computeIfAbsent(w.id(), id -> JobFields.worker(w));
            }
        }
        List<Map<String, Object>> all = new ArrayList<>(byId.values());
        all.sort((a, b) -> {
            int c = String.valueOf(a.get("name")).compareTo(String.valueOf(b.get("name")));
            return c != 0 ? c : String.valueOf(a.get("id")).compareTo(String.valueOf(b.get("id")));
        });
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("workers", all);
        m.put("serverTime", dq.serverTime().toString());
        Api.json(ctx, m);
    }

    /**
     * A queue's counts ({@link JobFields#stats(QueueStats, int)}, with {@code workers}) and {@code unattended}: jobs are
     * due now and no live worker runs them.
     */
    static Map<String, Object> stats(QueueInspector q) {
        return stats(q.stats(), q);
    }

    /**
     * {@link #stats(QueueInspector)} of counts {@code s} already read (the overview reads every queue's at once, with
     * its live workers: {@link QueueStats#workers()}; counts read without them list the queue's workers).
     */
    static Map<String, Object> stats(QueueStats s, QueueInspector q) {
        int workers = s.workers() >= 0 ? (int) s.workers() : q.workers().size();
        Map<String, Object> m = JobFields.stats(s, workers);
        m.put("unattended", JobFields.unattended(s, workers));
        return m;
    }

    /**
     * Adds to each job of a processing page {@code worker} (the name of the worker whose heartbeat lists it, null when
     * none does yet: heartbeats come every few seconds) and {@code runningSince} (when its handler started it).
     */
    static void annotate(QueueInspector q, List<Map<String, Object>> jobs) {
        Map<String, String[]> running = new HashMap<>();
        for (WorkerInfo w : q.workers()) {
            for (WorkerInfo.RunningJob r : w.running()) {
                running.put(r.id(), new String[] {w.name(), r.startedAt().toString()});
            }
        }
        for (Map<String, Object> j : jobs) {
            String[] who = running.get(String.valueOf(j.get("id")));
            j.put("worker", who != null ? who[0] : null);
            j.put("runningSince", who != null ? who[1] : null);
        }
    }
}
