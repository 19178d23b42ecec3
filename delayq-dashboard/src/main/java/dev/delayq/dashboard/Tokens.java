package dev.delayq.dashboard;

/**
 * The form a dashboard token must have, for the standalone {@link Dashboard} and the {@link DashboardServlet} alike
 * (a class of its own so that the servlet loads nothing of the standalone server).
 */
final class Tokens {
    private Tokens() {
    }

    /**
     * Checks a token's form; {@code null} (no token) passes.
     *
     * @throws IllegalArgumentException when it is shorter than {@link Dashboard#MIN_TOKEN_LENGTH} or has other than
     *                                  printable ASCII characters
     */
    static void check(String token) {
        if (token == null) {
            return;
        }
        if (token.isBlank()) {
            throw new IllegalArgumentException("token is " + (token.isEmpty() ? "empty" : "blank") + ": it must have at "
                    + "least " + Dashboard.MIN_TOKEN_LENGTH + " printable characters (e.g. from 'openssl rand -hex 16'); "
                    + "for no token, leave it unset");
        }
        if (token.length() < Dashboard.MIN_TOKEN_LENGTH) {
            throw new IllegalArgumentException("token has " + token.length() + " characters: it must have at least "
                    + Dashboard.MIN_TOKEN_LENGTH + " (e.g. from 'openssl rand -hex 16')");
        }
        if (!token.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
            throw new IllegalArgumentException("token contains spaces, control or non-ASCII characters: "
                    + "use printable ASCII only (e.g. from 'openssl rand -hex 16')");
        }
    }
}
