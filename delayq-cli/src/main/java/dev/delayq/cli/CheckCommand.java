package dev.delayq.cli;

import dev.delayq.CheckReport;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code delayq check QUEUE}: checks that job records and state indexes agree. */
@Command(name = "check", mixinStandardHelpOptions = true,
        description = {"Check that every job record and every index entry of a queue agree (safe while workers run).",
                "Prints 'ok: N records and M index entries are consistent', or each problem on its own line "
                        + "and exits with status 1."},
        footer = {"", "Examples:", "  delayq check orders", "  delayq check orders --json | jq '.problems[]'"})
public final class CheckCommand implements Callable<Integer> {
    @ParentCommand
    Main main;

    @Parameters(index = "0", paramLabel = "QUEUE", description = "Queue name.")
    String queue;

    @Override
    public Integer call() {
        CheckReport r = main.inspector(queue).check();
        if (main.json()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("clean", r.clean());
            m.put("records", r.records());
            m.put("entries", r.entries());
            m.put("problems", r.problems());
            main.out().println(Json.line(m));
            return r.clean() ? Exit.OK : Exit.FAILED;
        }
        if (r.clean()) {
            main.out().println("ok: " + r.records() + " records and " + r.entries() + " index entries are consistent");
            return Exit.OK;
        }
        for (String p : r.problems()) {
            main.out().println(p);
        }
        throw new CliException(Exit.FAILED, r.problems().size() + " problem(s) in queue '" + queue + "' ("
                + r.records() + " records and " + r.entries() + " index entries checked)");
    }
}
