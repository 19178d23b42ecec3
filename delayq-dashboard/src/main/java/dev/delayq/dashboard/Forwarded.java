package dev.delayq.dashboard;

import java.util.Locale;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

/**
 * What a reverse proxy says about the original request: {@code X-Forwarded-Proto} (the scheme the browser used),
 * {@code X-Forwarded-Host} (the host name and port it used), {@code X-Forwarded-Prefix} (the path the proxy strips) and
 * the last entry of {@code X-Forwarded-For} (the address the proxy saw). Read only when the operator says the
 * dashboard is behind a proxy that sets them ({@link Dashboard.Builder#trustForwardedHeaders}): anyone can send these
 * headers, so trusting them by default would let a client choose the origin the same-origin check compares with, the
 * cookie's {@code Secure} flag and the address the login throttle counts.
 *
 * @param scheme        {@code http} or {@code https}
 * @param host          the {@code Host} the browser sent
 * @param prefix        the path before the dashboard's own, {@code ""} or e.g. {@code /delayq} (no trailing slash)
 * @param remoteAddress the client's address
 */
record Forwarded(String scheme, String host, String prefix, String remoteAddress) {
    /** Where the standalone server keeps it for the request. */
    static final String ATTRIBUTE = "dev.delayq.dashboard.forwarded";
    private static final Pattern HOST = Pattern.compile("[A-Za-z0-9.\\-]+(:[0-9]{1,5})?|\\[[0-9A-Fa-f:.]+\\](:[0-9]{1,5})?");
    private static final Pattern PREFIX = Pattern.compile("(/[A-Za-z0-9._~\\-]+)+");
    private static final int MAX_PREFIX = 200;

    /**
     * The original request's facts from the headers ({@code header}), each falling back to the request's own when its
     * header is absent.
     *
     * @throws ApiException 400 when a header is malformed (it comes from the proxy, so it is a set-up error)
     */
    static Forwarded of(UnaryOperator<String> header, String scheme, String host, String remoteAddress) {
        String proto = first(header.apply("X-Forwarded-Proto"));
        if (proto != null) {
            proto = proto.toLowerCase(Locale.ROOT);
            if (!proto.equals("http") && !proto.equals("https")) {
                throw ApiException.badRequest("X-Forwarded-Proto is '" + proto + "': it must be http or https");
            }
        }
        String fhost = first(header.apply("X-Forwarded-Host"));
        if (fhost != null && !HOST.matcher(fhost).matches()) {
            throw ApiException.badRequest("X-Forwarded-Host is not a host name with an optional port");
        }
        String prefix = first(header.apply("X-Forwarded-Prefix"));
        if (prefix != null) {
            while (prefix.endsWith("/")) {
                prefix = prefix.substring(0, prefix.length() - 1);
            }
            if (!prefix.isEmpty() && (prefix.length() > MAX_PREFIX || !PREFIX.matcher(prefix).matches()
                    || prefix.contains("/./") || prefix.endsWith("/.") || prefix.contains("/../") || prefix.endsWith("/.."))) {
                throw ApiException.badRequest("X-Forwarded-Prefix is not a path such as /delayq (letters, digits, "
                        + "'.', '_', '~', '-' between slashes, at most " + MAX_PREFIX + " characters)");
            }
        }
        String address = last(header.apply("X-Forwarded-For"));
        return new Forwarded(proto != null ? proto : scheme, fhost != null ? fhost : host, prefix != null ? prefix : "",
                address != null ? address : remoteAddress);
    }

    /** The first of comma-separated values (proxies in a chain append theirs); null when absent or blank. */
    private static String first(String v) {
        if (v == null) {
            return null;
        }
        int comma = v.indexOf(',');
        String s = (comma >= 0 ? v.substring(0, comma) : v).strip();
        return s.isEmpty() ? null : s;
    }

    /** The last of comma-separated values: the one the nearest (trusted) proxy added. */
    private static String last(String v) {
        if (v == null) {
            return null;
        }
        String s = v.substring(v.lastIndexOf(',') + 1).strip();
        return s.isEmpty() ? null : s;
    }
}
