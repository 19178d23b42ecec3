package dev.delayq;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.io.IOException;
import java.lang.module.ModuleDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The module map of CONTRIBUTING.md, enforced: what may depend on what, and how big a class may grow. */
class ArchitectureTest {
    private static JavaClasses main;

    @BeforeAll
    static void load() {
        main = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages("dev.delayq");
    }

    @Test
    void internalNeverReachesBackToThePublicEntryPoints() {
        noClasses().that().resideInAPackage("dev.delayq.internal..")
                .should().dependOnClassesThat().haveFullyQualifiedName(DelayQ.class.getName())
                .orShould().dependOnClassesThat().haveFullyQualifiedName(Worker.class.getName())
                .orShould().dependOnClassesThat().haveNameMatching("dev\\.delayq\\.(DelayQ|Worker)\\$.*")
                .check(main);
    }

    @Test
    void onlyTheRedisPackageImportsLettuce() {
        noClasses().that().resideOutsideOfPackage("dev.delayq.internal.redis..")
                .should().dependOnClassesThat().resideInAPackage("io.lettuce..")
                .check(main);
    }

    @Test
    void theWorkerRuntimeAndTheQueuesDoNotDependOnEachOthersInsides() {
        noClasses().that().resideInAnyPackage("dev.delayq.internal.queue..", "dev.delayq.internal.ops..", "dev.delayq.internal.redis..")
                .should().dependOnClassesThat().resideInAPackage("dev.delayq.internal.worker..")
                .check(main);
    }

    /**
     * What the public value types need of the implementation (input checks, id generation, cron parsing) lives in a leaf
     * package that depends on nothing of delayq, so using it makes no package cycle.
     */
    @Test
    void theHelpersOfThePublicTypesDependOnNothingOfDelayq() {
        noClasses().that().resideInAPackage("dev.delayq.internal.base..")
                .should().dependOnClassesThat(resideInAPackage("dev.delayq..").and(not(resideInAPackage("dev.delayq.internal.base.."))))
                .check(main);
    }

    /**
     * The public package reaches into the implementation only from the entry points that build it (the client, the
     * worker and its builder); every other public type uses at most the leaf helpers ({@code internal.base}).
     */
    @Test
    void publicValueTypesUseOnlyTheLeafHelpersOfTheImplementation() {
        noClasses().that().resideInAPackage("dev.delayq")
                .and().doNotHaveFullyQualifiedName(DelayQ.class.getName())
                .and().doNotHaveFullyQualifiedName(Worker.class.getName())
                .and().haveNameNotMatching("dev\\.delayq\\.(DelayQ|Worker)\\$.*")
                .should().dependOnClassesThat(resideInAPackage("dev.delayq.internal..")
                        .and(not(resideInAPackage("dev.delayq.internal.base.."))))
                .check(main);
    }

    /** One queue implementation: nothing tells queue classes apart by type (the partition count is data). */
    @Test
    void noCodeTestsTheTypeOfAQueue() throws IOException {
        java.util.regex.Pattern typeTest = java.util.regex.Pattern.compile(
                "instanceof\\s+(dev\\.delayq\\.internal\\.queue\\.)?(RedisQueue|Partition|Partition|PartitionedQueue|JobQueue)\\b");
        List<String> found = new java.util.ArrayList<>();
        for (Path root : List.of(Path.of("src/main/java"), Path.of("src/test/java"))) {
            try (Stream<Path> files = Files.walk(root)) {
                files.filter(f -> f.toString().endsWith(".java")).filter(f -> typeTest.matcher(read(f)).find())
                        .forEach(f -> found.add(root.relativize(f).toString()));
            }
        }
        assertThat(found).as("sources with instanceof on a queue class").isEmpty();
    }

    /** The module descriptor exports the API packages and nothing under internal. */
    @Test
    void theModuleExportsTheApiAndNotTheImplementation() throws IOException {
        Path classes = Path.of("target/classes");
        java.util.Set<String> packages;
        try (Stream<Path> files = Files.walk(classes)) {
            packages = files.filter(f -> f.toString().endsWith(".class") && !f.endsWith("module-info.class"))
                    .map(f -> classes.relativize(f.getParent()).toString().replace(java.io.File.separatorChar, '.'))
                    .collect(java.util.stream.Collectors.toSet());
        }
        ModuleDescriptor d;
        try (java.io.InputStream in = Files.newInputStream(classes.resolve("module-info.class"))) {
            d = ModuleDescriptor.read(in, () -> packages);
        }
        assertThat(d.name()).isEqualTo("dev.delayq");
        assertThat(d.exports()).extracting(ModuleDescriptor.Exports::source)
                .containsExactlyInAnyOrder("dev.delayq", "dev.delayq.micrometer");
    }

