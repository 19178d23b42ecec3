package dev.delayq.internal.redis;

import io.lettuce.core.RedisURI;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the Redis URIs a user gives, refusing the ambiguous ones, and shows them without their password.
 *
 * <p>A password with an unescaped {@code @}, {@code #}, {@code /} or {@code ?} makes a URI mean something else than
 * it says: {@code redis://:p@ss#wo/rd@host} parses as host {@code ss}, and a lookup of part of the password would go
 * out over DNS. Such URIs are refused with the fix (percent-encode, or give the password apart).
 */
public final class RedisUris {
    private static final Pattern SCHEME = Pattern.compile("(?i)(redis|rediss|redis-sentinel|rediss-sentinel|redis-socket)://");

    private RedisUris() {
    }

    /**
     * The URI, checked.
     *
     * @throws IllegalArgumentException naming what is wrong and the fix, never echoing a password
     */
    public static RedisURI parse(String uri) {
        if (uri == null || uri.isBlank()) {
            throw new IllegalArgumentException("redis URI is empty: give redis://[user:password@]host:port[/db]");
        }
        Matcher scheme = SCHEME.matcher(uri);
        if (!scheme.lookingAt()) {
            throw invalid(uri, "it must start with redis://, rediss://, redis-sentinel:// or redis-socket://");
        }
        String rest = uri.substring(scheme.end());
        boolean sentinel = scheme.group(1).toLowerCase(java.util.Locale.ROOT).contains("sentinel");
        int at = rest.lastIndexOf('@');
        if (at >= 0) {
            String userInfo = rest.substring(0, at);
            if (userInfo.indexOf('@') >= 0 || userInfo.indexOf('/') >= 0 || userInfo.indexOf('?') >= 0
                    || userInfo.indexOf('#') >= 0) {
                throw invalid(uri, "its user or password contains '@', '/', '?' or '#', which would change what the URI "
                        + "means: percent-encode them (%40, %2F, %3F, %23) or give the password apart "
                        + "(DelayQ.builder().password(...), --redis-password-file, DELAYQ_REDIS_PASSWORD)");
            }
        }
        String afterUser = at >= 0 ? rest.substring(at + 1) : rest;
        if (!sentinel && afterUser.indexOf('#') >= 0) {
            throw invalid(uri, "'#' has no meaning in a redis:// URI (only redis-sentinel:// names its master after '#')");
        }
        if (!scheme.group(1).equalsIgnoreCase("redis-socket")) {
            checkPorts(uri, afterUser, sentinel);
        }
        try {
            return RedisURI.create(uri);
        } catch (RuntimeException e) {
            throw invalid(uri, String.valueOf(e.getMessage()).replace(uri, mask(uri)));
        }
    }

    /** Every host:port of the authority has a port from 1 to 65535, when it has one. */
    private static void checkPorts(String uri, String afterUser, boolean sentinel) {
        String authority = afterUser;
        for (char end : new char[] {'/', '?', '#'}) {
            int i = authority.indexOf(end);
            if (i >= 0) {
                authority = authority.substring(0, i);
            }
        }
        for (String hostPort : sentinel ? authority.split(",") : new String[] {authority}) {
            int close = hostPort.lastIndexOf(']');
            int colon = hostPort.lastIndexOf(':');
            if (colon > close && colon >= 0) {
                String port = hostPort.substring(colon + 1);
                int p = -1;
                if (port.matches("\\d{1,5}")) {
                    p = Integer.parseInt(port);
                }
                if (p < 1 || p > 65535) {
                    throw invalid(uri, "invalid port '" + port + "': use a number from 1 to 65535");
                }
            }
        }
    }

    private static IllegalArgumentException invalid(String uri, String why) {
        return new IllegalArgumentException("redis URI '" + mask(uri) + "' is invalid: " + why
                + " (expected redis://[user:password@]host:port[/db], rediss://... or redis-sentinel://host:port[,host:port]#master)");
    }

    /** The URI with its password shown as {@code ***} (and everything else as given). */
    public static String mask(String uri) {
        if (uri == null) {
            return null;
        }
        int schemeEnd = uri.indexOf("://");
        int at = uri.lastIndexOf('@');
        if (schemeEnd < 0 || at < schemeEnd) {
            return uri;
        }
        String userInfo = uri.substring(schemeEnd + 3, at);
        int colon = userInfo.indexOf(':');
        String user = colon >= 0 ? userInfo.substring(0, colon) : "";
        return uri.substring(0, schemeEnd + 3) + (user.isEmpty() ? "" : user) + ":***" + uri.substring(at);
    }
}
