package dev.delayq;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.io.IOException;
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

    @Test
    void noMainClassIsOver400Lines() throws IOException {
        Path root = Path.of("src/main/java");
        try (Stream<Path> files = Files.walk(root)) {
            List<String> big = files.filter(f -> f.toString().endsWith(".java")).filter(f -> lines(f) > 400)
                    .map(f -> root.relativize(f) + " (" + lines(f) + " lines)").toList();
            assertThat(big).as("main classes over 400 lines").isEmpty();
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
