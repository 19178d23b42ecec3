package dev.delayq.cli;

/** An error the user caused or must know about: printed as one line, exits with {@link #exitCode()}. */
public final class CliException extends RuntimeException {
    private final int exitCode;

    public CliException(int exitCode, String message) {
        super(message);
        this.exitCode = exitCode;
    }

    public int exitCode() {
        return exitCode;
    }
}
