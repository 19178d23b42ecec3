package dev.delayq.spring;

import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.ClassUtils;

/**
 * Defers an action to after the commit of the Spring-managed transaction of the calling thread. Only used, and so
 * only loaded, when spring-tx is on the class path ({@link DelayqTemplate} checks {@link Presence#AVAILABLE} first: loading
 * this class without spring-tx fails, as its verification needs {@code TransactionSynchronization}).
 */
final class AfterCommit {
    /** Where {@link DelayqTemplate} reads whether spring-tx is there, without loading this class. */
    static final class Presence {
        /** Whether spring-tx is there (an application without it has no Spring-managed transactions). */
        static final boolean AVAILABLE = ClassUtils.isPresent(
                "org.springframework.transaction.support.TransactionSynchronizationManager", Presence.class.getClassLoader());

        private Presence() {
        }
    }

    private AfterCommit() {
    }

    /** Whether the calling thread is in an actual transaction whose synchronizations run (not a SUPPORTS scope). */
    static boolean inTransaction() {
        return TransactionSynchronizationManager.isSynchronizationActive()
                && TransactionSynchronizationManager.isActualTransactionActive();
    }

    /**
     * Runs {@code action} after the transaction commits, and never if it rolls back. An exception of the action is
     * thrown to the caller of the commit (Spring's rule for {@code afterCommit}), after the commit.
     */
    static void register(Runnable action) {
        TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
            @Override
            public void afterCommit() {
                action.run();
            }
        });
    }
}
