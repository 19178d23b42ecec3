package dev.delayq.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Locale;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds a {@code redis-server} executable: the one named by {@code DELAYQ_REDIS_SERVER} (environment) or
 * {@code delayq.redis.server} (system property) if set, else the one on {@code PATH} when it is at least
 * 6.2, else the binary bundled in the {@code com.github.codemonstur:embedded-redis} artifact, extracted once
 * into the temporary directory.
 *
 * <p>Setting the property or variable to {@code embedded} forces the bundled binary (CI uses this to run the
 * contract tests on Redis 6.2 as well as on the machine's 7.x).
 */
public final class RedisBinary {
    private static final Pattern VERSION = Pattern.compile("v=(\\d+)\\.(\\d+)\\.(\\d+)");
    private static volatile RedisBinary cached;

    private final Path path;
    private final String version;

    private RedisBinary(Path path, String version) {
        this.path = path;
        this.version = version;
    }

    /** The executable's path. */
    public Path path() {
        return path;
    }

    /** The version it reports, e.g. {@code 7.0.15}. */
    public String version() {
        return version;
    }

    @Override
    public String toString() {
        return "redis-server " + version + " (" + path + ")";
    }

    /**
     * Locates the binary once per JVM (see the class comment for the order).
     *
     * @throws IllegalStateException when no usable binary exists for this platform
     */
    public static RedisBinary locate() {
        RedisBinary b = cached;
        if (b == null) {
            synchronized (RedisBinary.class) {
                b = cached;
                if (b == null) {
                    b = find();
                    cached = b;
                }
            }
        }
        return b;
    }

    private static RedisBinary find() {
        String forced = System.getProperty("delayq.redis.server", System.getenv("DELAYQ_REDIS_SERVER"));
        if (forced != null && !forced.isBlank()) {
            if (forced.equals("embedded")) {
                return embedded();
            }
            Path p = Path.of(forced);
            String v = versionOf(p).orElseThrow(() -> new IllegalStateException(
                    "DELAYQ_REDIS_SERVER=" + forced + " is not a runnable redis-server"));
            return new RedisBinary(p, v);
        }
        Optional<Path> onPath = onPath("redis-server");
        if (onPath.isPresent()) {
            Optional<String> v = versionOf(onPath.get());
            if (v.isPresent() && atLeast(v.get(), 6, 2)) {
                return new RedisBinary(onPath.get(), v.get());
            }
        }
        return embedded();
    }

    static boolean atLeast(String version, int major, int minor) {
        String[] parts = version.split("\\.");
        int ma = Integer.parseInt(parts[0]);
        int mi = parts.length > 1 ? Integer.parseInt(parts[1]) : 0;
        return ma > major || (ma == major && mi >= minor);
    }

    private static Optional<Path> onPath(String name) {
        String pathVar = System.getenv("PATH");
        if (pathVar == null) {
            return Optional.empty();
        }
        for (String dir : pathVar.split(java.io.File.pathSeparator)) {
            if (dir.isEmpty()) {
                continue;
            }
            Path candidate = Path.of(dir, name);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    private static Optional<String> versionOf(Path binary) {
        try {
            Process p = new ProcessBuilder(binary.toString(), "--version").redirectErrorStream(true).start();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return Optional.empty();
            }
            Matcher m = VERSION.matcher(new String(out, StandardCharsets.UTF_8));
            return m.find() ? Optional.of(m.group(1) + "." + m.group(2) + "." + m.group(3)) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    /**
     * A server of at least {@code major.minor} (e.g. 7.2 for {@code WAITAOF}): the one {@link #locate()} finds when it is
     * new enough, else {@code DELAYQ_REDIS_SERVER_NEW} (or the property {@code delayq.redis.server.new}), else
     * {@code valkey-server} (Valkey 7.2 and later speak Redis 7.2) on the PATH; empty when this machine has none (Debian
     * 12's redis-server is 7.0).
     */
    public static Optional<RedisBinary> atLeast(int major, int minor) {
        RedisBinary usual = locate();
        if (atLeast(usual.version, major, minor)) {
            return Optional.of(usual);
        }
        String named = System.getProperty("delayq.redis.server.new", System.getenv("DELAYQ_REDIS_SERVER_NEW"));
        List<Path> candidates = new java.util.ArrayList<>();
        if (named != null && !named.isBlank()) {
            candidates.add(Path.of(named));
        }
        onPath("valkey-server").ifPresent(candidates::add);
        for (Path c : candidates) {
            Optional<String> v = versionOf(c);
            if (v.isPresent() && atLeast(v.get(), major, minor)) {
                return Optional.of(new RedisBinary(c, v.get()));
            }
        }
        return Optional.empty();
    }

    /**
     * The binary bundled in the embedded-redis artifact (Redis 6.2), regardless of PATH: tests use it to
     * prove the scripts run on the oldest supported version.
     */
    public static RedisBinary bundled() {
        return embedded();
    }

    private static RedisBinary embedded() {
        String resource = embeddedResourceName();
        Path dir = Path.of(System.getProperty("java.io.tmpdir"), "delayq-redis-" + System.getProperty("user.name", "u"));
        Path target = dir.resolve(resource);
        try {
            if (!Files.isExecutable(target)) {
                Files.createDirectories(dir);
                // Extract to a private temporary file, then move it into place, so concurrent JVMs never
                // run a half-written binary.
                Path tmp = Files.createTempFile(dir, resource, ".part");
                try (InputStream in = RedisBinary.class.getClassLoader().getResourceAsStream(resource)) {
                    if (in == null) {
                        throw new IllegalStateException("no redis-server on PATH (>= 6.2) and the embedded-redis "
                                + "artifact has no " + resource + " on the class path");
                    }
                    Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
                }
                Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
                try {
                    Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                } catch (AtomicMoveNotSupportedException e) {
                    Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot extract the embedded redis-server to " + target + ": " + e, e);
        }
        String v = versionOf(target).orElseThrow(() -> new IllegalStateException(
                "the embedded redis-server " + target + " does not run on this machine"));
        return new RedisBinary(target, v);
    }

    private static String embeddedResourceName() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        boolean arm = arch.contains("aarch64") || arch.contains("arm64");
        if (os.contains("linux")) {
            return arm ? "redis-server-6.2.7-linux-arm64" : "redis-server-6.2.6-v5-linux-amd64";
        }
        if (os.contains("mac") || os.contains("darwin")) {
            return arm ? "redis-server-6.2.6-v5-darwin-arm64" : "redis-server-6.2.6-v5-darwin-amd64";
        }
        throw new IllegalStateException("no embedded redis-server for " + os + "/" + arch
                + "; install redis-server >= 6.2 on PATH or set DELAYQ_REDIS_SERVER");
    }
}
