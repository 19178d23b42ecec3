package dev.delayq.spring;

import dev.delayq.JobContext;
import dev.delayq.JobHandler;
import dev.delayq.NonRetryableException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.util.ReflectionUtils;

/**
 * A {@link DelayqListener} method as a {@link JobHandler}: its parameters are checked once, at startup, and filled
 * for every job with the {@link JobContext}, the payload read as the parameter's type and the parents' results
 * ({@link DelayqParentResults}); a value it returns is the job's result ({@link JobContext#result(byte[])}), written
 * as a payload is. The method's own
 * exception is rethrown unwrapped, so {@link NonRetryableException} and {@code RetryLaterException} keep their
 * meaning.
 */
final class ListenerMethod implements JobHandler {
    private final Object bean;
    private final Method method;
    private final String name;
    private final Type[] payloadTypes; // null where the parameter is the JobContext or the parents' results
    private final Type[] resultTypes; // the value type of the @DelayqParentResults map, else null
    private final boolean returnsResult;
    private final DelayqPayloadConverter converter;

    private ListenerMethod(Object bean, Method method, String name, Type[] payloadTypes, Type[] resultTypes,
                           DelayqPayloadConverter converter) {
        this.bean = bean;
        this.method = method;
        this.name = name;
        this.payloadTypes = payloadTypes;
        this.resultTypes = resultTypes;
        this.returnsResult = method.getReturnType() != void.class && method.getReturnType() != Void.class;
        this.converter = converter;
    }

    /**
     * Checks the parameters of {@code method}: any number of {@link JobContext}, at most one payload, at most one
     * {@link DelayqParentResults} map. {@code name} is how messages name the method ({@code @DelayqListener Class.method}).
     *
     * @throws IllegalArgumentException naming the method and the parameter that cannot be filled
     */
    static ListenerMethod of(Object bean, Method method, String name, DelayqPayloadConverter converter) {
        Type[] generic = method.getGenericParameterTypes();
        Class<?>[] raw = method.getParameterTypes();
        Type[] payload = new Type[raw.length];
        Type[] results = new Type[raw.length];
        int payloads = 0;
        for (int i = 0; i < raw.length; i++) {
            if (raw[i] == JobContext.class) {
                continue;
            }
            if (method.getParameters()[i].isAnnotationPresent(DelayqParentResults.class)) {
                results[i] = parentResultsType(name, method, generic[i], converter);
                continue;
            }
            if (++payloads > 1) {
                throw new IllegalArgumentException(name + " has more than one payload parameter ("
                        + method.toGenericString() + "): take at most one, plus JobContext");
            }
            if (!converter.canRead(generic[i])) {
                throw new IllegalArgumentException(name + " takes a payload of type "
                        + generic[i].getTypeName() + ", which " + converter.getClass().getSimpleName()
                        + " cannot read (without Jackson on the class path, take String or byte[])");
            }
            payload[i] = generic[i];
        }
        ReflectionUtils.makeAccessible(method);
        return new ListenerMethod(bean, method, name, payload, results, converter);
    }

    /** The value type of a {@code @DelayqParentResults Map<String, T>} parameter of type {@code type}. */
    private static Type parentResultsType(String name, Method method, Type type, DelayqPayloadConverter converter) {
        if (!(type instanceof ParameterizedType map) || map.getRawType() != Map.class
                || map.getActualTypeArguments()[0] != String.class) {
            throw new IllegalArgumentException(name + " has a @DelayqParentResults parameter of type " + type.getTypeName()
                    + " (" + method.toGenericString() + "): take a Map<String, T> (parent id to its result)");
        }
        Type value = map.getActualTypeArguments()[1];
        if (!converter.canRead(value)) {
            throw new IllegalArgumentException(name + " takes parent results of type " + value.getTypeName() + ", which "
                    + converter.getClass().getSimpleName() + " cannot read (without Jackson on the class path, take "
                    + "String or byte[])");
        }
        return value;
    }

    @Override
    public void handle(JobContext ctx) throws Exception {
        Object[] args = new Object[payloadTypes.length];
        for (int i = 0; i < args.length; i++) {
            if (resultTypes[i] != null) {
                args[i] = parentResults(ctx, resultTypes[i]);
                continue;
            }
            if (payloadTypes[i] == null) {
                args[i] = ctx;
                continue;
            }
            try {
                args[i] = converter.read(ctx.payload(), payloadTypes[i]);
            } catch (IllegalArgumentException e) {
                // The same bytes will never read better: no retry.
                throw new NonRetryableException(name + " cannot read the payload of job "
                        + ctx.id() + ": " + e.getMessage(), e);
            }
        }
        Object returned;
        try {
            returned = method.invoke(bean, args);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception ex) {
                throw ex;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw e;
        }
        if (returnsResult && returned != null) {
            ctx.result(converter.write(returned)); // the job's result: over 64 KiB fails the attempt, with the size
        }
    }

    private Map<String, Object> parentResults(JobContext ctx, Type type) throws NonRetryableException {
        Map<String, Object> out = new LinkedHashMap<>();
        for (Map.Entry<String, byte[]> e : ctx.parentResults().entrySet()) {
            try {
                out.put(e.getKey(), converter.read(e.getValue(), type));
            } catch (IllegalArgumentException bad) {
                throw new NonRetryableException(name + " cannot read the result of parent " + e.getKey() + " of job "
                        + ctx.id() + ": " + bad.getMessage(), bad);
            }
        }
        return out;
    }

    @Override
    public String toString() {
        return name;
    }
}
