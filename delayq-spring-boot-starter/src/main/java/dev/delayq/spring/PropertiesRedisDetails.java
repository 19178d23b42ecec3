package dev.delayq.spring;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.List;
import org.springframework.boot.autoconfigure.data.redis.RedisConnectionDetails;
import org.springframework.boot.autoconfigure.data.redis.RedisProperties;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.util.StringUtils;

/**
 * Boot's Redis settings ({@code spring.data.redis.*}) as connection details, read the way Boot reads them: the
 * URL wins over host, port, database and credentials; Sentinel wins over cluster, cluster over standalone. Used
 * when no service connection supplies the details (Boot's own properties-based details do not tell whether a
 * {@code rediss://} URL asked for TLS, and they do not exist without Spring Data Redis).
 */
final class PropertiesRedisDetails implements RedisConnectionDetails {
    private final RedisProperties properties;
    private final SslBundles bundles;
    private final URI url;

    PropertiesRedisDetails(RedisProperties properties, SslBundles bundles) {
        this.properties = properties;
        this.bundles = bundles;
        this.url = parse(properties.getUrl());
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

    private String[] urlCredentials() {
        String info = url == null ? null : url.getUserInfo();
        if (info == null) {
            return null;
        }
        int colon = info.indexOf(':');
        return colon < 0 ? new String[] {null, info} : new String[] {colon == 0 ? null : info.substring(0, colon),
                info.substring(colon + 1)};
    }

    @Override
    public String getUsername() {
        String[] c = urlCredentials();
        return c != null ? c[0] : properties.getUsername();
    }

    @Override
    public String getPassword() {
        String[] c = urlCredentials();
        return c != null ? c[1] : properties.getPassword();
    }

    @Override
    public Standalone getStandalone() {
        if (url != null) {
            String path = url.getPath();
            int database = path == null || path.length() <= 1 ? 0 : Integer.parseInt(path.substring(1));
            return Standalone.of(url.getHost(), url.getPort() > 0 ? url.getPort() : 6379, database, ssl());
        }
        return Standalone.of(properties.getHost(), properties.getPort(), properties.getDatabase(), ssl());
    }

    @Override
    public Sentinel getSentinel() {
        RedisProperties.Sentinel s = properties.getSentinel();
        if (s == null) {
            return null;
        }
        int database = getStandalone().getDatabase();
        List<Node> nodes = nodes(s.getNodes());
        SslBundle ssl = ssl();
        return new Sentinel() {
            @Override
            public int getDatabase() {
                return database;
            }

            @Override
            public String getMaster() {
                return s.getMaster();
            }

            @Override
            public List<Node> getNodes() {
                return nodes;
            }

            @Override
            public String getUsername() {
                return s.getUsername();
            }

            @Override
            public String getPassword() {
                return s.getPassword();
            }

            @Override
            public SslBundle getSslBundle() {
                return ssl;
            }
        };
    }

    @Override
    public Cluster getCluster() {
        RedisProperties.Cluster c = properties.getCluster();
        if (c == null) {
            return null;
        }
        List<Node> nodes = nodes(c.getNodes());
        SslBundle ssl = ssl();
        return new Cluster() {
            @Override
            public List<Node> getNodes() {
                return nodes;
            }

            @Override
            public SslBundle getSslBundle() {
                return ssl;
            }
        };
    }

    /** The bundle named by {@code spring.data.redis.ssl.bundle}, the JVM's defaults for plain TLS, or null. */
    private SslBundle ssl() {
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

    private static List<Node> nodes(List<String> nodes) {
        if (nodes == null) {
            return List.of();
        }
        return nodes.stream().map(PropertiesRedisDetails::node).toList();
    }

    private static Node node(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("Redis node '" + hostPort + "' must be host:port");
        }
        String host = hostPort.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        return new Node(host, Integer.parseInt(hostPort.substring(colon + 1)));
    }
}
