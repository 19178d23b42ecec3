package dev.delayq.bench;

/** W1 on a Redis Cluster, reported apart from W1 on a single node. */
final class ClusterBurstWorkload extends BurstWorkload {
    @Override
    public String name() {
        return "w1-cluster";
    }
}
