package dev.delayq.docs;

import dev.delayq.DelayQ;
import dev.delayq.LeastPrivilege;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** docs/security.md: a restricted Redis user, TLS, secrets out of URLs. */
final class Security {
    private Security() {
    }

    static DelayQ connect() throws IOException {
        // tag::connect[]
        DelayQ dq = DelayQ.builder()
                .redis("rediss://redis.internal:6380")                        // TLS
                .tlsTrustedCertificates(Path.of("/etc/delayq/ca.pem"))       // a private CA (else the JVM's trust store)
                .username("orders-app")                                       // a user restricted to the prefix
                .password(Files.readString(Path.of("/run/secrets/redis-password")).strip())  // not in the URL
                .prefix("dq")
                .build();
        // end::connect[]
        return dq;
    }

    static void rules() {
        // tag::rules[]
        List<String> rules = LeastPrivilege.rules("dq", "7.0");   // ACL SETUSER rules: the prefix's keys, delayq's commands
        System.out.println("ACL SETUSER orders-app " + String.join(" ", rules));
        // end::rules[]
    }
}
