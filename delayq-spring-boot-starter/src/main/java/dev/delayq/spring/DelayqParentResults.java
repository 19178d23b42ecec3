package dev.delayq.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a {@link DelayqListener} method's {@code Map<String, T>} parameter that receives the results of the job's
 * parents (docs/flows.md): parent id to its result, read as {@code T} as a payload is ({@code String}, {@code byte[]},
 * or JSON with the application's {@code ObjectMapper}); only the results still kept, an empty map for a job without
 * parents. A result that cannot be read as {@code T} sends the job to dead at once, as an unreadable payload does.
 *
 * <pre>{@code
 * @DelayqListener(queue = "reports")
 * Summary summarize(@DelayqParentResults Map<String, PartTotal> parts) {
 *     return Summary.of(parts.values());   // the returned value is this job's result, for its own children
 * }
 * }</pre>
 */
@Target(ElementType.PARAMETER)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface DelayqParentResults {
}
