package dev.delayq.cli;

import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;

/** "Did you mean" for a mistyped command or option, from picocli's suggestions. */
final class Suggestions {
    /** The commands of the harness jar (delayq-bench), which the launcher runs. */
    private static final List<String> HARNESS = List.of("demo", "bench");

    private Suggestions() {
    }

    /**
     * The message for a usage error: a mistyped command reads {@code unknown command 'stat'; did you mean
     * 'stats'?}; a mistyped option gets the same ending; any other error keeps picocli's message.
     */
    static String message(ParameterException ex) {
        if (!(ex instanceof UnmatchedArgumentException u) || u.getUnmatched().isEmpty()) {
            return ex.getMessage();
        }
        CommandLine c = u.getCommandLine();
        List<String> suggestions = u.getSuggestions();
        String first = u.getUnmatched().get(0);
        String ending = suggestions.isEmpty() ? "" : "; did you mean " + join(suggestions) + "?";
        boolean command = !u.isUnknownOption() && !c.getSubcommands().isEmpty() && !first.startsWith("-");
        if (command && HARNESS.contains(first)) {
            // The published jar carries no test harness: the demo and the benchmark live in delayq-bench.
            return "'" + first + "' is not in this jar: the demo and the benchmark start a private Redis through the "
                    + "test kit, so they live in the module delayq-bench; from a clone, run './delayq " + first + "'";
        }
        if (command) {
            return "unknown command '" + first + "'" + ending;
        }
        return ex.getMessage() + ending;
    }

    private static String join(List<String> names) {
        StringBuilder b = new StringBuilder();
        int n = Math.min(names.size(), 3);
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                b.append(i == n - 1 ? " or " : ", ");
            }
            b.append('\'').append(names.get(i)).append('\'');
        }
        return b.toString();
    }
}