    @Test
    void noMainClassIsOver400Lines() throws IOException {
        Path root = Path.of("src/main/java");
        try (Stream<Path> files = Files.walk(root)) {
            List<String> big = files.filter(f -> f.toString().endsWith(".java")).filter(f -> lines(f) > 400)
                    .map(f -> root.relativize(f) + " (" + lines(f) + " lines)").toList();
            assertThat(big).as("main classes over 400 lines").isEmpty();
        }
    }

    /**
     * The dependency tree is chosen: Lettuce's beta token-auth artifact is excluded (the whole suite runs without it)
     * and Micrometer is optional (no class outside dev.delayq.micrometer needs it).
     */
    @Test
    void excludedAndOptionalDependenciesStayThat() throws IOException {
        assertThatThrownBy(() -> Class.forName("redis.clients.authentication.core.TokenManager"))
                .isInstanceOf(ClassNotFoundException.class);
        Path root = Path.of("src/main/java");
        try (Stream<Path> files = Files.walk(root)) {
            List<String> users = files.filter(f -> f.toString().endsWith(".java"))
                    .filter(f -> !f.startsWith(root.resolve("dev/delayq/micrometer")))
                    .filter(f -> read(f).contains("io.micrometer")).map(f -> root.relativize(f).toString()).toList();
            assertThat(users).as("classes outside dev.delayq.micrometer that use Micrometer").isEmpty();
        }
    }

    /**
     * OpenTelemetry is optional and loaded only when configured: only OtelTracing uses it, reached from DelayQ.Builder's
     * openTelemetry(...) alone (NoOpenTelemetryTest runs a client and a worker without it on the class path).
     */
    @Test
    void openTelemetryStaysBehindOneClass() throws IOException {
        Path root = Path.of("src/main/java");
        try (Stream<Path> files = Files.walk(root)) {
            List<String> users = files.filter(f -> f.toString().endsWith(".java") && !f.endsWith("module-info.java"))
                    .filter(f -> read(f).contains("io.opentelemetry")).map(f -> root.relativize(f).toString().replace('\\', '/'))
                    .toList();
            assertThat(users).as("classes that use OpenTelemetry").containsExactlyInAnyOrder("dev/delayq/DelayQ.java",
                    "dev/delayq/internal/trace/OtelTracing.java");
        }
        noClasses().that().doNotHaveFullyQualifiedName("dev.delayq.DelayQ$Builder")
                .and().doNotHaveFullyQualifiedName("dev.delayq.DelayQ").and().resideOutsideOfPackage("dev.delayq.internal.trace")
                .should().dependOnClassesThat().haveFullyQualifiedName("dev.delayq.internal.trace.OtelTracing")
                .check(main);
    }

    /**
     * cron-utils is a deliberate dependency with nothing behind it: its pom's javax.validation, javax.el and lombok are
     * "provided" (never on our classpath), and only Crons (parsing) and ScheduleTimes (matching) use it.
     */
    @Test
    void cronUtilsStaysBehindOneClassAndBringsNothingElse() {
        assertThatThrownBy(() -> Class.forName("javax.el.ELContext")).isInstanceOf(ClassNotFoundException.class);
        assertThatThrownBy(() -> Class.forName("javax.validation.Validator")).isInstanceOf(ClassNotFoundException.class);
        noClasses().that().doNotHaveFullyQualifiedName("dev.delayq.internal.ScheduleTimes")
                .and().doNotHaveFullyQualifiedName("dev.delayq.internal.base.Crons")
                .should().dependOnClassesThat().resideInAPackage("com.cronutils..")
                .check(main);
    }

    private static String read(Path f) {
        try {
            return Files.readString(f);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static long lines(Path f) {
        try (Stream<String> l = Files.lines(f)) {
            return l.count();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
