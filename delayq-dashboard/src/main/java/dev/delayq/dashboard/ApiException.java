package dev.delayq.dashboard;

/** A request the dashboard refuses or cannot answer: sent as {@code {"error": message}} with {@link #status()}. */
final class ApiException extends RuntimeException {
    private final int status;

    ApiException(int status, String message) {
        super(message, null, false, false);
        this.status = status;
    }

    int status() {
        return status;
    }

    static ApiException badRequest(String message) {
        return new ApiException(400, message);
    }

    static ApiException notFound(String message) {
        return new ApiException(404, message);
    }
}
