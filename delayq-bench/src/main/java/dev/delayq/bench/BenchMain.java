package dev.delayq.bench;

import dev.delayq.cli.Main;
import dev.delayq.demo.DemoCommand;
import java.io.PrintStream;

/**
 * The harness jar's entry point: the {@code delayq} command line with two more commands, {@code demo} and
 * {@code bench}, which start private Redis servers through the test kit. They live here, apart from the published
 * command line and libraries, which carry no test harness; the launcher ({@code ./delayq}) runs this jar for them.
 */
public final class BenchMain {
    /** The commands this jar adds to the command line's. */
    static final Class<?>[] COMMANDS = {DemoCommand.class, BenchCommand.class};

    private BenchMain() {
    }

    public static void main(String[] args) {
        Main.launch(args, COMMANDS);
    }

    /** Runs the command line with the harness's commands and these streams; returns the exit status (tests). */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        return Main.run(args, out, err, COMMANDS);
    }
}
