package dev.delayq.spring;

/**
 * Where Boot's Redis settings come from on this Boot line when a service connection supplies them (each line has
 * its own connection details type); null when none does and {@code spring.data.redis.*} applies.
 */
@FunctionalInterface
interface DelayqRedisSettingsSource {
    RedisSettings settings();
}
