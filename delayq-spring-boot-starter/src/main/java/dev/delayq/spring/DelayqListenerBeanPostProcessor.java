package dev.delayq.spring;

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
 * Finds the {@link DelayqListener} methods of every bean (on the target class of a proxy, invoked through the
 * proxy) and keeps them for {@link DelayqWorkers}, which runs them once the context is ready. It only collects:
 * nothing connects to Redis while beans are being created.
 */
public class DelayqListenerBeanPostProcessor implements BeanPostProcessor {
    /** One annotated method of one bean. */
    record Endpoint(String beanName, Object bean, Method method, DelayqListener annotation) {
        /** {@code SimpleClassName.method} for messages. */
        String describe() {
            return method.getDeclaringClass().getSimpleName() + "." + method.getName();
        }
    }

    private final List<Endpoint> endpoints = new CopyOnWriteArrayList<>();
    private final Set<Class<?>> withoutListeners = ConcurrentHashMap.newKeySet();

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        Class<?> target = AopUtils.getTargetClass(bean);
        if (withoutListeners.contains(target) || !AnnotationUtils.isCandidateClass(target, DelayqListener.class)) {
            return bean;
        }
        Map<Method, DelayqListener> found = MethodIntrospector.selectMethods(target,
                (MethodIntrospector.MetadataLookup<DelayqListener>) m ->
                        AnnotatedElementUtils.findMergedAnnotation(m, DelayqListener.class));
        if (found.isEmpty()) {
            withoutListeners.add(target);
            return bean;
        }
        found.forEach((method, annotation) -> endpoints.add(
                new Endpoint(beanName, bean, AopUtils.selectInvocableMethod(method, bean.getClass()), annotation)));
        return bean;
    }

    /** Whether {@code type} (a bean's class) has {@link DelayqListener} methods. */
    static boolean hasListeners(Class<?> type) {
        Class<?> user = org.springframework.util.ClassUtils.getUserClass(type);
        return AnnotationUtils.isCandidateClass(user, DelayqListener.class)
                && !MethodIntrospector.selectMethods(user, (MethodIntrospector.MetadataLookup<DelayqListener>) m ->
                        AnnotatedElementUtils.findMergedAnnotation(m, DelayqListener.class)).isEmpty();
    }

    /** The listener methods found so far. */
    List<Endpoint> endpoints() {
        return List.copyOf(endpoints);
    }
}
