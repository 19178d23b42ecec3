package dev.delayq.cli;

import dev.delayq.DelayQ;
import java.io.IOException;
import java.io.InputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The Redis server the command line talks to and the credentials it uses: the URL from {@code --redis}, else
 * {@code $DELAYQ_REDIS_URL}, else the local default; the password from {@code --redis-password-file}, else
 * {@code $DELAYQ_REDIS_PASSWORD}, else the URL. It knows every secret it was given, so that no message, and no
 * job's environment, carries one.
 */
public final class RedisTarget {
    /** The environment variable naming the server. */
    public static final String URL_ENV = "DELAYQ_REDIS_URL";
    /** The environment variable holding the password. */
    public static final String PASSWORD_ENV = "DELAYQ_REDIS_PASSWORD";
    /** The largest password file read (a password is short; anything bigger is the wrong file). */
    private static final int MAX_PASSWORD_FILE = 64 * 1024;

    private final RedisUrl url;
    private final String source;
    private final String username;
    private final char[] password;
    private final boolean passwordInArgs;
    private final List<String> secrets;

    private RedisTarget(RedisUrl url, String source, String username, char[] password, boolean passwordInArgs,
                        List<String> secrets) {
        this.url = url;
        this.source = source;
        this.username = username;
        this.password = password;
        this.passwordInArgs = passwordInArgs;
        this.secrets = secrets;
    }

    /**
     * Resolves the target.
     *
     * @param cliUrl       {@code --redis}, or {@code null}
     * @param passwordFile {@code --redis-password-file}, or {@code null}
     * @param env          the process environment
     * @throws CliException (exit 2) for a malformed URL (masked in the message) or an unreadable password file
     */
    static RedisTarget resolve(String cliUrl, Path passwordFile, String defaultUrl, Map<String, String> env) {
        String envUrl = blankToNull(env.get(URL_ENV));
        String source = cliUrl != null ? "--redis" : envUrl != null ? "$" + URL_ENV : "the default URL";
        RedisUrl url = RedisUrl.parse(cliUrl != null ? cliUrl : envUrl != null ? envUrl : defaultUrl, source);
        String apart = passwordFile != null ? readPasswordFile(passwordFile) : blankToNull(env.get(PASSWORD_ENV));
        List<String> secrets = new ArrayList<>(secretsOf(url.raw()));
        if (apart != null) {
            secrets.add(apart);
        }
        return new RedisTarget(url, source, apart != null ? url.user(true) : null,
                apart != null ? apart.toCharArray() : null, cliUrl != null && url.hasCredentials(), List.copyOf(secrets));
    }

    /** The secrets a URL carries: its raw text, its password as written and as decoded. */
    static List<String> secretsOf(String rawUrl) {
        if (rawUrl == null) {
            return List.of();
        }
        int sep = rawUrl.indexOf("://");
        int at = rawUrl.lastIndexOf('@');
        if (at < 0) {
            return List.of();
        }
        String userInfo = rawUrl.substring(sep < 0 ? 0 : sep + 3, Math.max(at, sep < 0 ? 0 : sep + 3));
        int colon = userInfo.indexOf(':');
        String pw = colon >= 0 ? userInfo.substring(colon + 1) : userInfo;
        List<String> out = new ArrayList<>(List.of(rawUrl));
        if (!pw.isEmpty()) {
            out.add(pw);
            try {
                out.add(URLDecoder.decode(pw.replace("+", "%2B"), StandardCharsets.UTF_8));
            } catch (IllegalArgumentException notEncoded) {
                // a '%' that starts no escape: the password as written is the one used
            }
        }
        return out;
    }

    private static String readPasswordFile(Path file) {
        byte[] bytes;
        try (InputStream in = Files.newInputStream(file)) {
            bytes = in.readNBytes(MAX_PASSWORD_FILE + 1);
        } catch (IOException e) {
            throw new CliException(Exit.USAGE, "cannot read --redis-password-file '" + file + "': "
                    + EnqueueCommand.reason(e));
        }
        if (bytes.length > MAX_PASSWORD_FILE) {
            throw new CliException(Exit.USAGE, "--redis-password-file '" + file + "' is larger than "
                    + MAX_PASSWORD_FILE + " bytes: it should hold the password on its first line");
        }
        String text = new String(bytes, StandardCharsets.UTF_8);
        int nl = text.indexOf('\n');
        String line = nl >= 0 ? text.substring(0, nl) : text;
        if (line.endsWith("\r")) {
            line = line.substring(0, line.length() - 1);
        }
        if (line.isEmpty()) {
            throw new CliException(Exit.USAGE, "--redis-password-file '" + file
                    + "' is empty: put the password on its first line");
        }
        return line;
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }

    /** The URL, masked when printed. */
    public RedisUrl url() {
        return url;
    }

    /** Where the URL came from: {@code --redis}, {@code $DELAYQ_REDIS_URL} or {@code the default URL}. */
    public String source() {
        return source;
    }

    /**
     * The server as a message may name it: the URL with its credentials masked ({@code redis://alice:***@host:6379});
     * with the password given apart, the user name of the URL and {@code ***} for that password.
     */
    public String display() {
        if (password == null) {
            return url.masked();
        }
        String bare = url.withoutCredentials();
        int sep = bare.indexOf("://") + 3;
        return bare.substring(0, sep) + (username != null ? username : "") + ":***@" + bare.substring(sep);
    }

    /** Whether the password stands in {@code --redis} on the command line, visible in process listings. */
    public boolean passwordInArgs() {
        return passwordInArgs;
    }

    /** The URL a client connects to: without its credentials when they are given apart. */
    public String clientUri() {
        return password != null ? url.withoutCredentials() : url.raw();
    }

    /** The user name given apart from the URL, or {@code null}. */
    public String username() {
        return username;
    }

    /** A copy of the password given apart from the URL, or {@code null} when the URL carries it (or none is needed). */
    public char[] password() {
        return password == null ? null : password.clone();
    }

    /** The builder set to this server with these credentials. */
    public DelayQ.Builder apply(DelayQ.Builder b) {
        b.redis(clientUri());
        if (password != null) {
            b.username(username).password(new String(password));
        }
        return b;
    }

    /** Every secret this target knows: the raw URL, its password, the password given apart. */
    public List<String> secrets() {
        return secrets;
    }

    /** {@code text} with every URL's credentials masked and every known secret replaced by {@code ***}. */
    public String redact(String text) {
        return redact(text, secrets);
    }

    /**
     * {@code text} with every URL's credentials masked and every one of {@code secrets} replaced by {@code ***}
     * (secrets under 3 characters only inside URLs: replacing them everywhere would garble the message).
     */
    static String redact(String text, List<String> secrets) {
        if (text == null) {
            return null;
        }
        String out = text;
        List<String> longestFirst = new ArrayList<>(secrets);
        longestFirst.sort((a, b) -> b.length() - a.length());
        for (String s : longestFirst) {
            if (s.length() >= 3 && out.contains(s)) {
                out = out.replace(s, s.contains("://") ? RedisUrl.mask(s) : "***");
            }
        }
        return RedisUrl.maskInText(out);
    }

    @Override
    public String toString() {
        return display() + (password != null ? " (password given apart)" : "");
    }
}
