package dev.delayq.dashboard;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Real HTTP requests to a dashboard, with an optional bearer token and extra headers. */
final class Http {
    static final ObjectMapper JSON = new ObjectMapper();

    /** One answer. */
    record Response(int status, HttpResponse<byte[]> raw) {
        String body() {
            return new String(raw.body(), StandardCharsets.UTF_8);
        }

        int bytes() {
            return raw.body().length;
        }

        JsonNode json() {
            try {
                return JSON.readTree(raw.body());
            } catch (IOException e) {
                throw new AssertionError("not JSON (status " + status + "): " + body(), e);
            }
        }

        String header(String name) {
            return raw.headers().firstValue(name).orElse(null);
        }

        /** The error message of a JSON error answer. */
        String error() {
            return json().get("error").asText();
        }

        @Override
        public String toString() {
            return status + " " + body();
        }
    }

    private final HttpClient client = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER)
            .connectTimeout(Duration.ofSeconds(10)).build();
    private final String base;
    private final List<String> headers = new ArrayList<>();

    /** A client of {@code base} (e.g. {@code http://127.0.0.1:1234}) that sends {@code headers} (name, value, ...). */
    Http(String base, String... headers) {
        this.base = base.endsWith("/") ? base.substring(0, base.length() - 1) : base;
        this.headers.addAll(List.of(headers));
    }

    /** The same server with a bearer token. */
    Http withToken(String token) {
        return with("Authorization", "Bearer " + token);
    }

    /** The same server with more headers. */
    Http with(String... more) {
        Http h = new Http(base);
        h.headers.addAll(headers);
        h.headers.addAll(List.of(more));
        return h;
    }

    Response get(String path) {
        return send("GET", path, null);
    }

    Response post(String path) {
        return send("POST", path, null);
    }

    Response delete(String path) {
        return send("DELETE", path, null);
    }

    /** A form POST ({@code application/x-www-form-urlencoded}). */
    Response postForm(String path, String form) {
        return send("POST", path, form);
    }

    Response send(String method, String path, String form) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30));
        for (int i = 0; i < headers.size(); i += 2) {
            b.header(headers.get(i), headers.get(i + 1));
        }
        if (form != null) {
            b.header("Content-Type", "application/x-www-form-urlencoded");
            b.method(method, HttpRequest.BodyPublishers.ofString(form));
        } else {
            b.method(method, HttpRequest.BodyPublishers.noBody());
        }
        try {
            HttpResponse<byte[]> r = client.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
            return new Response(r.statusCode(), r);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
