package dev.delayq.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Runs the command line in-process and captures what it printed. */
final class Cli {
    /** What one run printed and returned. */
    record Result(int exit, String out, String err) {
        List<String> lines() {
            return out.isEmpty() ? List.of() : Arrays.asList(out.split("\n"));
        }
    }

    private final List<String> global = new ArrayList<>();

    /** A runner that adds {@code --redis uri --prefix prefix} to every call. */
    Cli(String redisUri, String prefix) {
        global.addAll(List.of("--redis", redisUri, "--prefix", prefix));
    }

    Result run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        List<String> all = new ArrayList<>(Arrays.asList(args));
        all.addAll(global);
        int code = Main.run(all.toArray(new String[0]), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}
