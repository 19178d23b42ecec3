package dev.delayq.spring;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;

/**
 * Finds the {@link DelayqListener} and {@link DelayqScheduled} methods of every bean (on the target class of a proxy,
 * invoked through the proxy) and keeps them for {@link DelayqWorkers}, which runs them once the context is ready. It
 * only collects: nothing connects to Redis while beans are being created.
 */
public class DelayqListenerBeanPostProcessor implements BeanPostProcessor {
    /** One annotated method of one bean: a listener or a schedule (exactly one of the two is set). */
    record Endpoint(String beanName, Object bean, Method method, DelayqListener listener, DelayqScheduled scheduled) {
        /** {@code SimpleClassName.method} for messages. */
        String describe() {
            return method.getDeclaringClass().getSimpleName() + "." + method.getName();
        }

        /** {@code @DelayqListener Class.method} or {@code @DelayqScheduled Class.method}. */
        String label() {
            return (listener != null ? "@DelayqListener " : "@DelayqScheduled ") + describe();
        }
    }

    private final List<Endpoint> endpoints = new CopyOnWriteArrayList<>();
    private final Set<Class<?>> withoutEndpoints = ConcurrentHashMap.newKeySet();

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        Class<?> target = AopUtils.getTargetClass(bean);
        if (withoutEndpoints.contains(target) || !candidate(target)) {
            return bean;
        }
        Map<Method, DelayqListener> listeners = find(target, DelayqListener.class);
        Map<Method, DelayqScheduled> schedules = find(target, DelayqScheduled.class);
        if (listeners.isEmpty() && schedules.isEmpty()) {
            withoutEndpoints.add(target);
            return bean;
        }
        listeners.forEach((method, a) -> endpoints.add(
                new Endpoint(beanName, bean, AopUtils.selectInvocableMethod(method, bean.getClass()), a, null)));
        schedules.forEach((method, a) -> endpoints.add(
                new Endpoint(beanName, bean, AopUtils.selectInvocableMethod(method, bean.getClass()), null, a)));
        return bean;
    }

    private static boolean candidate(Class<?> type) {
        return AnnotationUtils.isCandidateClass(type, DelayqListener.class)
                || AnnotationUtils.isCandidateClass(type, DelayqScheduled.class);
    }

    private static <A extends Annotation> Map<Method, A> find(Class<?> type, Class<A> annotation) {
        return MethodIntrospector.selectMethods(type,
                (MethodIntrospector.MetadataLookup<A>) m -> AnnotatedElementUtils.findMergedAnnotation(m, annotation));
    }

    /** Whether {@code type} (a bean's class) has {@link DelayqListener} or {@link DelayqScheduled} methods. */
    static boolean hasListeners(Class<?> type) {
        Class<?> user = org.springframework.util.ClassUtils.getUserClass(type);
        return candidate(user) && !(find(user, DelayqListener.class).isEmpty() && find(user, DelayqScheduled.class).isEmpty());
    }

    /** The methods found so far. */
    List<Endpoint> endpoints() {
        return List.copyOf(endpoints);
    }
}
