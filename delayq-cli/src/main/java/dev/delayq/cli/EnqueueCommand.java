package dev.delayq.cli;

import dev.delayq.DedupeMode;
import dev.delayq.EnqueueResult;
import dev.delayq.Job;
import dev.delayq.OnParentDead;
import dev.delayq.ParentRef;
import dev.delayq.internal.base.Validation;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code delayq enqueue QUEUE}: one job from the options, or many from a JSON Lines file ({@code --jsonl}),
 * printing {@code created <id>} or {@code duplicate <id>} per job.
 */
@Command(name = "enqueue", mixinStandardHelpOptions = true,
        description = {"Enqueue a job and print 'created <id>', or 'duplicate <id>' (the id of the job that exists) "
                + "when the id or the dedupe key is taken, or with --dedupe-mode debounce 'replaced <id>' (the id of the "
                + "scheduled job whose payload, options and due time it replaced).",
                "When that job has ended or no longer exists the line says so, e.g. 'duplicate X (dedupe key held "
                        + "until 2026-12-01T10:00:00Z by done job X)'; --json adds the keys ownerState (the owner's state, "
                        + "'gone' when it no longer exists) and heldUntil.",
                "With --jsonl, enqueue one job per line of a JSON Lines file (keys: id, name, payload, delay or at, "
                        + "maxAttempts, dedupeKey, dedupeTtl, dedupeMode; a payload that is a JSON object, array, number or boolean "
                        + "is stored as its JSON text), streaming one result line per job in file order; "
                        + "a bad line is reported on stderr by its number and the others are enqueued (exit 1).",
                "Durations: 250ms, 30s, 5m, 2h, 7d, 1h30m or ISO-8601 (PT30S); instants: ISO-8601 with a zone.",
                "Tracing: the job carries the W3C context in TRACEPARENT (and TRACESTATE) of the environment; any "
                        + "OTEL_* variable turns on OpenTelemetry, and the enqueue's span, a child of TRACEPARENT, is "
                        + "what the job carries (docs/tracing.md)."},
        footer = {"", "Examples:",
                "  delayq enqueue orders --id order-731 --delay 30m --payload '{\"order\":731}'",
                "  cat mail.eml | delayq enqueue mail --name welcome --at 2026-12-01T09:00:00Z --payload -",
                "  delayq enqueue reports --id summary --after part-1,part-2,part-3 --on-parent-dead ignore",
                "  delayq enqueue orders --jsonl jobs.jsonl   # {\"id\":\"a\",\"delay\":\"5m\",\"payload\":{\"n\":1}} a line"})
public final class EnqueueCommand implements Callable<Integer> {
    @ParentCommand
    Main main;

    @Parameters(index = "0", paramLabel = "QUEUE", description = "Queue name.")
    String queue;

    @Option(names = "--id", paramLabel = "ID",
            description = "Stable business id (e.g. order-731:timeout); enqueueing it again reports a duplicate. "
                    + "Default: a generated id.")
    String id;

    @Option(names = "--name", paramLabel = "NAME",
            description = "The job's name, i.e. its type (e.g. email): a worker with a handler per name runs it with "
                    + "that handler; 'work --exec' passes it as $DELAYQ_JOB_NAME. Default: none.")
    String name;

    @ArgGroup(exclusive = true)
    When when;

    @Option(names = "--priority", paramLabel = "N",
            description = "0 (default) to 9: among the queue's due jobs, higher priorities are claimed first; a job that "
                    + "is not due yet never runs early for its priority.")
    Integer priority;

    @Option(names = "--group", paramLabel = "G",
            description = "The job's group, e.g. a tenant id (1-128 letters, digits and . _ - : @ / + =): due jobs are "
                    + "claimed one per group per turn, so one group's backlog never holds the others back "
                    + "(docs/groups.md); 'work --exec' passes it as $DELAYQ_JOB_GROUP. Default: none.")
    String group;

    @Option(names = "--job-timeout", paramLabel = "DUR", converter = Durations.DurationConverter.class,
            description = "How long one run may take (1ms to 1d, as the worker's --job-timeout) before the worker stops "
                    + "it and counts a failure 'timed out after DUR'. Default: the worker's --job-timeout.")
    Duration timeout;

    /** When the job falls due: after a delay or at an instant (default: at once). */
    static final class When {
        @Option(names = "--delay", paramLabel = "DUR", converter = Durations.DurationConverter.class,
                description = "Due after this delay, on the Redis server's clock.")
        Duration delay;

        @Option(names = "--at", paramLabel = "INSTANT", converter = Durations.InstantConverter.class,
                description = "Due at this instant (ISO-8601 with a zone).")
        Instant at;
    }

    @ArgGroup(exclusive = true)
    Payload payload;

