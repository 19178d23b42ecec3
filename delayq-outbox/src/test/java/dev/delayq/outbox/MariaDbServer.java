package dev.delayq.outbox;

import dev.delayq.testkit.RedisServer;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Assumptions;

/**
 * A real MariaDB for the tests, in this order: a private {@code mariadbd} the tests start from the machine's binaries
 * (Debian's mariadb-server: {@code mariadbd} and {@code mariadb-install-db}) on a free port in a temporary directory;
 * else the machine's own server on 127.0.0.1:3306 (user root, no password), in a database of the test's own that it
 * creates and drops; else the tests abort, and the build's last line lists them as skipped with this reason.
 */
final class MariaDbServer {
    private static final AtomicInteger DATABASES = new AtomicInteger();
    private static String baseUrl;
    private static String where;

    private MariaDbServer() {
    }

    private static synchronized String baseUrl() {
        if (baseUrl == null) {
            Optional<Path> server = binary("mariadbd", "/usr/sbin/mariadbd", "/usr/sbin/mysqld");
            Optional<Path> install = binary("mariadb-install-db", "/usr/bin/mariadb-install-db",
                    "/usr/bin/mysql_install_db");
            if (server.isPresent() && install.isPresent()) {
                baseUrl = startPrivate(server.get(), install.get());
                where = "private server";
            } else if (reachable("jdbc:mariadb://127.0.0.1:3306/")) {
                baseUrl = "jdbc:mariadb://127.0.0.1:3306/";
                where = "the machine's server on 127.0.0.1:3306";
            } else {
                Assumptions.abort("MariaDB is not installed (no mariadbd and mariadb-install-db on the PATH or in "
                        + "/usr/sbin, /usr/bin) and no server answers on 127.0.0.1:3306 as root without a password: "
                        + "apt-get install mariadb-server");
            }
        }
        return baseUrl;
    }

    private static Optional<Path> binary(String name, String... fallbacks) {
        List<String> candidates = new ArrayList<>();
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            candidates.add(dir + "/" + name);
        }
        candidates.addAll(List.of(fallbacks));
        return candidates.stream().map(Path::of).filter(Files::isExecutable).findFirst();
    }

    private static boolean reachable(String url) {
        try (Connection c = DriverManager.getConnection(url, "root", "")) {
            return c.isValid(5);
        } catch (SQLException e) {
            return false;
        }
    }

    private static String startPrivate(Path mariadbd, Path installDb) {
        try {
            Path dir = Files.createTempDirectory("delayq-mariadb");
            Path data = dir.resolve("data");
            boolean root = "root".equals(System.getProperty("user.name"));
            List<String> install = new ArrayList<>(List.of(installDb.toString(), "--no-defaults", "--datadir=" + data,
                    "--auth-root-authentication-method=normal", "--skip-test-db"));
            if (root) {
                install.add("--user=root");
            }
            Process p = new ProcessBuilder(install).redirectErrorStream(true)
                    .redirectOutput(dir.resolve("install.log").toFile()).start();
            if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException("mariadb-install-db failed: " + Files.readString(dir.resolve("install.log")));
            }
            int port = RedisServer.freePort();
            List<String> cmd = new ArrayList<>(List.of(mariadbd.toString(), "--no-defaults", "--datadir=" + data,
                    "--port=" + port, "--bind-address=127.0.0.1", "--socket=" + dir.resolve("mysqld.sock"),
                    "--pid-file=" + dir.resolve("mysqld.pid"), "--skip-log-bin", "--innodb-buffer-pool-size=128M",
                    "--max-connections=200"));
            if (root) {
                cmd.add("--user=root");
            }
            Process server = new ProcessBuilder(cmd).redirectErrorStream(true)
                    .redirectOutput(dir.resolve("server.log").toFile()).start();
            Runtime.getRuntime().addShutdownHook(new Thread(server::destroyForcibly));
            String url = "jdbc:mariadb://127.0.0.1:" + port + "/";
            Awaitility.await("private mariadbd on port " + port + " (log: " + dir.resolve("server.log") + ")")
                    .atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200))
                    .until(() -> !server.isAlive() || reachable(url));
            if (!server.isAlive()) {
                throw new IllegalStateException("mariadbd exited: " + Files.readString(dir.resolve("server.log")));
            }
            return url;
        } catch (IOException e) {
            throw new IllegalStateException("cannot start a private mariadbd", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** A new database with the outbox's tables; dropped by {@link TestDatabase#close()}. */
    static TestDatabase database() throws SQLException {
        String base = baseUrl();
        String name = "delayq_outbox_test_" + ProcessHandle.current().pid() + "_" + DATABASES.incrementAndGet();
        String version;
        try (Connection c = DriverManager.getConnection(base, "root", ""); Statement st = c.createStatement()) {
            st.execute("CREATE DATABASE " + name);
            version = c.getMetaData().getDatabaseProductVersion();
        }
        String url = base + name;
        DataSource ds = TestDatabase.driverManager(url, "root", "");
        try (Connection c = ds.getConnection()) {
            OutboxSchema.create(c, "delayq_outbox");
        }
        String describe = "MariaDB " + version + " (" + where + ")";
        return new TestDatabase() {
            @Override
            public String describe() {
                return describe;
            }

            @Override
            public String jdbcUrl() {
                return url;
            }

            @Override
            public String user() {
                return "root";
            }

            @Override
            public String nextval(String name) {
                return "SELECT NEXTVAL(" + name + ")";
            }

            @Override
            public DataSource dataSource() {
                return ds;
            }

            @Override
            public void close() throws SQLException {
                try (Connection c = DriverManager.getConnection(base, "root", ""); Statement st = c.createStatement()) {
                    st.execute("DROP DATABASE " + name);
                }
            }
        };
    }
}
