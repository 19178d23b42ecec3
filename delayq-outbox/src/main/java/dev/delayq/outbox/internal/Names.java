package dev.delayq.outbox.internal;

import dev.delayq.Bounds;
import java.util.regex.Pattern;

/** Checks of the names the outbox is given, at the API's edge; messages name the field, the value and what is allowed. */
public final class Names {
    /** A table: a plain SQL identifier, optionally schema-qualified; 56 characters leave room for "_failed". */
    private static final Pattern TABLE = Pattern.compile("([A-Za-z_][A-Za-z0-9_]{0,55}\\.)?[A-Za-z_][A-Za-z0-9_]{0,55}");
    /** A queue: the rule of delayq-core's queue names ({@code DelayQ.queue}), checked here without a Redis client. */
    private static final Pattern QUEUE = Pattern.compile("[A-Za-z0-9._:-]{1," + Bounds.MAX_QUEUE_NAME + "}");

    private Names() {
    }

    /** {@code table}, when it is a valid table name. */
    public static String table(String table) {
        if (table == null || !TABLE.matcher(table).matches()) {
            throw new IllegalArgumentException("outbox table '" + table + "' is invalid: use a letter or _, then letters, "
                    + "digits or _, at most 56 characters (the failed rows' table adds \"_failed\"), optionally after "
                    + "a schema name and a dot");
        }
        return table;
    }

    /** {@code queue}, when it is a valid queue name. */
    public static String queue(String queue) {
        if (queue == null || !QUEUE.matcher(queue).matches()) {
            throw new IllegalArgumentException("queue name '" + queue + "' is invalid: use 1-" + Bounds.MAX_QUEUE_NAME
                    + " characters from A-Z a-z 0-9 . _ - :");
        }
        return queue;
    }
}
