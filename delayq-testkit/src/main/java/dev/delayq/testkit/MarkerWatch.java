package dev.delayq.testkit;

import java.util.Arrays;

/**
 * Finds a marker in a byte stream read chunk by chunk, also when the marker is split between two chunks: it keeps
 * the last bytes of what it was fed (one fewer than the marker's length). {@link FaultProxy} uses one per connection
 * to see when a client sent a script's SHA. Not thread-safe: one reader feeds it.
 */
final class MarkerWatch {
    private byte[] tail = new byte[0];

    /** Whether {@code marker} ends within the first {@code n} bytes of {@code buf}, or starts in the bytes before it. */
    boolean feed(byte[] marker, byte[] buf, int n) {
        byte[] seen = new byte[tail.length + n];
        System.arraycopy(tail, 0, seen, 0, tail.length);
        System.arraycopy(buf, 0, seen, tail.length, n);
        if (indexOf(seen, marker) >= 0) {
            tail = new byte[0];
            return true;
        }
        int keep = Math.min(seen.length, marker.length - 1);
        tail = Arrays.copyOfRange(seen, seen.length - keep, seen.length);
        return false;
    }

    static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
