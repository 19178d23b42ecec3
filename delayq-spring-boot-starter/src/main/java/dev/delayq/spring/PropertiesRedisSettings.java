package dev.delayq.spring;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.List;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.util.StringUtils;

/**
 * Boot's Redis settings ({@code spring.data.redis.*}) read the way Boot reads them: the URL wins over host, port,
 * database and credentials; Sentinel wins over cluster, cluster over standalone. Used when no service connection
 * supplies the details (Boot's own properties-based details do not tell whether a {@code rediss://} URL asked for
 * TLS, and they do not exist without Spring Data Redis).
 */
final class PropertiesRedisSettings {
    private PropertiesRedisSettings() {
    }

    /**
     * The settings of {@code properties}.
     *
     * @throws IllegalArgumentException naming the property that is invalid
     */
    static RedisSettings read(BootRedisProperties properties, SslBundles bundles) {
        URI url = parse(properties.getUrl());
        String username = properties.getUsername();
        String password = properties.getPassword();
        String info = url == null ? null : url.getUserInfo();
        if (info != null) {
            int colon = info.indexOf(':');
            username = colon <= 0 ? null : info.substring(0, colon);
            password = colon < 0 ? info : info.substring(colon + 1);
        }
        RedisSettings.Standalone standalone;
        if (url != null) {
            String path = url.getPath();
            int database = path == null || path.length() <= 1 ? 0 : Integer.parseInt(path.substring(1));
            standalone = new RedisSettings.Standalone(url.getHost(), url.getPort() > 0 ? url.getPort() : 6379, database);
        } else {
            standalone = new RedisSettings.Standalone(properties.getHost(), properties.getPort(), properties.getDatabase());
        }
        BootRedisProperties.Sentinel s = properties.getSentinel();
        RedisSettings.Sentinel sentinel = s == null ? null : new RedisSettings.Sentinel(standalone.database(),
                s.getMaster(), nodes(s.getNodes()), s.getUsername(), s.getPassword());
        BootRedisProperties.Cluster c = properties.getCluster();
        RedisSettings.Cluster cluster = c == null ? null : new RedisSettings.Cluster(nodes(c.getNodes()));
        return new RedisSettings(username, password, standalone, sentinel, cluster, ssl(properties, url, bundles));
    }

    private static URI parse(String url) {
        if (!StringUtils.hasText(url)) {
            return null;
        }
        try {
            URI uri = new URI(url);
            if (!"redis".equals(uri.getScheme()) && !"rediss".equals(uri.getScheme())) {
                throw new IllegalArgumentException("spring.data.redis.url '" + redacted(url)
                        + "' must start with redis:// or rediss://");
            }
            return uri;
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("spring.data.redis.url '" + redacted(url) + "' is not a valid URL: "
                    + e.getReason(), e);
        }
    }

    private static String redacted(String url) {
        return url.replaceAll("//[^@/]*@", "//***@");
    }

    /** The bundle named by {@code spring.data.redis.ssl.bundle}, the JVM's defaults for plain TLS, or null. */
    private static SslBundle ssl(BootRedisProperties properties, URI url, SslBundles bundles) {
        boolean enabled = properties.getSsl().isEnabled() || (url != null && "rediss".equals(url.getScheme()));
        if (!enabled) {
            return null;
        }
        String bundle = properties.getSsl().getBundle();
        if (StringUtils.hasLength(bundle)) {
            if (bundles == null) {
                throw new IllegalStateException("spring.data.redis.ssl.bundle is '" + bundle + "' but there are no SSL bundles");
            }
            return bundles.getBundle(bundle);
        }
        return SslBundle.systemDefault();
    }

    private static List<RedisSettings.Node> nodes(List<String> nodes) {
        if (nodes == null) {
            return List.of();
        }
        return nodes.stream().map(PropertiesRedisSettings::node).toList();
    }

    private static RedisSettings.Node node(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("Redis node '" + hostPort + "' must be host:port");
        }
        String host = hostPort.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        return new RedisSettings.Node(host, Integer.parseInt(hostPort.substring(colon + 1)));
    }
}
