package dev.delayq.dashboard;

import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;

/** An {@link Exchange} inside an application's servlet container, the dashboard mounted at {@link #base()}. */
final class ServletExchange implements Exchange {
    private final HttpServletRequest req;
    private final HttpServletResponse res;
    private final String base;
    private final String path;
    private Map<String, String> params = Map.of();

    ServletExchange(HttpServletRequest req, HttpServletResponse res, String base, String path) {
        this.req = req;
        this.res = res;
        this.base = base;
        this.path = path;
    }

    void params(Map<String, String> matched) {
        this.params = matched;
    }

    @Override
    public String method() {
        return req.getMethod();
    }

    @Override
    public String path() {
        return path;
    }

    @Override
    public String pathParam(String name) {
        String v = params.get(name);
        if (v == null) {
            throw new IllegalStateException("no path parameter " + name);
        }
        return v;
    }

    @Override
    public String queryParam(String name) {
        return req.getParameter(name);
    }

    @Override
    public String formParam(String name) {
        return req.getParameter(name);
    }

    @Override
    public String header(String name) {
        return req.getHeader(name);
    }

    @Override
    public String cookie(String name) {
        Cookie[] cookies = req.getCookies();
        if (cookies != null) {
            for (Cookie c : cookies) {
                if (c.getName().equals(name)) {
                    return c.getValue();
                }
            }
        }
        return null;
    }

    @Override
    public String scheme() {
        return req.getScheme();
    }

    @Override
    public String base() {
        return base;
    }

    @Override
    public void header(String name, String value) {
        res.setHeader(name, value);
    }

    @Override
    public void respond(int status, String contentType, byte[] body) {
        res.setStatus(status);
        res.setContentType(contentType);
        res.setContentLength(body.length);
        if (req.getMethod().equals("HEAD")) {
            return;
        }
        try {
            res.getOutputStream().write(body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void redirect(String to) {
        res.setStatus(303);
        res.setHeader("Location", base + to);
    }

    @Override
    public String remoteAddress() {
        return req.getRemoteAddr();
    }
}
