package dev.delayq.cli;

import dev.delayq.DelayQConfigurationException;
import dev.delayq.DelayQConnectionException;
import dev.delayq.DelayQTimeoutException;
import dev.delayq.internal.present.DurationText;
import java.io.PrintWriter;
import picocli.CommandLine;

/**
 * A command's failure as the user sees it: one line on stderr (the stack trace only with {@code --verbose}), secrets
 * redacted, durations in the command line's units, and the exit status: 1 for a negative answer, 2 for invalid input,
 * 3 when Redis is unreachable or unsafe.
 */
final class Failures {
    private Failures() {
    }

    /** Prints the failure of a command and returns its exit status. */
    static int report(Exception ex, CommandLine line, Main main) {
        PrintWriter err = line.getErr();
        Throwable e = ex;
        while (e instanceof java.util.concurrent.CompletionException && e.getCause() != null) {
            e = e.getCause();
        }
        int code;
        String message;
        if (e instanceof CliException ce) {
            code = ce.exitCode();
            message = ce.getMessage();
        } else if (e instanceof IllegalArgumentException) {
            code = Exit.USAGE;
            message = e.getMessage();
        } else if (e instanceof DelayQConnectionException || e instanceof DelayQTimeoutException
                || e instanceof DelayQConfigurationException) {
            code = Exit.REDIS;
            message = e.getMessage();
        } else {
            code = Exit.FAILED;
            message = e.getMessage() == null ? e.toString() : e.getMessage();
        }
        if (!(e instanceof CliException)) {
            message = DurationText.humanizeIso(message); // the library prints durations as Java does (PT30S)
        }
        err.println("delayq: " + main.redact(message));
        if (main.verbose) {
            java.io.StringWriter trace = new java.io.StringWriter();
            e.printStackTrace(new PrintWriter(trace));
            err.print(main.redact(trace.toString()));
        }
        err.flush();
        return code;
    }
}
