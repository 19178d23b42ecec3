package dev.delayq.cli;

import dev.delayq.JobInfo;
import dev.delayq.internal.present.JobFields;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code delayq job QUEUE (ID | --dedupe-key KEY)}: every field of one job. */
@Command(name = "job", mixinStandardHelpOptions = true,
        description = {"Show every field of one job: state, attempts made, due time, lease, last error, payload, name.",
                "Also when it was enqueued, its stalls (expired leases), its dedupe key and until when that holds after "
                        + "the job ended, and whether the record is corrupt; --json has the keys of the dashboard's API.",
                "A record that cannot be decoded is shown with 'corrupt true', its raw bytes as the payload and the "
                        + "state of the index it was found in, and a warning on stderr.",
                "Text with blanks, quotes, backslashes or unprintable characters is printed in double quotes with "
                        + "backslash escapes, as 'list' prints it.",
                "With --dedupe-key instead of an id, show the job that holds that dedupe key (or held it: a key that "
                        + "holds after its job ended names that job).",
                "Exit status 1 when there is no such job."},
        footer = {"", "Examples:", "  delayq job orders order-731:timeout",
                "  delayq job orders --dedupe-key reminder:user-42 --json",
                "  delayq job orders order-731:timeout --json | jq -r .error"})
public final class JobCommand implements Callable<Integer> {
    @ParentCommand
    Main main;

    @Parameters(index = "0", paramLabel = "QUEUE", description = "Queue name.")
    String queue;

    @Parameters(index = "1", arity = "0..1", paramLabel = "ID", description = "Job id (or give --dedupe-key).")
    String id;

    @Option(names = "--dedupe-key", paramLabel = "KEY", description = "Show the job that holds this dedupe key.")
    String dedupeKey;

    /** The characters of a result the text output shows. */
    private static final int RESULT_PREVIEW = 200;

    @Override
    public Integer call() {
        Jobs.idOrKey(id, dedupeKey, "show");
        JobInfo job = dedupeKey != null
                ? main.queue(queue).getByDedupeKey(dedupeKey).orElseThrow(() -> Jobs.noJobByKey(queue, dedupeKey))
                : main.queue(queue).get(id).orElseThrow(() -> Jobs.noJob(queue, id));
        String shown = job.id();
        Map<String, Object> fields = JobFields.job(job, JobFields.WHOLE_PAYLOAD, main.queue(queue).inspector().errors(shown));
        JobFields.links(fields, main.queue(queue).inspector().links(shown).orElse(null));
        if (job.corrupt()) {
            main.err().println("delayq: warning: the stored record of job '" + shown + "' cannot be decoded ("
                    + Text.oneLine(job.lastError(), 200) + "): shown with its raw bytes as the payload; workers move such "
                    + "records to dead when they meet them, 'delayq delete QUEUE ID' removes it");
            main.err().flush();
        }
        if (main.json()) {
            main.out().println(Json.line(fields));
            return Exit.OK;
        }
        boolean text = fields.get("payload") != null;
        for (Map.Entry<String, Object> f : fields.entrySet()) {
            if (text && f.getKey().equals("payloadBase64")) {
                continue; // the same bytes as the payload line, only less readable
            }
            if (f.getKey().equals("payloadPreviewBytes") || f.getKey().equals("payloadTruncated")) {
                continue; // the command line shows the whole payload: these say so only in JSON
            }
            if (f.getKey().equals("errors")) {
                // The error history, newest first: one line per failure (the last one is also the error line above).
                List<?> errors = (List<?>) f.getValue();
                if (errors.isEmpty()) {
                    main.out().printf("%-13s %s%n", "errors", "-");
                }
                for (Object o : errors) {
                    Map<?, ?> e = (Map<?, ?>) o;
                    main.out().printf("%-13s attempt %s at %s: %s%n", "errors", e.get("attempt"), e.get("at"),
                            Text.field((String) e.get("error")));
                }
                continue;
            }
            if (f.getKey().equals("result")) {
                // A preview: a result may take 64 KiB; --json shows it whole.
                String r = (String) f.getValue();
                boolean cut = r.length() > RESULT_PREVIEW;
                main.out().printf("%-13s %s%s%n", "result", Text.field(cut ? r.substring(0, RESULT_PREVIEW) : r),
                        cut ? " ... (" + job.result().length + " bytes: 'job --json' shows it whole)" : "");
                continue;
            }
            Object v = f.getValue();
            // Text (an id, an error, a payload) as the other tables print user data: quoted and escaped when it holds
            // blanks, line breaks or the like, so that each field stays on one line and reads back as it is.
            main.out().printf("%-13s %s%n", f.getKey(), v == null ? "-" : v instanceof String t ? Text.field(t) : v);
        }
        return Exit.OK;
    }
}
