package dev.delayq.cli;

import dev.delayq.JobEvent;
import dev.delayq.JobQueue;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code delayq events QUEUE}: a queue's event stream: turn it on or off, print it, follow it. */
@Command(name = "events", mixinStandardHelpOptions = true,
        description = {"Print a queue's events (every state change of every job, written by the script that made it), "
                + "oldest first: one line each, '<event id> <type> <job id> key=value...', the fields always in the "
                + "order at, attempt, token, stalls, progress (then any other, by name), times in ISO-8601 UTC, a job id "
                + "or value with blanks, quotes, backslashes or unprintable characters in double quotes with backslash "
                + "escapes; with "
                + "--json one object per line (keys eventId, type, id, time (when it happened, ISO-8601), at (epoch ms: "
                + "the time the event names, such as the new due time, else when it happened) and the event's own "
                + "fields, numbers as JSON numbers).",
                "The stream is off until --enable turns it on (it then keeps the last --cap events, 10000 by default: "
                        + "the oldest go first); --disable turns it off and deletes it. Types: enqueued, started, "
                        + "completed, retried, dead, cancelled, deleted, recovered, released, rescheduled, revived, "
                        + "replaced (a debounce enqueue replaced the job), progress.",
                "--follow keeps printing new events until stopped (Ctrl-C or SIGTERM), or until --limit events were "
                        + "printed.",
                "A queue that is not known (no job was ever enqueued to it) is refused with exit 2 and nothing is "
                        + "written; --create creates it (e.g. to turn its events on before its first job)."},
        footer = {"", "Examples:", "  delayq events orders --enable", "  delayq events imports --enable --create",
                "  delayq events orders --follow --from '$'", "  delayq events orders --follow --from '$' --limit 1",
                "  delayq events orders --json --from 1764547200000-0 | jq .type"})
public final class EventsCommand implements Callable<Integer> {
    /** Events printed without --limit and without --follow. */
    static final int DEFAULT_LIMIT = 1000;
    /** Events read per call: the most one read returns. */
    private static final int PAGE = 10_000;
    /** The fields of an event in the order they are printed; others follow, by name. */
    private static final List<String> ORDER = List.of("at", "attempt", "token", "stalls", "progress");
    /** Fields holding an instant in epoch ms: printed in ISO-8601 in text. */
    private static final Set<String> TIMES = Set.of("at");
    /** Fields holding a whole number: JSON numbers with --json. Progress stays text (it may be JSON text). */
    private static final Set<String> NUMBERS = Set.of("at", "attempt", "token", "stalls");
    /** ISO-8601 in UTC, always with milliseconds, so that lines line up. */
    private static final DateTimeFormatter ISO = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'")
            .withZone(ZoneOffset.UTC);

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

    @Option(names = "--limit", paramLabel = "N",
            description = "Print at most N events (at least 1), then exit. Default: " + DEFAULT_LIMIT
                    + "; with --follow, no limit.")
    Integer limit;

    @Option(names = "--follow", description = "Keep printing new events until stopped (or until --limit events).")
    boolean follow;

    @Option(names = "--create", description = "Create the queue if it is not known (without it an unknown queue is "
            + "refused and nothing is written).")
    boolean create;

    /** Events printed so far (--follow prints from the listener's thread). */
    private long printed;

    @Override
    public Integer call() throws Exception {
        if (enable && disable) {
            throw new IllegalArgumentException("give --enable or --disable, not both");
        }
        if (limit != null && limit < 1) {
            throw new IllegalArgumentException("--limit is " + limit + ": it must be at least 1 (leave it out for "
                    + (follow ? "no limit" : DEFAULT_LIMIT + " events") + ")");
        }
        JobQueue q = main.knownQueue(queue, create, enable || disable
                ? "Nothing was changed: --create creates the queue" + (enable ? " and turns its events on" : "")
                : "A queue that does not exist has no events to show (--create creates it)");
        if (enable) {
            q.inspector().events(cap);
            main.err().println("events of " + queue + " on (keeping the last " + cap + ")");
            return Exit.OK;
        }
        if (disable) {
            q.inspector().events(false);
            main.err().println("events of " + queue + " off (stream deleted)");
            return Exit.OK;
        }
        if (!q.inspector().events().enabled()) {
            main.err().println("delayq: note: events of queue '" + queue + "' are off (turn them on with --enable)");
        }
        if (!follow) {
            // Page by page, so that any --limit works (one read returns at most PAGE events).
            long wanted = limit != null ? limit : DEFAULT_LIMIT;
            String after = from;
            while (printed < wanted) {
                List<JobEvent> page = q.inspector().events().read(after, (int) Math.min(PAGE, wanted - printed));
                page.forEach(this::print);
                if (page.isEmpty()) {
                    break;
                }
                after = page.get(page.size() - 1).eventId();
            }
            return Exit.OK;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Thread hook = new Thread(stopped::countDown, "delayq-events-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        try (AutoCloseable listening = q.inspector().events().listen(from, e -> {
            synchronized (this) {
                // Events the listener delivers after the last one wanted (it reads ahead) are not printed.
                if (limit == null || printed < limit) {
                    print(e);
                    if (limit != null && printed == limit) {
                        stopped.countDown();
                    }
                }
            }
        })) {
            stopped.await();
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // stopped by a signal: the hook is running or has run
            }
        }
        return Exit.OK;
    }

    private void print(JobEvent e) {
        printed++;
        if (main.json()) {
            main.out().println(Json.line(json(e)));
        } else {
            main.out().println(text(e));
        }
        main.out().flush();
    }

    /**
     * {@code <event id> <type> <job id> key=value...}, the fields in {@link #ORDER}, times in ISO-8601; the job id and
     * the values (a progress text, say) as {@link Text#field}s, quoted when they hold blanks or the like.
     */
    static String text(JobEvent e) {
        StringBuilder b = new StringBuilder(e.eventId()).append(' ').append(Text.field(e.type())).append(' ')
                .append(Text.field(e.jobId()));
        for (String k : ordered(e.fields())) {
            String v = e.fields().get(k);
            b.append(' ').append(Text.field(k)).append('=').append(Text.field(TIMES.contains(k) ? time(v) : v));
        }
        return b.toString();
    }

    /**
     * {@code eventId, type, id, time} (when it happened, ISO-8601), {@code at} (epoch ms: the event's own {@code at}
     * when it has one, else when it happened) and the other fields, numbers as JSON numbers.
     */
    static Map<String, Object> json(JobEvent e) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("eventId", e.eventId());
        m.put("type", e.type());
        m.put("id", e.jobId());
        m.put("time", ISO.format(e.at()));
        m.put("at", e.at().toEpochMilli());
        for (String k : ordered(e.fields())) {
            String v = e.fields().get(k);
            m.put(k, NUMBERS.contains(k) ? number(v) : v);
        }
        return m;
    }

    /** The field names in {@link #ORDER}, then the others by name (the stream's own order is lost in its map). */
    private static List<String> ordered(Map<String, String> fields) {
        List<String> out = new ArrayList<>();
        for (String k : ORDER) {
            if (fields.containsKey(k)) {
                out.add(k);
            }
        }
        fields.keySet().stream().filter(k -> !ORDER.contains(k)).sorted().forEach(out::add);
        return out;
    }

    private static String time(String epochMillis) {
        Object n = number(epochMillis);
        return n instanceof Long ms ? ISO.format(Instant.ofEpochMilli(ms)) : epochMillis;
    }

    /** The value as a long, or as it is when it is not a whole number (written by something else than delayq). */
    private static Object number(String v) {
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            return v;
        }
    }
}
