package dev.delayq.spring;

import dev.delayq.JobContext;
import dev.delayq.JobHandler;
import dev.delayq.NonRetryableException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Type;
import org.springframework.util.ReflectionUtils;

/**
 * A {@link DelayqListener} method as a {@link JobHandler}: its parameters are checked once, at startup, and filled
 * for every job with the {@link JobContext} and the payload read as the parameter's type. The method's own
 * exception is rethrown unwrapped, so {@link NonRetryableException} and {@code RetryLaterException} keep their
 * meaning.
 */
final class ListenerMethod implements JobHandler {
    private final Object bean;
    private final Method method;
    private final String name;
    private final Type[] payloadTypes; // null where the parameter is the JobContext
    private final DelayqPayloadConverter converter;

    private ListenerMethod(Object bean, Method method, String name, Type[] payloadTypes, DelayqPayloadConverter converter) {
        this.bean = bean;
        this.method = method;
        this.name = name;
        this.payloadTypes = payloadTypes;
        this.converter = converter;
    }

    /**
     * Checks the parameters of {@code method}: any number of {@link JobContext}, at most one payload. {@code name} is
     * how messages name the method ({@code @DelayqListener Class.method}).
     *
     * @throws IllegalArgumentException naming the method and the parameter that cannot be filled
     */
    static ListenerMethod of(Object bean, Method method, String name, DelayqPayloadConverter converter) {
        Type[] generic = method.getGenericParameterTypes();
        Class<?>[] raw = method.getParameterTypes();
        Type[] payload = new Type[raw.length];
        int payloads = 0;
        for (int i = 0; i < raw.length; i++) {
            if (raw[i] == JobContext.class) {
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
        return new ListenerMethod(bean, method, name, payload, converter);
    }

    @Override
    public void handle(JobContext ctx) throws Exception {
        Object[] args = new Object[payloadTypes.length];
        for (int i = 0; i < args.length; i++) {
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
        try {
            method.invoke(bean, args);
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
    }

    @Override
    public String toString() {
        return name;
    }
}
