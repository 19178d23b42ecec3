package dev.delayq.cli;

import dev.delayq.Bounds;
import dev.delayq.JobContext;
import dev.delayq.internal.present.JobFields;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The files through which a {@code work --exec} command leaves its job's result and reads its parents' (docs/flows.md,
 * "Results"): {@code DELAYQ_RESULT_FILE}, a fresh empty file per attempt whose content after exit 0 is the result (none
 * when it is empty), and, for a job whose parents left results that are still kept, {@code DELAYQ_PARENT_RESULTS_FILE},
 * a JSON object of parent id to its result as text, or {@code {"base64": "..."}} for a result that is not valid UTF-8.
 * Both are created only readable by the worker's user and deleted after the attempt.
 */
final class ResultFiles {
    private final Path result;
    private final Path parents;

    private ResultFiles(Path result, Path parents) {
        this.result = result;
        this.parents = parents;
    }

    /** The files of {@code job}'s attempt (the parents' results read from Redis once). */
    static ResultFiles create(JobContext job) {
        Map<String, byte[]> got = job.parentResults();
        Path r = null;
        try {
            r = Files.createTempFile("delayq-result-", "");
            Path p = null;
            if (!got.isEmpty()) {
                Map<String, Object> json = new LinkedHashMap<>();
                got.forEach((id, v) -> {
                    String text = JobFields.utf8OrNull(v);
                    json.put(id, text != null ? text : Map.of("base64", Base64.getEncoder().encodeToString(v)));
                });
                p = Files.createTempFile("delayq-parent-results-", ".json");
                Files.write(p, Json.MAPPER.writeValueAsBytes(json));
            }
            return new ResultFiles(r, p);
        } catch (IOException e) {
            if (r != null) {
                r.toFile().delete();
            }
            throw new UncheckedIOException("cannot create the result files of job '" + job.id() + "': " + e.getMessage(), e);
        }
    }

    /** Sets DELAYQ_RESULT_FILE and, when there is one, DELAYQ_PARENT_RESULTS_FILE. */
    void environment(Map<String, String> env) {
        env.put("DELAYQ_RESULT_FILE", result.toString());
        if (parents != null) {
            env.put("DELAYQ_PARENT_RESULTS_FILE", parents.toString());
        }
    }

    /**
     * After a zero exit: the result file's content is the job's result (an empty file leaves none).
     *
     * @throws ExecHandler.Failed when it is longer than 64 KiB, or cannot be read (the attempt fails)
     */
    void keepResult(JobContext job) {
        try {
            long size = Files.size(result);
            if (size > Bounds.MAX_RESULT_BYTES) {
                throw new ExecHandler.Failed("exit 0, but the result file holds " + size + " bytes: at most "
                        + Bounds.MAX_RESULT_BYTES + " bytes (64 KiB) are kept");
            }
            if (size > 0) {
                job.result(Files.readAllBytes(result));
            }
        } catch (IOException e) {
            throw new ExecHandler.Failed("exit 0, but the result file cannot be read: " + e.getMessage());
        }
    }

    /** Deletes the files (the command may have deleted or replaced them). */
    void delete() {
        result.toFile().delete();
        if (parents != null) {
            parents.toFile().delete();
        }
    }
}
