package dev.delayq.internal.worker;

/**
 * The worker's monotonic clock, in nanoseconds ({@link System#nanoTime()} in production). Every part of the worker
 * reads time through the one ticker it is given, so that a test can move time by hand (Caffeine's {@code Ticker},
 * db-scheduler's settable clock). Values are compared only by their difference, as {@code nanoTime}'s are.
 *
 * <p>Only reading time goes through it: a part that waits (parks, a timed wait, a scheduled executor) still waits in
 * real time, for the distance it computed from the ticker's readings.
 */
@FunctionalInterface
interface Ticker {
    /** {@link System#nanoTime()}. */
    Ticker SYSTEM = System::nanoTime;

    /** The current reading, in nanoseconds from an arbitrary origin. */
    long nanos();
}
