package dev.delayq.internal.worker;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What keeps the worker runtime testable without Redis: time is read only through its {@link Ticker}, and the queue's
 * implementation is reached only through {@link WorkerPartition}'s one adapter, {@link QueuePartition}.
 */
class WorkerRuntimeShapeTest {
    private static JavaClasses worker;

    @BeforeAll
    static void load() {
        worker = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.delayq.internal.worker");
    }

    @Test
    void timeIsReadOnlyThroughTheTicker() {
        noClasses().that().resideInAPackage("dev.delayq.internal.worker..").and().doNotHaveSimpleName("Ticker")
                .should().callMethod(System.class, "nanoTime")
                .orShould().callMethod(System.class, "currentTimeMillis")
                .check(worker);
    }

    @Test
    void onlyTheAdapterKnowsTheQueuesImplementationAndRedis() {
        noClasses().that().resideInAPackage("dev.delayq.internal.worker..")
                .and().haveNameNotMatching(".*\\.QueuePartition(\\$.*)?") // with its subscribers
                .should().dependOnClassesThat().resideInAnyPackage("dev.delayq.internal.queue..", "dev.delayq.internal.redis..")
                .check(worker);
    }
}
