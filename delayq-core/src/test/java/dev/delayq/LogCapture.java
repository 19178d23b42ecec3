package dev.delayq;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.ILoggerFactory;
import org.slf4j.IMarkerFactory;
import org.slf4j.Logger;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.AbstractLogger;
import org.slf4j.helpers.BasicMDCAdapter;
import org.slf4j.helpers.MessageFormatter;
import org.slf4j.simple.SimpleServiceProvider;
import org.slf4j.spi.MDCAdapter;
import org.slf4j.spi.SLF4JServiceProvider;

/**
 * The SLF4J provider of the core's tests (named by {@code -Dslf4j.provider} in the module's surefire configuration):
 * everything is logged by slf4j-simple as before, the MDC is a real one (slf4j-simple's ignores every value), and while
 * a {@link Recording} is open, every event of a logger under its prefix is recorded, at every level, whatever
 * slf4j-simple would print.
 */
public final class LogCapture implements SLF4JServiceProvider {
    private static final List<Recording> RECORDINGS = new CopyOnWriteArrayList<>();

    private final SimpleServiceProvider simple = new SimpleServiceProvider();
    private final MDCAdapter mdc = new BasicMDCAdapter();
    private ILoggerFactory factory;

    /** One logging call as a test sees it: level, logger, the formatted message, the MDC of the calling thread. */
    public record Event(Level level, String logger, String message, Map<String, String> mdc, Throwable error) {
        @Override
        public String toString() {
            return level + " " + logger + " - " + message;
        }
    }

    /** Events recorded from loggers under a prefix, from {@link #record} until closed. */
    public static final class Recording implements AutoCloseable {
        private final String prefix;
        private final List<Event> events = new CopyOnWriteArrayList<>();

        private Recording(String prefix) {
            this.prefix = prefix;
        }

        /** What was recorded so far, in order. */
        public List<Event> events() {
            return new ArrayList<>(events);
        }

        @Override
        public void close() {
            RECORDINGS.remove(this);
        }

        private boolean wants(String logger) {
            return logger.equals(prefix) || logger.startsWith(prefix + ".");
        }
    }

    /**
     * Records the events of the loggers named {@code prefix} or below it until closed.
     *
     * @throws IllegalStateException when this provider is not SLF4J's (the test runs without {@code -Dslf4j.provider})
     */
    public static Recording record(String prefix) {
        if (!(org.slf4j.LoggerFactory.getILoggerFactory() instanceof Factory)) {
            throw new IllegalStateException("SLF4J's provider is not " + LogCapture.class.getName() + ": run the test with "
                    + "-Dslf4j.provider=" + LogCapture.class.getName() + " (delayq-core's surefire configuration sets it)");
        }
        Recording r = new Recording(prefix);
        RECORDINGS.add(r);
        return r;
    }

    @Override
    public ILoggerFactory getLoggerFactory() {
        return factory;
    }

    @Override
    public IMarkerFactory getMarkerFactory() {
        return simple.getMarkerFactory();
    }

    @Override
    public MDCAdapter getMDCAdapter() {
        return mdc;
    }

    @Override
    public String getRequestedApiVersion() {
        return simple.getRequestedApiVersion();
    }

    @Override
    public void initialize() {
        simple.initialize();
        factory = new Factory(simple.getLoggerFactory(), mdc);
    }

    private record Factory(ILoggerFactory simple, MDCAdapter mdc) implements ILoggerFactory {
        @Override
        public Logger getLogger(String name) {
            return new Capturing(name, simple.getLogger(name), mdc);
        }
    }

    /** slf4j-simple's logger, plus recording. */
    private static final class Capturing extends AbstractLogger {
        private final transient Logger out;
        private final transient MDCAdapter mdc;

        Capturing(String name, Logger out, MDCAdapter mdc) {
            this.name = name;
            this.out = out;
            this.mdc = mdc;
        }

        private boolean recorded() {
            for (Recording r : RECORDINGS) {
                if (r.wants(name)) {
                    return true;
                }
            }
            return false;
        }

        @Override
        public boolean isTraceEnabled() {
            return out.isTraceEnabled() || recorded();
        }

        @Override
        public boolean isTraceEnabled(Marker marker) {
            return isTraceEnabled();
        }

        @Override
        public boolean isDebugEnabled() {
            return out.isDebugEnabled() || recorded();
        }

        @Override
        public boolean isDebugEnabled(Marker marker) {
            return isDebugEnabled();
        }

        @Override
        public boolean isInfoEnabled() {
            return out.isInfoEnabled() || recorded();
        }

        @Override
        public boolean isInfoEnabled(Marker marker) {
            return isInfoEnabled();
        }

        @Override
        public boolean isWarnEnabled() {
            return out.isWarnEnabled() || recorded();
        }

        @Override
        public boolean isWarnEnabled(Marker marker) {
            return isWarnEnabled();
        }

        @Override
        public boolean isErrorEnabled() {
            return out.isErrorEnabled() || recorded();
        }

        @Override
        public boolean isErrorEnabled(Marker marker) {
            return isErrorEnabled();
        }

        @Override
        protected String getFullyQualifiedCallerName() {
            return null;
        }

        @Override
        protected void handleNormalizedLoggingCall(Level level, Marker marker, String pattern, Object[] args, Throwable t) {
            String message = MessageFormatter.basicArrayFormat(pattern, args);
            Map<String, String> context = mdc.getCopyOfContextMap();
            Event e = new Event(level, name, message,
                    context == null ? Map.of() : Collections.unmodifiableMap(new HashMap<>(context)), t);
            for (Recording r : RECORDINGS) {
                if (r.wants(name)) {
                    r.events.add(e);
                }
            }
            switch (level) {
                case ERROR -> {
                    if (out.isErrorEnabled()) {
                        out.error(message, t);
                    }
                }
                case WARN -> {
                    if (out.isWarnEnabled()) {
                        out.warn(message, t);
                    }
                }
                case INFO -> {
                    if (out.isInfoEnabled()) {
                        out.info(message, t);
                    }
                }
                case DEBUG -> {
                    if (out.isDebugEnabled()) {
                        out.debug(message, t);
                    }
                }
                default -> {
                    if (out.isTraceEnabled()) {
                        out.trace(message, t);
                    }
                }
            }
        }
    }
}
