package dev.delayq.spring;

import dev.delayq.DelayQ;
import dev.delayq.DelayQConnectionException;
import dev.delayq.ProducerMetrics;
import dev.delayq.RetryPolicy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.util.StringUtils;

/**
 * Turns {@link DelayqProperties} and Boot's Redis settings ({@link RedisSettings}) into a connected {@link DelayQ}: the
 * delayq URI ({@code redis://host:port/db}, {@code rediss://}, {@code redis-sentinel://a:1,b:2/db#master}, a
 * cluster seed node), the credentials apart from it, and the trusted certificates of an SSL bundle.
 */
final class DelayqConnection {
    private DelayqConnection() {
    }

    /** What to connect to: one URI per seed to try in turn (several only for a cluster), credentials and TLS. */
    record Target(List<String> uris, boolean cluster, String username, String password, SslBundle ssl) {
    }

    /**
     * Connects as {@code target} says, trying each cluster seed node until one answers. The timeout is
     * {@code delayq.timeout}, else {@code spring.data.redis.timeout}, else 10 s; the connection's name is
     * {@code spring.data.redis.client-name} when set. The enqueues report to {@code producerMetrics}.
     */
    static DelayQ connect(DelayqProperties p, BootRedisProperties redis, Target target, ProducerMetrics producerMetrics) {
        Path trust = trustedCertificates(target.ssl());
        DelayQConnectionException last = null;
        for (String uri : target.uris()) {
            DelayQ.Builder b = DelayQ.builder().redis(uri).cluster(target.cluster())
                    .prefix(p.getPrefix())
                    .timeout(timeout(p, redis))
                    .reconnectDelay(p.getReconnectDelay())
                    .maxPayloadBytes(payloadBytes(p))
                    .doneRetention(p.getDoneRetention())
                    .deadRetention(p.getDeadRetention())
                    .allowEvictingMemoryPolicy(p.isAllowEvictingMemoryPolicy())
                    .retryPolicy(retryPolicy(p.getRetry()))
                    .producerMetrics(producerMetrics);
            if (target.password() != null) {
                b.username(target.username()).password(target.password());
            }
            if (trust != null) {
                b.tlsTrustedCertificates(trust);
            }
            if (StringUtils.hasText(redis.getClientName())) {
                b.clientName(redis.getClientName());
            }
            try {
                return b.build();
            } catch (DelayQConnectionException e) {
                last = springHint(e); // the next seed node of a cluster may answer
            }
        }
        throw last;
    }

    /** The core's TLS hint names its builder method; under Spring, the property that does the same is named. */
    static DelayQConnectionException springHint(DelayQConnectionException e) {
        String message = String.valueOf(e.getMessage());
        if (!message.contains("(tlsTrustedCertificates)")) {
            return e;
        }
        return new DelayQConnectionException(message.replace("(tlsTrustedCertificates)",
                "(an SSL bundle: spring.data.redis.ssl.bundle, or delayq.ssl-bundle with delayq.redis-url)"), e);
    }

    static Duration timeout(DelayqProperties p, BootRedisProperties redis) {
        if (p.getTimeout() != null) {
            return p.getTimeout();
        }
        return redis.getTimeout() != null ? redis.getTimeout() : DelayqProperties.DEFAULT_TIMEOUT;
    }

    private static int payloadBytes(DelayqProperties p) {
        long bytes = p.getMaxPayloadSize().toBytes();
        if (bytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("delayq.max-payload-size is " + p.getMaxPayloadSize() + ": at most 256MB");
        }
        return (int) bytes;
    }

    static RetryPolicy retryPolicy(DelayqProperties.Retry r) {
        return RetryPolicy.builder().maxAttempts(r.getMaxAttempts()).base(r.getBase()).cap(r.getCap()).build();
    }

    /** {@code delayq.redis-url}, with {@code delayq.ssl-bundle} if set. */
    static Target fromUrl(DelayqProperties p, SslBundles bundles) {
        SslBundle ssl = null;
        if (StringUtils.hasText(p.getSslBundle())) {
            if (bundles == null) {
                throw new IllegalStateException("delayq.ssl-bundle is '" + p.getSslBundle() + "' but there are no SSL bundles");
            }
            ssl = bundles.getBundle(p.getSslBundle());
        }
        return new Target(List.of(p.getRedisUrl()), Boolean.TRUE.equals(p.getCluster()), null, null, ssl);
    }

