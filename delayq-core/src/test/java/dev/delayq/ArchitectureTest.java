package dev.delayq;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
     * cron-utils is a deliberate dependency with nothing behind it: its pom's javax.validation, javax.el and lombok are
     * "provided" (never on our classpath), and only ScheduleTimes uses it, so replacing it touches one class.
     */
    @Test
    void cronUtilsStaysBehindOneClassAndBringsNothingElse() {
        assertThatThrownBy(() -> Class.forName("javax.el.ELContext")).isInstanceOf(ClassNotFoundException.class);
        assertThatThrownBy(() -> Class.forName("javax.validation.Validator")).isInstanceOf(ClassNotFoundException.class);
        noClasses().that().doNotHaveFullyQualifiedName("dev.delayq.internal.ScheduleTimes")
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
