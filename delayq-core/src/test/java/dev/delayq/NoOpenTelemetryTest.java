package dev.delayq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.testkit.RedisExtension;
import java.io.File;
import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * OpenTelemetry is optional: a client, a queue and a worker without it configured run with its API absent from the
 * class path, and never even ask for one of its classes. The test runs {@link Run} in a class loader that holds the
 * test's class path without the OpenTelemetry jars and records every request for an {@code io.opentelemetry} class.
 */
class NoOpenTelemetryTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    @Test
    void aQueueAndAWorkerRunWithoutOpenTelemetryOnTheClassPath() throws Exception {
        List<URL> urls = new ArrayList<>();
        for (String entry : classPath()) {
            if (!Path.of(entry).getFileName().toString().startsWith("opentelemetry-")) {
                urls.add(Path.of(entry).toUri().toURL());
            }
        }
        assertThat(urls).as("the class path without OpenTelemetry").isNotEmpty();
        Set<String> asked = ConcurrentHashMap.newKeySet();
        try (URLClassLoader loader = new URLClassLoader(urls.toArray(new URL[0]), ClassLoader.getPlatformClassLoader()) {
            @Override
            protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
                if (name.startsWith("io.opentelemetry.")) {
                    asked.add(name);
                }
                return super.loadClass(name, resolve);
            }
        }) {
            assertThat(loader.getResource("io/opentelemetry/api/OpenTelemetry.class")).as("no OpenTelemetry here").isNull();
            Class<?> run = loader.loadClass(Run.class.getName());
            assertThat(run.getClassLoader()).isSameAs(loader);
            // Lettuce's flight-recorder events, made by reflection, trip over the second copy of its classes: not ours.
            String jfr = System.setProperty("io.lettuce.core.jfr", "false");
            Object ran;
            try {
                ran = run.getMethod("run", String.class, String.class).invoke(null, REDIS.server().uri(), REDIS.prefix());
            } finally {
                if (jfr == null) {
                    System.clearProperty("io.lettuce.core.jfr");
                } else {
                    System.setProperty("io.lettuce.core.jfr", jfr);
                }
            }
            assertThat(ran).isEqualTo("ran traced-job with 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
        }
        assertThat(asked).as("OpenTelemetry classes asked for").isEmpty();
    }

    /** The entries of the class path, through a manifest-only jar (Surefire's booter) when there is one. */
    private static List<String> classPath() throws IOException {
        List<String> out = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            out.add(entry);
            if (entry.endsWith(".jar") && new File(entry).isFile()) {
                try (JarFile jar = new JarFile(entry)) {
                    Manifest m = jar.getManifest();
                    String cp = m == null ? null : m.getMainAttributes().getValue("Class-Path");
                    if (cp != null) {
                        for (String u : cp.trim().split("\\s+")) {
                            try {
                                out.add(Path.of(new URL(new File(entry).toURI().toURL(), u).toURI()).toString());
                            } catch (MalformedURLException | java.net.URISyntaxException e) {
                                throw new IllegalStateException(u, e);
                            }
                        }
                    }
                }
            }
        }
        return out;
    }

    /** Runs in the loader without OpenTelemetry: enqueues a job carrying a context and runs it with a worker. */
    public static final class Run {
        private Run() {
        }

        /** "ran ID with TRACEPARENT" once the worker ran the job. */
        public static String run(String redis, String prefix) throws InterruptedException {
            try (DelayQ dq = DelayQ.builder().redis(redis).prefix(prefix).build()) {
                JobQueue q = dq.queue("no-otel");
                java.util.concurrent.ArrayBlockingQueue<String> ran = new java.util.concurrent.ArrayBlockingQueue<>(1);
                try (Worker w = Worker.builder(q, ctx -> ran.add("ran " + ctx.id() + " with " + ctx.traceparent())).build().start()) {
                    q.enqueue(Job.builder().id("traced-job").traceContext("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", null)
                            .build());
                    return ran.poll(20, java.util.concurrent.TimeUnit.SECONDS);
                }
            }
        }
    }
}
