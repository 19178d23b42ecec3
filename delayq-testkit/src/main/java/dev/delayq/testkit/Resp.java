package dev.delayq.testkit;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A minimal blocking RESP2 client for the testkit's own needs (readiness, INFO, SHUTDOWN, fault injection
 * such as SCRIPT FLUSH or CLIENT KILL). Not thread-safe. Applications use delayq's Lettuce-based client.
 */
public final class Resp implements Closeable {
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    /** Thrown for a Redis error reply ({@code -ERR ...}). */
    public static final class ErrorReply extends IOException {
        ErrorReply(String message) {
            super(message);
        }
    }

    /**
     * Connects to {@code host:port}.
     *
     * @param timeoutMillis connect and read timeout
     * @throws IOException when the connection fails
     */
    public Resp(String host, int port, int timeoutMillis) throws IOException {
        socket = new Socket();
        socket.connect(new InetSocketAddress(host, port), timeoutMillis);
        socket.setSoTimeout(timeoutMillis);
        socket.setTcpNoDelay(true);
        in = new BufferedInputStream(socket.getInputStream());
        out = socket.getOutputStream();
    }

    /**
     * Sends one command and reads its reply: a {@code String} for simple and bulk strings, {@code Long} for
     * integers, {@code List<Object>} for arrays, {@code null} for nil.
     *
     * @throws ErrorReply when Redis answers with an error
     * @throws IOException when the connection fails
     */
    public Object call(String... args) throws IOException {
        send(args);
        return read(false);
    }

    /** Like {@link #call} but bulk strings come back as {@code byte[]} (for binary keys and members). */
    public Object callRaw(String... args) throws IOException {
        send(args);
        return read(true);
    }

    /** Reads the next reply or pushed message (after SUBSCRIBE), bulk strings as {@code String}. */
    public Object receive() throws IOException {
        return read(false);
    }

    private void send(String... args) throws IOException {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        buf.write(('*' + String.valueOf(args.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
        for (String a : args) {
            byte[] b = a.getBytes(StandardCharsets.UTF_8);
            buf.write(('$' + String.valueOf(b.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
            buf.write(b);
            buf.write('\r');
            buf.write('\n');
        }
        out.write(buf.toByteArray());
        out.flush();
    }

    /** Like {@link #call} but returns the reply as a string. */
    public String callString(String... args) throws IOException {
        Object r = call(args);
        return r == null ? null : r.toString();
    }

    private Object read(boolean raw) throws IOException {
        int type = in.read();
        if (type < 0) {
            throw new EOFException("connection closed by server");
        }
        String line = readLine();
        switch (type) {
            case '+':
                return line;
            case '-':
                throw new ErrorReply(line);
            case ':':
                return Long.parseLong(line);
            case '$': {
                int len = Integer.parseInt(line);
                if (len < 0) {
                    return null;
                }
                byte[] data = in.readNBytes(len);
                if (data.length < len) {
                    throw new EOFException("short bulk reply");
                }
                in.readNBytes(2);
                return raw ? data : new String(data, StandardCharsets.UTF_8);
            }
            case '*': {
                int n = Integer.parseInt(line);
                if (n < 0) {
                    return null;
                }
                List<Object> items = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    try {
                        items.add(read(raw));
                    } catch (ErrorReply e) {
                        items.add(e);
                    }
                }
                return items;
            }
            default:
                throw new IOException("unexpected RESP type byte " + type);
        }
    }

    private String readLine() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) != '\r') {
            if (c < 0) {
                throw new EOFException("connection closed by server");
            }
            line.write(c);
        }
        in.read(); // '\n'
        return line.toString(StandardCharsets.UTF_8);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
