package dev.delayq.build;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Prints one line naming every group of tests this build did not run, and why: {@code [delayq] tests skipped: none},
 * or {@code [delayq] tests skipped: 10 (delayq-cli JobWrapperTest x9: busybox is not installed; ...)}. It reads what the
 * test kit's {@code SkipRecorder} wrote for this build ({@code <root>/target/test-skips/<build id>/}) and writes the
 * line to {@code summary.txt} there as well, for {@code .ci/run}.
 */
public final class TestSummary {
    private TestSummary() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            throw new IllegalArgumentException("usage: TestSummary <project root> <build id>");
        }
        Path dir = Path.of(args[0], "target", "test-skips", args[1]);
        // module + class + reason -> tests
        Map<String, Integer> groups = new TreeMap<>();
        if (Files.isDirectory(dir)) {
            try (Stream<Path> files = Files.list(dir)) {
                for (Path f : files.filter(p -> !p.getFileName().toString().equals("summary.txt")).sorted().toList()) {
                    for (String line : Files.readAllLines(f, StandardCharsets.UTF_8)) {
                        String[] p = line.split("\t", -1);
                        if (p.length == 4) {
                            groups.merge(p[0] + " " + p[1] + "\t" + p[2], Integer.parseInt(p[3]), Integer::sum);
                        }
                    }
                }
            }
        }
        String summary = line(groups);
        System.out.println(summary);
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("summary.txt"), summary + "\n", StandardCharsets.UTF_8);
    }

    static String line(Map<String, Integer> groups) {
        if (groups.isEmpty()) {
            return "[delayq] tests skipped: none";
        }
        int total = groups.values().stream().mapToInt(Integer::intValue).sum();
        List<String> parts = groups.entrySet().stream().map(e -> {
            String[] k = e.getKey().split("\t", 2);
            return k[0] + " x" + e.getValue() + ": " + k[1];
        }).toList();
        return "[delayq] tests skipped: " + total + " (" + String.join("; ", parts) + ")";
    }
}
