package dev.delayq.spring;

/** Settings of the producer side, {@link DelayqTemplate}, under {@code delayq.producer.*}. */
public class DelayqProducerProperties {
    /**
     * Whether DelayqTemplate.enqueue inside a Spring-managed transaction enqueues after the commit (and not at all on
     * a rollback). false: at once, as outside a transaction.
     */
    private boolean afterCommit = true;

    public boolean isAfterCommit() {
        return afterCommit;
    }

    public void setAfterCommit(boolean afterCommit) {
        this.afterCommit = afterCommit;
    }
}
