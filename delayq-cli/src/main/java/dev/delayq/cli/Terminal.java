package dev.delayq.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Whether the command's stderr is a terminal, where a progress line may be redrawn in place with {@code \r};
 * into a file or a pipe, {@code \r} only garbles the log.
 */
public final class Terminal {
    private Terminal() {
    }

    /**
     * Whether {@code main}'s stderr is a terminal: only when it is the process's own stderr (never when a test runs
     * the command line in-process with captured streams), and file descriptor 2 names a terminal device
     * ({@code /proc/self/fd/2}; where there is no {@code /proc}, whether the JVM has a console).
     */
    public static boolean stderr(Main main) {
        if (!main.standaloneStreams()) {
            return false;
        }
        Path fd = Path.of("/proc/self/fd/2");
        if (!Files.exists(Path.of("/proc/self/fd"))) {
            return System.console() != null;
        }
        try {
            String target = Files.readSymbolicLink(fd).toString();
            return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty") || target.equals("/dev/console");
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }
}