    /** Where the payload comes from (default: empty). */
    static final class Payload {
        @Option(names = "--payload", paramLabel = "TEXT",
                description = "Payload as text (UTF-8); '-' reads the payload from stdin, byte for byte.")
        String text;

        @Option(names = "--payload-file", paramLabel = "FILE", description = "Payload read from a file, byte for byte.")
        Path file;
    }

    @Option(names = "--max-attempts", paramLabel = "N",
            description = "Attempts allowed for this job, 1 to 1000000 (as 'schedule add --max-attempts'). Default: the "
                    + "worker's retry policy.")
    Integer maxAttempts;

    @ArgGroup(exclusive = false)
    Dedupe dedupe;

    /** A dedupe key, how long it holds and what a later job with it does; the TTL is optional in debounce mode. */
    static final class Dedupe {
        @Option(names = "--dedupe-key", paramLabel = "KEY", required = true,
                description = "While it holds, any job enqueued with this key is a duplicate of the first "
                        + "(--dedupe-mode throttle) or replaces it while it waits (--dedupe-mode debounce).")
        String key;

        @Option(names = "--dedupe-ttl", paramLabel = "DUR", converter = Durations.DurationConverter.class,
                description = "How long the dedupe key holds (even after the job is gone); required but with "
                        + "--dedupe-mode debounce.")
        Duration ttl;

        @Option(names = "--dedupe-mode", paramLabel = "MODE", converter = DedupeModes.class,
                description = "throttle (default: the first job holds the key for its TTL; later ones are duplicates) "
                        + "or debounce (while the key's job is still scheduled, a later job replaces its payload, options "
                        + "and due time, keeping its id: prints 'replaced ID'; a job already running is left alone and "
                        + "the new one is created beside it, holding the key).")
        DedupeMode mode;
    }

    /** {@code throttle} or {@code debounce}, as typed. */
    static final class DedupeModes implements picocli.CommandLine.ITypeConverter<DedupeMode> {
        @Override
        public DedupeMode convert(String value) {
            return parse(value, "--dedupe-mode");
        }

        static DedupeMode parse(String value, String what) {
            return switch (value) {
                case "throttle" -> DedupeMode.THROTTLE;
                case "debounce" -> DedupeMode.DEBOUNCE;
                default -> throw new IllegalArgumentException(what + " is '" + value + "': allowed are throttle and debounce");
            };
        }
    }

    @Option(names = "--after", paramLabel = "P1,P2,...", split = ",",
            description = "Parents: ids of jobs of this queue (at most 1000, each existing) that must all finish first. "
                    + "Until then the job is waiting; the last parent's completion releases it, and --delay counts "
                    + "from then. A done parent counts at once. Not on a queue with partitions (docs/flows.md).")
    java.util.List<String> after;

    @Option(names = "--after-in", paramLabel = "QUEUE/ID,...", split = ",",
            description = "Parents in other queues, or on a partitioned queue in its own, each written QUEUE/ID (a queue name has no "
                    + "'/', so the first one ends it), e.g. payments/p7: counted as --after's are; a worker of the "
                    + "parent's queue releases the job, woken by the parent's end (docs/flows.md).")
    java.util.List<String> afterIn;

    @Option(names = "--on-parent-dead", paramLabel = "POLICY",
            description = "What a dead, cancelled or deleted parent does: 'dead' (default: the job goes dead, error "
                    + "'parent P is dead', and its own waiting children after it) or 'ignore' (it counts as finished: "
                    + "the job runs once every parent has finished, whatever their outcome).")
    String onParentDead;

    @Option(names = "--jsonl", paramLabel = "FILE",
            description = "Enqueue one job per line of this JSON Lines file ('-' for stdin) instead of one job "
                    + "from the options.")
    String jsonl;

    @Override
    public Integer call() throws IOException {
        String[] parent = CliTracing.parent(main.env()); // $TRACEPARENT/$TRACESTATE, checked before connecting
        CliTracing tracing = main.tracing();
        if (jsonl != null) {
            return enqueueLines(tracing, parent);
        }
        // Validated before connecting, so bad input never waits for Redis. Traced, the job carries the enqueue's span
        // (a child of $TRACEPARENT); untraced, $TRACEPARENT itself.
        Job job = tracing.carry(buildJob(), parent);
        EnqueueResult r;
        try (CliTracing.Current ignored = tracing.current(parent)) {
            r = main.queue(queue, true).enqueue(job);
        }
        print(r);
        return Exit.OK;
    }

