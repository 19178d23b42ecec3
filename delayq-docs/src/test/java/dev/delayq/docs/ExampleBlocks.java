package dev.delayq.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The ```java blocks of Markdown files and the source regions they quote.
 *
 * <p>Every ```java block is preceded, on the line right before its fence, by a marker naming its source:
 * {@code <!-- example: delayq-docs/src/test/java/dev/delayq/docs/OrderTimeouts.java#order-timeouts -->}, a path from
 * the repository's root and a region. A region is the lines between {@code // tag::NAME[]} and {@code // end::NAME[]}
 * in that file (as in Asciidoctor), without the marker lines of other regions inside it, and with the indentation
 * they all share removed. The block must equal its region line for line (trailing blanks aside), so an example can
 * only change with the source the build compiles.
 */
final class ExampleBlocks {
    private static final Pattern MARKER = Pattern.compile("^\\s*<!--\\s*example:\\s*(\\S+?)#([\\w.-]+)\\s*-->\\s*$");
    private static final Pattern ANY_MARKER = Pattern.compile("^\\s*<!--\\s*example:");
    private static final Pattern OTHER_FENCE = Pattern.compile("^\\s*(```+|~~~+).*$");
    private static final Pattern JAVA_FENCE = Pattern.compile("^(\\s*)```\\s*java\\s*$", Pattern.CASE_INSENSITIVE);
    private static final Pattern TAG_LINE = Pattern.compile("^\\s*//\\s*(tag|end)::[\\w.-]+\\[\\]\\s*$");
    private static final Set<String> SKIPPED_DIRS = Set.of("target", "node_modules", ".git", ".mvn", ".idea");

    /** One ```java block: where it is, what it names, what it holds. */
    record Block(Path markdown, int line, String source, String region, List<String> lines) {
        String where(Path root) {
            return root.relativize(markdown) + ":" + line;
        }
    }

    /** One problem found: a block without a source, a source or region that does not exist, or a block that differs. */
    record Problem(Block block, String message) {
    }

    private ExampleBlocks() {
    }

    /** Every Markdown file under {@code root}, build output, dependencies and hidden directories left out. */
    static List<Path> markdownFiles(Path root) {
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(p -> p.toString().endsWith(".md"))
                    .filter(p -> !skipped(root.relativize(p)))
                    .filter(Files::isRegularFile)
                    .sorted(Comparator.comparing(Path::toString))
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static boolean skipped(Path relative) {
        for (int i = 0; i < relative.getNameCount() - 1; i++) {
            String dir = relative.getName(i).toString();
            if (SKIPPED_DIRS.contains(dir) || dir.startsWith(".")) {
                return true;
            }
        }
        return false;
    }

    /** The ```java blocks of one Markdown file; a block without a marker has a null source, a stray marker none. */
    static List<Block> blocks(Path markdown, List<Problem> problems) {
        List<String> lines = read(markdown);
        List<Block> blocks = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            Matcher fence = JAVA_FENCE.matcher(lines.get(i));
            if (fence.matches()) {
                String indent = fence.group(1);
                int end = i + 1;
                while (end < lines.size() && !lines.get(end).strip().equals("```")) {
                    end++;
                }
                List<String> body = new ArrayList<>();
                for (String l : lines.subList(i + 1, Math.min(end, lines.size()))) {
                    body.add(l.startsWith(indent) ? l.substring(indent.length()) : l.stripLeading());
                }
                Matcher marker = i > 0 ? MARKER.matcher(lines.get(i - 1)) : null;
                if (marker != null && marker.matches()) {
                    blocks.add(new Block(markdown, i + 1, marker.group(1), marker.group(2), body));
                } else {
                    blocks.add(new Block(markdown, i + 1, null, null, body));
                }
                i = end;
            } else if (OTHER_FENCE.matcher(lines.get(i)).matches()) {
                // Another kind of block (sh, xml, a listing): skip to its closing fence, so that a marker shown
                // inside it as an example is not taken for one.
                String fenceChars = lines.get(i).strip().replaceAll("^([`~]+).*$", "$1");
                int end = i + 1;
                while (end < lines.size() && !lines.get(end).strip().equals(fenceChars)) {
                    end++;
                }
                i = end;
            } else if (ANY_MARKER.matcher(lines.get(i)).find()) {
                boolean beforeJava = i + 1 < lines.size() && JAVA_FENCE.matcher(lines.get(i + 1)).matches();
                if (!beforeJava || !MARKER.matcher(lines.get(i)).matches()) {
                    problems.add(new Problem(new Block(markdown, i + 1, null, null, List.of()),
                            "an example marker must be `<!-- example: PATH#REGION -->` on the line right before a ```java"
                                    + " fence: " + lines.get(i).strip()));
                }
            }
        }
        return blocks;
    }

    /**
     * The lines of region {@code name} in {@code source}: between its tag and end lines, other regions' marker lines left
     * out, the indentation they share removed.
     *
     * @throws IllegalArgumentException when the region is missing, unterminated or defined twice
     */
    static List<String> region(Path source, String name) {
        List<String> lines = read(source);
        String open = "// tag::" + name + "[]";
        String close = "// end::" + name + "[]";
        int start = -1;
        int end = -1;
        for (int i = 0; i < lines.size(); i++) {
            String l = lines.get(i).strip();
            if (l.equals(open)) {
                if (start >= 0) {
                    throw new IllegalArgumentException("region '" + name + "' opens twice (line " + (i + 1) + ")");
                }
                start = i;
            } else if (l.equals(close)) {
                if (start < 0 || end >= 0) {
                    throw new IllegalArgumentException("region '" + name + "' closes at line " + (i + 1)
                            + " without one open");
                }
                end = i;
            }
        }
        if (start < 0) {
            throw new IllegalArgumentException("no region '" + name + "' (a line `" + open + "`)");
        }
        if (end < 0) {
            throw new IllegalArgumentException("region '" + name + "' is not closed (a line `" + close + "`)");
        }
        List<String> body = lines.subList(start + 1, end).stream()
                .filter(l -> !TAG_LINE.matcher(l).matches())
                .map(String::stripTrailing)
                .toList();
        int indent = body.stream().filter(l -> !l.isBlank())
                .mapToInt(l -> l.length() - l.stripLeading().length()).min().orElse(0);
        return body.stream().map(l -> l.isBlank() ? "" : l.substring(indent)).toList();
    }

    /** What is wrong with {@code block}, or null when it equals its region. */
    static String check(Path root, Block block) {
        if (block.source() == null) {
            return "a ```java block needs `<!-- example: PATH#REGION -->` on the line before it, naming the compiled"
                    + " source it quotes (see CONTRIBUTING.md, \"Examples in the docs\")";
        }
        Path source = root.resolve(block.source()).normalize();
        if (!source.startsWith(root) || !Files.isRegularFile(source)) {
            return "its source " + block.source() + " does not exist";
        }
        List<String> expected;
        try {
            expected = region(source, block.region());
        } catch (IllegalArgumentException e) {
            return block.source() + ": " + e.getMessage();
        }
        List<String> actual = block.lines().stream().map(String::stripTrailing).toList();
        if (actual.equals(expected)) {
            return null;
        }
        int at = 0;
        while (at < Math.min(actual.size(), expected.size()) && actual.get(at).equals(expected.get(at))) {
            at++;
        }
        return "differs from " + block.source() + "#" + block.region() + " at its line " + (at + 1) + ":\n"
                + "    the doc:    " + (at < actual.size() ? actual.get(at) : "(ends)") + "\n"
                + "    the source: " + (at < expected.size() ? expected.get(at) : "(ends)") + "\n"
                + "  the region is:\n" + String.join("\n", expected.stream().map(l -> "    | " + l).toList());
    }

    /** Replaces the body of every block that has a readable region with that region; returns how many changed. */
    static int update(Path root, Path markdown) {
        List<String> lines = new ArrayList<>(read(markdown));
        List<Block> blocks = blocks(markdown, new ArrayList<>());
        int changed = 0;
        // From the last block up, so the line numbers of the ones before stay right.
        for (int b = blocks.size() - 1; b >= 0; b--) {
            Block block = blocks.get(b);
            if (block.source() == null || check(root, block) == null) {
                continue;
            }
            List<String> region;
            try {
                region = region(root.resolve(block.source()), block.region());
            } catch (IllegalArgumentException | UncheckedIOException e) {
                continue;
            }
            int fence = block.line() - 1;
            String indent = lines.get(fence).substring(0, lines.get(fence).indexOf('`'));
            for (int i = 0; i < block.lines().size(); i++) {
                lines.remove(fence + 1);
            }
            lines.addAll(fence + 1, region.stream().map(l -> l.isEmpty() ? "" : indent + l).toList());
            changed++;
        }
        if (changed > 0) {
            try {
                Files.writeString(markdown, String.join("\n", lines) + "\n", StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return changed;
    }

    private static List<String> read(Path file) {
        try {
            return Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
