package dev.delayq;

import java.util.List;
import java.util.function.Consumer;

/**
 * A queue's event stream: every state change of every job, appended by the script that made it (so nothing is
 * missed or reordered), while events are on ({@link QueueInspector#events(boolean)}). The stream is capped at an exact
 * length (the oldest entries go first): a reader that falls further behind than the cap loses the oldest events, and
 * says so by the gap in the ids it sees.
 */
public interface Events {
    /** Whether the queue records events now. */
    boolean enabled();

    /**
     * Up to {@code max} events after {@code afterId} (exclusive; {@code "0"} from the oldest kept), oldest first.
     *
     * @throws IllegalArgumentException for a malformed id or a max outside 1 to 10,000
     */
    List<JobEvent> read(String afterId, int max);

    /**
     * Calls {@code listener} with every event after {@code afterId} ({@code "$"}: only new ones), in order, from a
     * thread of its own on a connection of its own (a blocking read), until the returned handle is closed. A listener
     * that throws is logged and skipped; reading goes on.
     */
    AutoCloseable listen(String afterId, Consumer<JobEvent> listener);
}