    private Job buildJob() throws IOException {
        Job.Builder b = Job.builder().payload(readPayload());
        if (id != null) {
            b.id(id);
        }
        if (name != null) {
            b.name(name);
        }
        if (when != null && when.delay != null) {
            b.delay(when.delay);
        } else if (when != null) {
            b.runAt(when.at);
        }
        if (maxAttempts != null) {
            b.maxAttempts(maxAttempts);
        }
        if (priority != null) {
            b.priority(priority);
        }
        if (group != null) {
            b.group(group);
        }
        if (timeout != null) {
            // The core's rule (the worker's bound too), named as the option.
            b.timeout(Validation.jobTimeout("--job-timeout", timeout));
        }
        if (dedupe != null) {
            DedupeMode mode = dedupe.mode != null ? dedupe.mode : DedupeMode.THROTTLE;
            if (dedupe.ttl == null && mode == DedupeMode.THROTTLE) {
                throw new IllegalArgumentException("--dedupe-key needs --dedupe-ttl DUR (how long the key holds) in "
                        + "--dedupe-mode throttle, the default; with --dedupe-mode debounce it is optional");
            }
            b.dedupe(dedupe.key, dedupe.ttl).dedupeMode(mode);
        }
        if (after != null) {
            b.after(after);
        }
        if (afterIn != null) {
            for (String ref : afterIn) {
                ParentRef p = ParentRef.parse(ref);
                b.afterIn(p.queue(), p.id());
            }
        }
        if (onParentDead != null) {
            b.onParentDead(switch (onParentDead) {
                case "ignore" -> OnParentDead.IGNORE;
                case "dead" -> OnParentDead.DEAD;
                default -> throw new IllegalArgumentException("--on-parent-dead is '" + onParentDead
                        + "': use dead (the default) or ignore");
            });
        }
        return b.build();
    }

    private byte[] readPayload() throws IOException {
        if (payload == null) {
            return new byte[0];
        }
        if (payload.file != null) {
            try (InputStream in = openPayload(payload.file)) {
                return readLimited(in, "--payload-file '" + payload.file + "'");
            }
        }
        if (payload.text.equals("-")) {
            return readLimited(System.in, "the payload on stdin (--payload -)");
        }
        byte[] text = payload.text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        if (text.length > main.maxPayloadBytes()) {
            throw new CliException(Exit.USAGE, "--payload is " + text.length + " bytes: " + main.payloadLimitHint());
        }
        return text;
    }

    /**
     * Reads at most the payload limit plus one byte, so that an endless input ({@code /dev/zero}) or a huge one
     * costs no more memory than the limit.
     */
    private byte[] readLimited(InputStream in, String what) throws IOException {
        int limit = main.maxPayloadBytes();
        byte[] bytes = in.readNBytes(limit + 1);
        if (bytes.length > limit) {
            throw new CliException(Exit.USAGE, what + " is too large: " + main.payloadLimitHint());
        }
        return bytes;
    }

    private static InputStream openPayload(Path file) {
        try {
            return Files.newInputStream(file);
        } catch (IOException e) {
            throw new CliException(Exit.USAGE, "cannot read payload file '" + file + "': " + reason(e));
        }
    }

    private void print(EnqueueResult r) {
        if (main.json()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("result", r.created() ? "created" : r.replaced() ? "replaced" : "duplicate");
            m.put("id", r.id());
            Duplicates.put(m, r);
            main.out().println(Json.line(m));
        } else {
            main.out().println(r.replaced() ? "replaced " + r.id()
                    : (r.created() ? "created " : "duplicate ") + r.id() + Duplicates.note(r));
        }
    }

    private int enqueueLines(CliTracing tracing, String[] parent) throws IOException {
        if (id != null || name != null || when != null || payload != null || maxAttempts != null || dedupe != null
                || priority != null || timeout != null || after != null || afterIn != null || onParentDead != null
                || group != null) {
            throw new IllegalArgumentException("--jsonl takes every job from the file: it cannot be combined with "
                    + "--id, --name, --delay, --at, --payload, --payload-file, --max-attempts, --priority, --group, "
                    + "--job-timeout, --after, --after-in, --on-parent-dead or --dedupe-key/--dedupe-ttl/--dedupe-mode");
        }
        InputStream in = jsonl.equals("-") ? System.in : open(Path.of(jsonl));
        try (in) {
            JsonlEnqueue bulk = new JsonlEnqueue(main.queue(queue, true), main.client().maxPayloadBytes(),
                    main.payloadLimitHint(), main.timeout(), main.client().server(), main.json(), main.out(), main.err())
                    .traced(tracing, parent);
            return bulk.run(in, jsonl.equals("-") ? "stdin" : "'" + jsonl + "'");
        }
    }

    private static InputStream open(Path file) {
        try {
            return Files.newInputStream(file);
        } catch (IOException e) {
            throw new CliException(Exit.USAGE, "cannot read '" + file + "': " + reason(e));
        }
    }

    /** An I/O error in a few words ("no such file", "permission denied", ...). */
    static String reason(IOException e) {
        if (e instanceof NoSuchFileException) {
            return "no such file";
        }
        if (e instanceof java.nio.file.AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof java.nio.file.FileSystemException fse && fse.getReason() != null) {
            return fse.getReason();
        }
        return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
    }
}
