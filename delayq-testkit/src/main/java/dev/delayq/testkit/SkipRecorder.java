package dev.delayq.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;

/**
 * Records every test that did not run (disabled, or aborted by an assumption such as "busybox is not installed"), so
 * that a skip is never silent: at the end of a test JVM it writes one line per group (test class and reason) to
 * {@code <project root>/target/test-skips/<build>/<module>-<pid>.txt}, which the build's last module prints as one
 * summary line ({@code delayq-test-summary}) and {@code .ci/run} checks. Registered for every module whose tests use the
 * test kit (a {@link java.util.ServiceLoader} entry); it writes nothing when the build did not say where
 * ({@code delayq.build.root} and {@code delayq.build.id}, set by the root pom's surefire and failsafe configuration), e.g.
 * in an IDE.
 */
public final class SkipRecorder implements TestExecutionListener {
    /** "class\treason" to the number of tests it stands for (a class aborted whole counts once). */
    private final Map<String, Integer> skipped = new TreeMap<>();

    @Override
    public void executionSkipped(TestIdentifier test, String reason) {
        record(test, reason);
    }

    @Override
    public void executionFinished(TestIdentifier test, TestExecutionResult result) {
        if (result.getStatus() == TestExecutionResult.Status.ABORTED) {
            record(test, result.getThrowable().map(Throwable::getMessage).orElse("aborted"));
        }
    }

    private synchronized void record(TestIdentifier test, String reason) {
        String group = group(test);
        String why = reason == null || reason.isBlank() ? "no reason given" : reason.replaceAll("\\s+", " ").strip();
        why = why.replaceFirst("^Assumption failed: ", "");
        skipped.merge(group + "\t" + why, 1, Integer::sum);
    }

    /** The test's class (simple name): the group a skip is reported under. */
    private static String group(TestIdentifier test) {
        Optional<String> cls = test.getSource().map(s -> s instanceof MethodSource m ? m.getClassName()
                : s instanceof ClassSource c ? c.getClassName() : null);
        String name = cls.orElse(test.getDisplayName());
        return name.substring(name.lastIndexOf('.') + 1);
    }

    @Override
    public synchronized void testPlanExecutionFinished(TestPlan plan) {
        String root = System.getProperty("delayq.build.root");
        String build = System.getProperty("delayq.build.id");
        if (skipped.isEmpty() || root == null || build == null || root.isBlank() || build.isBlank()) {
            return;
        }
        Path dir = Path.of(root, "target", "test-skips", build);
        String module = Path.of("").toAbsolutePath().getFileName().toString();
        StringBuilder lines = new StringBuilder();
        skipped.forEach((k, n) -> lines.append(module).append('\t').append(k).append('\t').append(n).append('\n'));
        try {
            Files.createDirectories(dir);
            Files.writeString(dir.resolve(module + "-" + ProcessHandle.current().pid() + ".txt"), lines,
                    StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot record the skipped tests in " + dir, e);
        }
    }
}
