package dev.delayq.dashboard;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * HTTP/1.1 requests written byte for byte, for what java.net.http will not send: a URI Jetty refuses, a Host header of
 * our choosing, a request from another loopback address (127.0.0.2).
 */
final class Raw {
    /** An answer: status, headers (names in lower case, the last value of each) and body. */
    record Answer(int status, Map<String, String> headers, String body) {
        String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    private Raw() {
    }

    /** Sends {@code method target} with {@code headers} ("Name: value" lines) from {@code from} (null: any). */
    static Answer send(String from, int port, String method, String target, String body, String... headers) throws IOException {
        try (Socket socket = new Socket()) {
            if (from != null) {
                socket.bind(new InetSocketAddress(InetAddress.getByName(from), 0));
            }
            socket.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
            socket.setSoTimeout(30_000);
            StringBuilder req = new StringBuilder(method + " " + target + " HTTP/1.1\r\n");
            boolean host = false;
            for (String h : headers) {
                host |= h.regionMatches(true, 0, "Host:", 0, 5);
                req.append(h).append("\r\n");
            }
            if (!host) {
                req.append("Host: 127.0.0.1:").append(port).append("\r\n");
            }
            byte[] b = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
            req.append("Content-Length: ").append(b.length).append("\r\nConnection: close\r\n\r\n");
            OutputStream out = socket.getOutputStream();
            out.write(req.toString().getBytes(StandardCharsets.ISO_8859_1));
            out.write(b);
            out.flush();
            InputStream in = socket.getInputStream();
            String all = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
            int end = all.indexOf("\r\n\r\n");
            String[] lines = all.substring(0, end < 0 ? all.length() : end).split("\r\n");
            Map<String, String> hs = new LinkedHashMap<>();
            for (int i = 1; i < lines.length; i++) {
                int colon = lines[i].indexOf(':');
                if (colon > 0) {
                    hs.put(lines[i].substring(0, colon).strip().toLowerCase(Locale.ROOT), lines[i].substring(colon + 1).strip());
                }
            }
            return new Answer(Integer.parseInt(lines[0].substring(9, 12)), hs, end < 0 ? "" : all.substring(end + 4));
        }
    }
}
