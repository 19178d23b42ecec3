package dev.delayq.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A loopback TCP proxy between a client and a redis-server of a test (the fault suite's, a connection test's): it
 * listens on a free port of 127.0.0.1 only, forwards to a server on 127.0.0.1, and on demand
 * <ul>
 *   <li>closes the next connections it accepts at once, before forwarding a byte ({@link #closeNextAccepted(int)}),
 *       as a server that cuts a handshake short,</li>
 *   <li>drops every connection ({@link #dropAll()}),</li>
 *   <li>tears a reply: forwards only part of the next server-to-client chunk(s), then closes both sides
 *       ({@link #tearNext(int)}), so the client sees a reply cut mid-way,</li>
 *   <li>delays server-to-client traffic ({@link #latency(Duration)}),</li>
 *   <li>delays the server-to-client traffic of the connections whose client sent given bytes, e.g. one script's
 *       SHA, leaving the client's other connections alone ({@link #latencyAfter(String, Duration)}).</li>
 * </ul>
 * Bounded: at most {@code maxFaults} connections are closed on accept, dropped or torn over the proxy's life (later
 * requests are ignored and counted as refused), latency is capped. Seeded: where a reply is cut comes from one
 * {@link Random} of the given seed. Each connection has two pump threads of its own; {@link #close()} stops them
 * all and closes every socket.
 */
public final class FaultProxy implements AutoCloseable {
    private static final Duration MAX_LATENCY = Duration.ofSeconds(30);
    private static final int CHUNK = 16 * 1024;

    private final ServerSocket listener;
    private final InetSocketAddress target;
    private final Random random;
    private final FaultBudget budget;
    private final Set<Link> links = ConcurrentHashMap.newKeySet();
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicInteger tearsArmed = new AtomicInteger();
    private final AtomicInteger closesArmed = new AtomicInteger();
    private final AtomicLong closedOnAccept = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong torn = new AtomicLong();
    private final AtomicLong accepted = new AtomicLong();
    private volatile long latencyMillis;
    private volatile byte[] slowMarker;
    private volatile long slowMillis;
    private final AtomicLong slowed = new AtomicLong();
    private volatile int tearMinBytes = 2;
    private volatile boolean closed;
    private final Gate gate = new Gate();

    private FaultProxy(ServerSocket listener, InetSocketAddress target, long seed, FaultBudget budget) {
        this.listener = listener;
        this.target = target;
        this.random = new Random(seed);
        this.budget = budget;
    }

    /**
     * Starts a proxy to {@code 127.0.0.1:targetPort}.
     *
     * @param seed      seed of every random choice (where a reply is cut)
     * @param maxFaults most connections closed on accept, dropped or torn over the proxy's life
     */
    public static FaultProxy start(int targetPort, long seed, int maxFaults) {
        FaultBudget budget = new FaultBudget(maxFaults); // refuses a negative one before a port is taken
        try {
            InetAddress loopback = InetAddress.getByName("127.0.0.1");
            ServerSocket s = new ServerSocket(0, 50, loopback);
            FaultProxy p = new FaultProxy(s, new InetSocketAddress(loopback, targetPort), seed, budget);
            p.spawn("fault-proxy-accept-" + s.getLocalPort(), p::acceptLoop);
            return p;
        } catch (IOException e) {
            throw new IllegalStateException("cannot start the fault proxy: " + e.getMessage(), e);
        }
    }

    /** The port it listens on (127.0.0.1). */
    public int port() {
        return listener.getLocalPort();
    }

    /** {@code redis://127.0.0.1:<port>}: clients connect here instead of to the server. */
    public String uri() {
        return "redis://127.0.0.1:" + port();
    }

    /** Closes every open connection (both sides) at once; returns how many were closed. */
    public int dropAll() {
        int n = 0;
        for (Link l : links) {
            if (!budget.spend()) {
                break;
            }
            l.close();
            dropped.incrementAndGet();
            n++;
        }
        return n;
    }

    /**
     * Arms {@code n} tears: each of the next {@code n} server-to-client chunks (of any connection) is forwarded
     * only in part (1 to length-1 bytes, seeded), then its connection is closed on both sides.
     */
    public void tearNext(int n) {
        tearNext(n, 2);
    }

    /**
     * As {@link #tearNext(int)}, tearing only chunks of at least {@code minBytes} bytes (e.g. only replies that carry
     * whole job records; smaller chunks pass untouched).
     */
    public void tearNext(int n, int minBytes) {
        if (minBytes < 2) {
            throw new IllegalArgumentException("a torn chunk needs at least 2 bytes, was " + minBytes);
        }
        tearMinBytes = minBytes;
        tearsArmed.addAndGet(n);
    }

    /**
     * Closes each of the next {@code n} connections as soon as it is accepted, before it reaches the server: the
     * client sees its connection closed during the handshake. Later connections are forwarded.
     */
    public void closeNextAccepted(int n) {
        if (n < 0) {
            throw new IllegalArgumentException("connections to close must be >= 0, was " + n);
        }
        closesArmed.addAndGet(n);
    }

    /**
     * Holds every connection accepted from now on before it reaches the server, until {@link #release()}: its client
     * waits in its handshake (a slow or unreachable server, as a new connection sees it).
     */
    public void hold() {
        gate.shut();
    }

    /** Lets held connections (and later ones) through. */
    public void release() {
        gate.open();
    }

    /** Connections being held now by {@link #hold()}. */
    public int held() {
        return gate.waiting();
    }

    /** Connections closed on accept by {@link #closeNextAccepted(int)}. */
    public long closedOnAccept() {
        return closedOnAccept.get();
    }

    /** Ends every fault: no tear or close armed, no latency. Connections already cut stay cut (clients reconnect). */
    public void heal() {
        tearsArmed.set(0);
        closesArmed.set(0);
        latencyMillis = 0;
        slowMillis = 0;
    }

    /** Tears armed and not yet done. */
    public int tearsPending() {
        return tearsArmed.get();
    }

    /** Delays every server-to-client chunk by {@code d} from now on ({@link Duration#ZERO} heals). */
    public void latency(Duration d) {
        latencyMillis = checkedMillis(d);
    }

    /**
     * From now on, delays every server-to-client chunk by {@code d} on each connection whose client has sent
     * {@code marker} (ASCII, e.g. {@code Script.PURGE.sha()}), starting with the first chunk after the marker; other
     * connections are not slowed. {@link Duration#ZERO} heals.
     */
    public void latencyAfter(String marker, Duration d) {
        if (marker == null || marker.isEmpty()) {
            throw new IllegalArgumentException("marker must not be empty");
        }
        slowMillis = checkedMillis(d);
        slowMarker = marker.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }

    private static long checkedMillis(Duration d) {
        if (d.isNegative() || d.compareTo(MAX_LATENCY) > 0) {
            throw new IllegalArgumentException("latency must be within 0.." + MAX_LATENCY + ", was " + d);
        }
        return d.toMillis();
    }

    /** Connections slowed by {@link #latencyAfter(String, Duration)} so far (their client sent the marker). */
    public long slowed() {
        return slowed.get();
    }

    /** Connections dropped by {@link #dropAll()}. */
    public long dropped() {
        return dropped.get();
    }

    /** Replies torn mid-way. */
    public long torn() {
        return torn.get();
    }

    /** Connections accepted so far (the first and every reconnect). */
    public long accepted() {
        return accepted.get();
    }

    /** Faults asked for beyond the budget, not done. */
    public long refused() {
        return budget.refused();
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                return; // closed
            }
            if (budget.take(closesArmed)) {
                closeQuietly(client);
                closedOnAccept.incrementAndGet();
                continue;
            }
            gate.pass(() -> closed);
            Socket server = new Socket();
            try {
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
                server.connect(target, 5_000);
            } catch (IOException e) {
                closeQuietly(client);
                closeQuietly(server);
                continue; // the server is down: the client sees a closed connection and reconnects later
            }
            accepted.incrementAndGet();
            Link link = new Link(client, server);
            links.add(link);
            if (closed) {
                link.close();
                return;
            }
            spawn("fault-proxy-up-" + client.getPort(), () -> link.pump(client, server, false));
            spawn("fault-proxy-down-" + client.getPort(), () -> link.pump(server, client, true));
        }
    }

    private synchronized void spawn(String name, Runnable body) {
        threads.removeIf(t -> !t.isAlive());
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        threads.add(t);
        t.start();
    }

    /** One proxied connection: the client's socket and the one to the server. */
    private final class Link {
        private final Socket client;
        private final Socket server;
        /** The client sent the marker of {@link #latencyAfter}: this connection's replies are slowed. */
        private volatile boolean marked;
        /** What the client sent, watched for the marker. */
        private final MarkerWatch sent = new MarkerWatch();

        Link(Socket client, Socket server) {
            this.client = client;
            this.server = server;
        }

        void pump(Socket from, Socket to, boolean reply) {
            byte[] buf = new byte[CHUNK];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buf)) >= 0) {
                    if (!reply) {
                        watchForMarker(buf, n);
                    }
                    if (reply) {
                        long delay = latencyMillis + (marked ? slowMillis : 0);
                        if (delay > 0) {
                            Thread.sleep(delay); // the injected fault itself, not a wait for a condition
                        }
                        if (n >= tearMinBytes && budget.take(tearsArmed)) {
                            int part;
                            synchronized (random) {
                                part = 1 + random.nextInt(n - 1);
                            }
                            out.write(buf, 0, part);
                            out.flush();
                            torn.incrementAndGet();
                            return; // finally closes both sides mid-reply
                        }
                    }
                    out.write(buf, 0, n);
                    out.flush();
                }
            } catch (IOException | InterruptedException e) {
                // the other side closed, a fault closed us, or the proxy is closing: end this connection
            } finally {
                close();
            }
        }

        private void watchForMarker(byte[] buf, int n) {
            byte[] marker = slowMarker;
            if (marker != null && !marked && sent.feed(marker, buf, n)) {
                marked = true;
                slowed.incrementAndGet();
            }
        }

        void close() {
            links.remove(this);
            closeQuietly(client);
            closeQuietly(server);
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing is best effort: the socket is gone either way
        }
    }

    /** Stops accepting, closes every connection and waits (bounded) for the proxy's threads to end. */
    @Override
    public void close() {
        closed = true;
        try {
            listener.close();
        } catch (IOException ignored) {
            // already closed
        }
        links.forEach(Link::close);
        List<Thread> all;
        synchronized (this) {
            all = new ArrayList<>(threads);
        }
        for (Thread t : all) {
            t.interrupt();
            try {
                t.join(2_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    @Override
    public String toString() {
        return "FaultProxy[" + uri() + " -> " + target + ", closed on accept " + closedOnAccept + ", dropped " + dropped
                + ", torn " + torn + "]";
    }
}
