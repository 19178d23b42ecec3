package dev.delayq.spring;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Optional;

/** Real HTTP requests to the application's embedded web server, as a browser or curl sends them to the dashboard. */
final class DashboardHttp {
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10))
            .followRedirects(HttpClient.Redirect.NEVER).build();
    private final String root;

    DashboardHttp(int port) {
        this.root = "http://127.0.0.1:" + port;
    }

    /** A request to {@code path} (from the server's root) with the given headers, name-value pairs. */
    HttpResponse<String> send(String method, String path, String... headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(root + path)).timeout(Duration.ofSeconds(30))
                .method(method, HttpRequest.BodyPublishers.noBody());
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        try {
            return client.send(b.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** A form POST, as the login page sends it. */
    HttpResponse<String> form(String path, String body) {
        HttpRequest r = HttpRequest.newBuilder(URI.create(root + path)).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        try {
            return client.send(r, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    HttpResponse<String> get(String path, String... headers) {
        return send("GET", path, headers);
    }

    HttpResponse<String> post(String path, String... headers) {
        return send("POST", path, headers);
    }

    static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    /** The value of the cookie {@code name} a response sets, if it does. */
    static Optional<String> setCookie(HttpResponse<?> response, String name) {
        return response.headers().allValues("Set-Cookie").stream().filter(c -> c.startsWith(name + "="))
                .map(c -> c.substring(name.length() + 1, c.indexOf(';') > 0 ? c.indexOf(';') : c.length()))
                .findFirst();
    }
}
