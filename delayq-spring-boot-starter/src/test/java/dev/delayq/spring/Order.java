package dev.delayq.spring;

/** A payload type of the tests, read and written as JSON. */
public record Order(long id, String item) {
}
