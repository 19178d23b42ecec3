/**
 * delayq: a delayed job queue on Redis. The API is {@code dev.delayq} (the client, queues, the inspector, the worker,
 * jobs and values) and {@code dev.delayq.micrometer} (meters, when Micrometer is present); everything under
 * {@code dev.delayq.internal} is the implementation and is not exported. On the class path the same jar works as before.
 */
module dev.delayq {
    requires lettuce.core;
    requires reactor.core; // Lettuce's event bus (RedisBackend.onClientEvent)
    requires org.slf4j;
    requires com.cronutils;
    requires static micrometer.core;
    requires static io.opentelemetry.api; // tracing, only when configured (DelayQ.Builder#openTelemetry)
    requires static io.opentelemetry.context;

    exports dev.delayq;
    exports dev.delayq.micrometer;
}
