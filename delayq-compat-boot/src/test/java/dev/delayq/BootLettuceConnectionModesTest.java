package dev.delayq;

/**
 * The core's connection modes (ACL users with credentials in the URI and apart from it, TLS with a private CA,
 * Sentinel across a failover, a cluster with an ACL user) with the Lettuce that Spring Boot manages.
 */
class BootLettuceConnectionModesTest extends ConnectionModesTest {
}
