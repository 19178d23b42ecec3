package dev.delayq.dashboard;

import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * The standalone server's answers to what never reaches a route: a URI Jetty refuses (400), a path outside the
 * {@link Dashboard.Builder#basePath} (404), a malformed request. They carry the same security headers as the
 * dashboard's own answers ({@link Access#securityHeaders}) and no stack trace nor server version.
 */
final class ServerErrors extends ErrorHandler {
    ServerErrors() {
        setShowStacks(false);
        setShowCauses(false);
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        Access.securityHeaders((name, value) -> response.getHeaders().put(name, value));
        return super.handle(request, response, callback);
    }

    @Override
    public ByteBuffer badMessageError(int status, String reason, HttpFields.Mutable fields) {
        Access.securityHeaders(fields::put);
        return super.badMessageError(status, reason, fields);
    }
}
