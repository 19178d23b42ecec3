package dev.delayq.spring;

import java.util.List;
import org.springframework.boot.ssl.SslBundle;

/**
 * Boot's Redis connection settings in one shape for every Boot line: made from Boot 3's {@code RedisConnectionDetails},
 * Boot 4's {@code DataRedisConnectionDetails} (a service connection) or {@code spring.data.redis.*} as delayq reads it
 * ({@link PropertiesRedisSettings}). Sentinel wins over cluster, cluster over standalone, as in Boot.
 *
 * @param sentinel null unless Sentinel is configured
 * @param cluster  null unless cluster nodes are configured
 * @param ssl      the TLS settings, null for plain connections
 */
record RedisSettings(String username, String password, Standalone standalone, Sentinel sentinel, Cluster cluster,
                     SslBundle ssl) {
    /** One host and port. */
    record Node(String host, int port) {
    }

    /** One server. */
    record Standalone(String host, int port, int database) {
    }

    /** A master found through Sentinel nodes, which may have credentials of their own. */
    record Sentinel(int database, String master, List<Node> nodes, String username, String password) {
    }

    /** The seed nodes of a cluster. */
    record Cluster(List<Node> nodes) {
    }
}
