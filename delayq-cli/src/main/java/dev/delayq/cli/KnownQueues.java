package dev.delayq.cli;

import dev.delayq.DelayQ;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * Whether a queue name is in the prefix's registry (the queues that have had jobs), and the names a mistyped
 * one was probably meant to be: a typo in a queue name otherwise goes unnoticed ({@code stats} prints zeros,
 * {@code work} waits forever).
 */
final class KnownQueues {
    /** Names listed in a warning at most. */
    private static final int SHOWN = 5;

    private KnownQueues() {
    }

    /**
     * The warning for {@code queue}, or {@code null} when it is known: {@code queue 'ordrs' is not known under
     * prefix 'dq' (known: mail, orders); did you mean 'orders'?}.
     *
     * @param onlyIfSimilar warn only when a known name is close (for enqueue, where a new queue is normal)
     */
    static String warning(DelayQ client, String queue, boolean onlyIfSimilar) {
        List<String> known = client.queues();
        if (known.contains(queue)) {
            return null;
        }
        List<String> similar = similar(queue, known);
        if (onlyIfSimilar && similar.isEmpty()) {
            return null;
        }
        StringBuilder b = new StringBuilder("queue '").append(queue).append("' is not known under prefix '")
                .append(client.prefix()).append("' (");
        if (known.isEmpty()) {
            b.append("no queue has had jobs yet)");
        } else {
            b.append("known: ").append(String.join(", ", known.subList(0, Math.min(SHOWN, known.size()))))
                    .append(known.size() > SHOWN ? ", ... " + known.size() + " in all)" : ")");
        }
        if (!similar.isEmpty()) {
            b.append("; did you mean '").append(String.join("' or '", similar)).append("'?");
        }
        return b.toString();
    }

    /**
     * Known names within one edit of {@code name} (two for names of six characters or more; case ignored), closest
     * first, at most three.
     */
    static List<String> similar(String name, List<String> known) {
        String n = name.toLowerCase(Locale.ROOT);
        List<String> out = new ArrayList<>();
        for (String k : known) {
            if (distance(n, k.toLowerCase(Locale.ROOT)) <= (n.length() >= 6 ? 2 : 1)) {
                out.add(k);
            }
        }
        out.sort(Comparator.comparingInt(k -> distance(n, k.toLowerCase(Locale.ROOT))));
        return out.subList(0, Math.min(3, out.size()));
    }

    /** Edit distance counting a swap of two neighbours as one edit (optimal string alignment). */
    private static int distance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }
}
