package dev.delayq.cli;

import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Redis URL as the user gave it, split just enough to check its ports and to print it without its
 * credentials. The credentials are everything between {@code ://} and the last {@code @}: the widest reading,
 * so that a password holding {@code @}, {@code /} or {@code #} is never printed in part.
 */
final class RedisUrl {
    private static final Set<String> CHECKED = Set.of("redis", "rediss", "redis-sentinel", "rediss-sentinel");
    /** A URL with credentials inside any text: scheme, {@code ://}, then up to the last {@code @} before a blank. */
    private static final Pattern IN_TEXT = Pattern.compile("([A-Za-z][A-Za-z0-9+.-]*://)(\\S*)@");
    /**
     * The accepted form, as messages print it. Its {@code [user:password@]} is notation for the optional credentials,
     * not credentials: {@link #maskInText} leaves it as it is.
     */
    static final String FORM = "redis://[user:password@]host:port[/db]";
    /** What {@link #IN_TEXT} reads as credentials in {@link #FORM}. */
    private static final String FORM_USER_INFO = "[user:password";

    private final String raw;
    private final String scheme;
    private final String userInfo;
    private final String rest;

    private RedisUrl(String raw, String scheme, String userInfo, String rest) {
        this.raw = raw;
        this.scheme = scheme;
        this.userInfo = userInfo;
        this.rest = rest;
    }

    /**
     * Splits and checks {@code raw}.
     *
     * @param source how the message names where the URL came from, e.g. {@code --redis} or {@code $DELAYQ_REDIS_URL}
     * @throws CliException (exit 2) with the URL masked when there is no scheme, no host, or a port that is not
     *                      a number from 1 to 65535
     */
    static RedisUrl parse(String raw, String source) {
        int sep = raw.indexOf("://");
        if (sep <= 0) {
            throw new CliException(Exit.USAGE, source + " " + mask(raw) + " is not a Redis URL: use " + FORM
                    + ", rediss://... (TLS) or redis-sentinel://host:port#master");
        }
        String scheme = raw.substring(0, sep).toLowerCase(Locale.ROOT);
        String after = raw.substring(sep + 3);
        int at = after.lastIndexOf('@');
        RedisUrl url = new RedisUrl(raw, scheme, at >= 0 ? after.substring(0, at) : null, after.substring(at + 1));
        if (url.userInfo != null && url.userInfo.matches(".*[@/?#].*")) {
            // Read as a URI, the credentials would end at the first of these and the rest become the host: a
            // connection (and a DNS lookup) to a part of the password.
            throw new CliException(Exit.USAGE, "the credentials in " + source + " " + url.masked() + " hold '@', '/', "
                    + "'?' or '#', which make the URL ambiguous: write them percent-encoded (%40, %2F, %3F, %23) or "
                    + "give the password with --redis-password-file FILE or $" + RedisTarget.PASSWORD_ENV);
        }
        if (CHECKED.contains(scheme)) {
            url.checkHosts(source);
        }
        return url;
    }

    private void checkHosts(String source) {
        int end = rest.length();
        for (char c : new char[] {'/', '?', '#'}) {
            int i = rest.indexOf(c);
            if (i >= 0 && i < end) {
                end = i;
            }
        }
        for (String host : rest.substring(0, end).split(",", -1)) {
            String port = null;
            String name = host;
            if (host.startsWith("[")) { // [::1]:6379
                int close = host.indexOf(']');
                name = close > 0 ? host.substring(1, close) : "";
                if (close > 0 && close + 1 < host.length()) {
                    port = host.charAt(close + 1) == ':' ? host.substring(close + 2) : host.substring(close + 1);
                }
            } else if (host.indexOf(':') >= 0) {
                name = host.substring(0, host.lastIndexOf(':'));
                port = host.substring(host.lastIndexOf(':') + 1);
            }
            if (name.isEmpty()) {
                throw new CliException(Exit.USAGE, "no host in " + source + " " + masked()
                        + ": use " + FORM);
            }
            if (port != null && !validPort(port)) {
                throw new CliException(Exit.USAGE, "invalid port '" + port + "' in " + source + " " + masked()
                        + ": use a number from 1 to 65535");
            }
        }
    }

    private static boolean validPort(String port) {
        if (port.isEmpty() || port.length() > 5 || !port.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return false;
        }
        int p = Integer.parseInt(port);
        return p >= 1 && p <= 65535;
    }

    /** The URL exactly as given (with its credentials): for the client only, never for a message. */
    String raw() {
        return raw;
    }

    /** The URL without its credentials, for a client given them apart. */
    String withoutCredentials() {
        return userInfo == null ? raw : raw.substring(0, raw.indexOf("://") + 3) + rest;
    }

    /** Whether the URL carries credentials (a password, or a user with a password). */
    boolean hasCredentials() {
        return userInfo != null && !userInfo.isEmpty();
    }

    /**
     * The user name in the URL: the part before {@code :} of {@code user:password@}; with {@code bare} (the
     * password comes from elsewhere) a {@code user@} without a colon is a user name too. {@code null} when none.
     */
    String user(boolean bare) {
        if (userInfo == null || userInfo.isEmpty()) {
            return null;
        }
        int colon = userInfo.indexOf(':');
        if (colon < 0) {
            return bare ? userInfo : null;
        }
        return colon == 0 ? null : userInfo.substring(0, colon);
    }

    /** Whether the scheme asks for TLS ({@code rediss://}, {@code rediss-sentinel://}). */
    boolean tls() {
        return scheme.startsWith("rediss");
    }

    /** The URL with its credentials masked: {@code redis://user:***@host:port}. */
    String masked() {
        return mask(raw);
    }

    @Override
    public String toString() {
        return masked();
    }

    /** The URL {@code url} with its credentials masked; without a scheme, all before its last {@code @} is. */
    static String mask(String url) {
        if (url == null || url.indexOf('@') < 0) {
            return url;
        }
        return url.contains("://") ? maskInText(url) : "***" + url.substring(url.lastIndexOf('@'));
    }

    /**
     * {@code text} with the credentials of every URL in it masked: {@code redis://user:***@host}, or
     * {@code redis://***@host} when what stands before the {@code @} is not a plain {@code user:password}. The usage
     * template {@link #FORM} is not a URL with credentials and stays as it is.
     */
    static String maskInText(String text) {
        if (text == null || text.indexOf('@') < 0) {
            return text;
        }
        Matcher m = IN_TEXT.matcher(text);
        StringBuilder b = new StringBuilder();
        while (m.find()) {
            // Only the template exactly: "redis://[user:password@]x:pw@host" still has credentials to mask.
            boolean template = m.group(2).equals(FORM_USER_INFO) && text.startsWith("]", m.end());
            m.appendReplacement(b, Matcher.quoteReplacement(template ? m.group() : m.group(1) + maskUserInfo(m.group(2)) + "@"));
        }
        m.appendTail(b);
        return b.toString();
    }

    private static String maskUserInfo(String userInfo) {
        int colon = userInfo.indexOf(':');
        if (colon < 0) {
            return "***"; // a bare word before '@' is a password to Redis clients
        }
        String user = userInfo.substring(0, colon);
        return user.matches("[A-Za-z0-9._~!$&'()*+,;=%-]*") ? user + ":***" : "***";
    }
}