    /** Boot's connection settings, in Boot's order: Sentinel, else cluster, else one server. */
    static Target fromDetails(DelayqProperties p, RedisSettings d) {
        RedisSettings.Sentinel sentinel = d.sentinel();
        if (sentinel != null) {
            if (sentinel.password() != null || sentinel.username() != null) {
                throw new IllegalArgumentException("the Redis Sentinel nodes need credentials of their own "
                        + "(spring.data.redis.sentinel.username/password), which delayq does not support: "
                        + "run the Sentinels without a password, or set delayq.redis-url");
            }
            if (!StringUtils.hasText(sentinel.master()) || sentinel.nodes().isEmpty()) {
                throw new IllegalArgumentException("Redis Sentinel needs spring.data.redis.sentinel.master and .nodes");
            }
            List<String> nodes = sentinel.nodes().stream().map(DelayqConnection::hostPort).toList();
            String scheme = d.ssl() != null ? "rediss-sentinel://" : "redis-sentinel://";
            String uri = scheme + String.join(",", nodes) + "/" + sentinel.database() + "#" + sentinel.master();
            return new Target(List.of(uri), false, d.username(), d.password(), d.ssl());
        }
        RedisSettings.Cluster cluster = d.cluster();
        if (cluster != null && Boolean.FALSE.equals(p.getCluster())) {
            throw new IllegalArgumentException("delayq.cluster is false but spring.data.redis names cluster nodes");
        }
        String scheme = d.ssl() != null ? "rediss://" : "redis://";
        if (cluster != null) {
            if (cluster.nodes().isEmpty()) {
                throw new IllegalArgumentException("Redis Cluster needs at least one node in spring.data.redis.cluster.nodes");
            }
            List<String> seeds = new ArrayList<>();
            for (RedisSettings.Node n : cluster.nodes()) {
                seeds.add(scheme + hostPort(n));
            }
            return new Target(seeds, true, d.username(), d.password(), d.ssl());
        }
        RedisSettings.Standalone s = d.standalone();
        String uri = scheme + hostPort(new RedisSettings.Node(s.host(), s.port())) + "/" + s.database();
        return new Target(List.of(uri), Boolean.TRUE.equals(p.getCluster()), d.username(), d.password(), d.ssl());
    }

    private static String hostPort(RedisSettings.Node n) {
        String host = n.host().contains(":") && !n.host().startsWith("[") ? "[" + n.host() + "]" : n.host();
        return host + ":" + n.port();
    }

    /**
     * The trusted certificates of {@code ssl} as a PEM file for delayq (which takes a file), or null when the
     * bundle trusts what the JVM trusts. A bundle with a key store (a client certificate) is refused: delayq
     * verifies the server only.
     */
    static Path trustedCertificates(SslBundle ssl) {
        if (ssl == null) {
            return null;
        }
        try {
            KeyStore keys = ssl.getStores().getKeyStore();
            if (keys != null && keys.size() > 0) {
                throw new IllegalArgumentException("the Redis SSL bundle has a key store (a client certificate): "
                        + "delayq supports TLS with server verification only, not mutual TLS");
            }
            KeyStore trust = ssl.getStores().getTrustStore();
            if (trust == null) {
                return null;
            }
            StringBuilder pem = new StringBuilder();
            Base64.Encoder base64 = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII));
            for (String alias : Collections.list(trust.aliases())) {
                Certificate cert = trust.getCertificate(alias);
                if (cert != null) {
                    pem.append("-----BEGIN CERTIFICATE-----\n").append(base64.encodeToString(cert.getEncoded()))
                            .append("\n-----END CERTIFICATE-----\n");
                }
            }
            if (pem.length() == 0) {
                throw new IllegalArgumentException("the Redis SSL bundle's trust store holds no certificate");
            }
            // Lettuce reads the file again on every reconnect: it lives as long as the JVM.
            Path file = Files.createTempFile("delayq-trust-", ".pem");
            file.toFile().deleteOnExit();
            Files.writeString(file, pem, StandardCharsets.US_ASCII);
            return file;
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("the Redis SSL bundle's trust store cannot be read: " + e.getMessage(), e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the Redis SSL bundle's certificates for delayq", e);
        }
    }
}
