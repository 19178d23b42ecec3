package dev.delayq;

/**
 * Facts about the Redis server a client is connected to, for operators (the dashboard, {@code delayq queues}).
 *
 * @param server           the server as {@code redis://host:port} (never with credentials)
 * @param mode             {@code single}, {@code cluster} or {@code sentinel}
 * @param version          Redis's version, e.g. {@code 7.0.15}
 * @param usedMemoryBytes  memory Redis uses ({@code used_memory}); for a cluster, of the node answering
 * @param maxMemoryBytes   the {@code maxmemory} limit, 0 when unlimited or unknown
 * @param connectedClients connections to the server ({@code connected_clients})
 * @param uptimeSeconds    seconds since the server started
 */
public record ServerInfo(String server, String mode, String version, long usedMemoryBytes, long maxMemoryBytes,
                         long connectedClients, long uptimeSeconds) {
}
