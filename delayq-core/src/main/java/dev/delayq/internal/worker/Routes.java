package dev.delayq.internal.worker;

import dev.delayq.JobContext;
import dev.delayq.JobHandler;
import dev.delayq.PayloadCodec;
import dev.delayq.ResultHandler;
import dev.delayq.TypedHandler;
import dev.delayq.internal.base.Validation;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Which handler runs a job: the one registered for the job's name, else the worker's default handler. A job that
 * neither covers goes to dead (no worker of this kind can run it); so does a payload its handler's codec cannot
 * decode.
 */
public final class Routes {
    private final Map<String, Route> named;
    private final Route fallback;

    private Routes(Map<String, Route> named, Route fallback) {
        this.named = named;
        this.fallback = fallback;
    }

    /** A handler of one job name (or the default one). */
    interface Route {
        void run(JobContext ctx) throws Exception;
    }

    /** A payload the route's codec could not decode: the job goes to dead with this message. */
    static final class Undecodable extends Exception {
        private static final long serialVersionUID = 1L;

        Undecodable(RuntimeException cause) {
            super("payload cannot be decoded: " + (cause.getMessage() != null ? cause.getMessage() : cause.toString()), cause);
        }
    }

    /** The route for a job named {@code name} ({@code null}: unnamed), or {@code null} when there is none. */
    Route find(String name) {
        Route r = name == null ? null : named.get(name);
        return r != null ? r : fallback;
    }

    /** The error of a job that {@link #find} has no route for. */
    String missing(String name) {
        String jobs = name == null ? "jobs without a name" : "job name '" + name + "'";
        return "no handler for " + jobs + " (this worker handles: " + String.join(", ", named.keySet()) + ")";
    }

    /** Collects the routes of a worker: handlers per job name, and a default one. */
    public static final class Builder {
        private final Map<String, Route> named = new LinkedHashMap<>();
        private Route fallback;

        /** The handler of jobs that no named handler covers (the one of {@code Worker.builder(queue, handler)}). */
        public Builder fallback(JobHandler handler) {
            if (handler == null) {
                throw new IllegalArgumentException("handler must not be null");
            }
            fallback = handler::handle;
            return this;
        }

        /** {@code handler} runs the jobs named {@code name}. */
        public Builder add(String name, JobHandler handler) {
            if (handler == null) {
                throw new IllegalArgumentException("handler of job name '" + name + "' must not be null");
            }
            return put(name, handler::handle);
        }

        /** {@code handler} runs the jobs named {@code name}, with their payload decoded by {@code codec}. */
        public <T> Builder add(String name, PayloadCodec<T> codec, TypedHandler<T> handler) {
            if (codec == null || handler == null) {
                throw new IllegalArgumentException("codec and handler of job name '" + name + "' must not be null");
            }
            return put(name, ctx -> {
                T payload;
                try {
                    payload = codec.decode(ctx.payload());
                } catch (RuntimeException e) {
                    throw new Undecodable(e);
                }
                handler.handle(ctx, payload);
            });
        }

        /** {@code handler} runs the jobs named {@code name}; what it returns, encoded by {@code codec}, is their result. */
        public <R> Builder addReturning(String name, PayloadCodec<R> codec, ResultHandler<R> handler) {
            if (codec == null || handler == null) {
                throw new IllegalArgumentException("result codec and handler of job name '" + name + "' must not be null");
            }
            return put(name, ctx -> ctx.result(codec, handler.handle(ctx)));
        }

        private Builder put(String name, Route route) {
            Validation.jobName(name);
            if (named.putIfAbsent(name, route) != null) {
                throw new IllegalArgumentException("job name '" + name + "' has a handler already: one handler per name");
            }
            return this;
        }

        /**
         * The routes.
         *
         * @throws IllegalArgumentException when there is no handler at all
         */
        public Routes build() {
            if (named.isEmpty() && fallback == null) {
                throw new IllegalArgumentException("the worker has no handler: add one per job name with handle(name, "
                        + "handler), or use Worker.builder(queue, handler) for every job");
            }
            return new Routes(Collections.unmodifiableMap(new LinkedHashMap<>(named)), fallback);
        }
    }
}
