package dev.delayq.cli;

import dev.delayq.JobEvent;
import dev.delayq.JobQueue;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code delayq events QUEUE}: a queue's event stream: turn it on or off, print it, follow it. */
@Command(name = "events", mixinStandardHelpOptions = true,
        description = {"Print a queue's events (every state change of every job, written by the script that made it), "
                + "oldest first: one line each, '<event id> <type> <job id> key=value...'; with --json one object per "
                + "line (keys eventId, type, id, at and the event's own fields).",
                "The stream is off until --enable turns it on (it then keeps the last --cap events, 10000 by default: "
                        + "the oldest go first); --disable turns it off and deletes it. Types: enqueued, started, "
                        + "completed, retried, dead, cancelled, deleted, recovered, released, rescheduled, revived, "
                        + "progress.",
                "--follow keeps printing new events until stopped (Ctrl-C or SIGTERM).",
                "A queue that is not known (no job was ever enqueued to it) is refused with exit 2 and nothing is "
                        + "written; --create creates it (e.g. to turn its events on before its first job)."},
        footer = {"", "Examples:", "  delayq events orders --enable", "  delayq events imports --enable --create",
                "  delayq events orders --follow --from '$'",
                "  delayq events orders --json --from 1764547200000-0 | jq .type"})
public final class EventsCommand implements Callable<Integer> {
    @ParentCommand
    Main main;

    @Parameters(index = "0", paramLabel = "QUEUE", description = "Queue name.")
    String queue;

    @Option(names = "--enable", description = "Turn the event stream on.")
    boolean enable;

    @Option(names = "--cap", paramLabel = "N", defaultValue = "10000",
            description = "With --enable: events kept (default: ${DEFAULT-VALUE}).")
    int cap;

    @Option(names = "--disable", description = "Turn the event stream off and delete it.")
    boolean disable;

    @Option(names = "--from", paramLabel = "ID", defaultValue = "0",
            description = "Print events after this id: 0 (the oldest kept, default), $ (only new ones) or an event id.")
    String from;

    @Option(names = "--limit", paramLabel = "N", defaultValue = "1000",
            description = "Without --follow: at most this many events (default: ${DEFAULT-VALUE}).")
    int limit;

    @Option(names = "--follow", description = "Keep printing new events until stopped.")
    boolean follow;

    @Option(names = "--create", description = "Create the queue if it is not known (without it an unknown queue is "
            + "refused and nothing is written).")
    boolean create;

    @Override
    public Integer call() throws Exception {
        if (enable && disable) {
            throw new IllegalArgumentException("give --enable or --disable, not both");
        }
        JobQueue q = main.knownQueue(queue, create, enable || disable
                ? "Nothing was changed: --create creates the queue" + (enable ? " and turns its events on" : "")
                : "A queue that does not exist has no events to show (--create creates it)");
        if (enable) {
            q.events(cap);
            main.err().println("events of " + queue + " on (keeping the last " + cap + ")");
            return Exit.OK;
        }
        if (disable) {
            q.events(false);
            main.err().println("events of " + queue + " off (stream deleted)");
            return Exit.OK;
        }
        if (!q.events().enabled()) {
            main.err().println("delayq: note: events of queue '" + queue + "' are off (turn them on with --enable)");
        }
        if (!follow) {
            List<JobEvent> events = q.events().read(from, Math.max(1, Math.min(limit, 10_000)));
            events.forEach(this::print);
            return Exit.OK;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Thread hook = new Thread(stopped::countDown, "delayq-events-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        try (AutoCloseable listening = q.events().listen(from, e -> {
            synchronized (this) {
                print(e);
            }
        })) {
            stopped.await();
        }
        return Exit.OK;
    }

    private void print(JobEvent e) {
        if (main.json()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("eventId", e.eventId());
            m.put("type", e.type());
            m.put("id", e.jobId());
            m.put("at", e.at().toString());
            m.putAll(e.fields());
            main.out().println(Json.line(m));
        } else {
            StringBuilder b = new StringBuilder(e.eventId()).append(' ').append(e.type()).append(' ').append(e.jobId());
            e.fields().forEach((k, v) -> b.append(' ').append(k).append('=').append(v));
            main.out().println(b);
        }
        main.out().flush();
    }
}
