package dev.delayq.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every ```java block of the repository's Markdown files (README.md, docs/ and the others) quotes a region of a source
 * file that the build compiles, word for word, so no example in the docs can rot: change the source, and this test
 * names every block that must follow. {@code -Ddocs.update=true} rewrites the blocks from their regions instead (then
 * read the diff).
 */
class DocsExamplesTest {
    private static final Path ROOT = root();
    private static final Pattern TAG = Pattern.compile("(?m)^\\s*// tag::([\\w.-]+)\\[\\]\\s*$");

    @Test
    void everyJavaBlockOfTheDocsIsTheSourceRegionItNames() {
        boolean update = Boolean.getBoolean("docs.update");
        List<String> failures = new ArrayList<>();
        int checked = 0;
        int inReadme = 0;
        for (Path markdown : ExampleBlocks.markdownFiles(ROOT)) {
            if (update) {
                int changed = ExampleBlocks.update(ROOT, markdown);
                if (changed > 0) {
                    System.out.println("docs.update: rewrote " + changed + " block(s) of " + ROOT.relativize(markdown));
                }
            }
            List<ExampleBlocks.Problem> problems = new ArrayList<>();
            for (ExampleBlocks.Block block : ExampleBlocks.blocks(markdown, problems)) {
                checked++;
                if (markdown.equals(ROOT.resolve("README.md"))) {
                    inReadme++;
                }
                String problem = ExampleBlocks.check(ROOT, block);
                if (problem != null) {
                    failures.add(block.where(ROOT) + ": " + problem);
                }
            }
            problems.forEach(p -> failures.add(p.block().where(ROOT) + ": " + p.message()));
        }
        assertThat(failures)
                .as("```java blocks that are not their source region (mvn -B verify -pl delayq-docs -am"
                        + " -Ddocs.update=true rewrites them from their sources)")
                .isEmpty();
        assertThat(inReadme).as("java blocks found in README.md").isPositive();
        assertThat(checked).as("java blocks found").isGreaterThan(inReadme);
    }

    @Test
    void everyRegionOfTheExamplesIsQuotedByTheDocs() throws IOException {
        Set<String> quoted = new HashSet<>();
        for (Path markdown : ExampleBlocks.markdownFiles(ROOT)) {
            for (ExampleBlocks.Block block : ExampleBlocks.blocks(markdown, new ArrayList<>())) {
                quoted.add(block.source() + "#" + block.region());
            }
        }
        Set<String> defined = new TreeSet<>();
        Path examples = ROOT.resolve("delayq-docs/src/test/java");
        try (Stream<Path> files = Files.walk(examples)) {
            // The examples, not the tests (whose text blocks show regions of their own).
            List<Path> sources = files.filter(f -> f.toString().endsWith(".java") && !f.toString().endsWith("Test.java"))
                    .toList();
            for (Path file : sources) {
                Matcher tag = TAG.matcher(Files.readString(file));
                while (tag.find()) {
                    defined.add(ROOT.relativize(file).toString().replace('\\', '/') + "#" + tag.group(1));
                }
            }
        }
        assertThat(defined).as("regions of delayq-docs that no doc quotes (an example nobody reads)")
                .isNotEmpty()
                .allSatisfy(region -> assertThat(quoted).contains(region));
    }

    @Test
    void aBlockThatDiffersFromItsRegionFailsAndNamesTheLine(@TempDir Path dir) throws IOException {
        write(dir, "src/Example.java", """
                class Example {
                    void run() {
                        // tag::run[]
                        int answer = 42;
                        // tag::inner[]
                        System.out.println(answer);
                        // end::inner[]
                        // end::run[]
                    }
                }
                """);
        Path md = write(dir, "guide.md", """
                <!-- example: src/Example.java#run -->
                ```java
                int answer = 42;
                System.out.println(answer);
                ```

                <!-- example: src/Example.java#inner -->
                ```java
                System.out.println(43);
                ```
                """);

        List<ExampleBlocks.Problem> problems = new ArrayList<>();
        List<ExampleBlocks.Block> blocks = ExampleBlocks.blocks(md, problems);

        assertThat(problems).isEmpty();
        assertThat(blocks).hasSize(2);
        assertThat(ExampleBlocks.check(dir, blocks.get(0))).isNull();
        assertThat(ExampleBlocks.check(dir, blocks.get(1)))
                .contains("differs from src/Example.java#inner at its line 1")
                .contains("the doc:    System.out.println(43);")
                .contains("the source: System.out.println(answer);");

        assertThat(ExampleBlocks.update(dir, md)).isEqualTo(1);
        assertThat(ExampleBlocks.blocks(md, problems)).allSatisfy(b -> assertThat(ExampleBlocks.check(dir, b)).isNull());
    }

    @Test
    void aJavaBlockWithoutItsSourceAndAMarkerAwayFromABlockAreReported(@TempDir Path dir) throws IOException {
        Path md = write(dir, "guide.md", """
                ```java
                int x = 1;
                ```
                <!-- example: src/Example.java#run -->

                ```java
                int y = 2;
                ```
                """);

        List<ExampleBlocks.Problem> problems = new ArrayList<>();
        List<ExampleBlocks.Block> blocks = ExampleBlocks.blocks(md, problems);

        assertThat(blocks).hasSize(2);
        assertThat(ExampleBlocks.check(dir, blocks.get(0))).contains("needs `<!-- example: PATH#REGION -->`");
        assertThat(ExampleBlocks.check(dir, blocks.get(1))).contains("needs `<!-- example: PATH#REGION -->`");
        assertThat(problems).singleElement().extracting(ExampleBlocks.Problem::message).asString()
                .contains("on the line right before a ```java fence");
    }

    @Test
    void aMarkerShownInsideAnotherKindOfBlockIsText(@TempDir Path dir) throws IOException {
        Path md = write(dir, "guide.md", """
                The line before a block names its source:

                ```
                <!-- example: src/Example.java#run -->
                ```java
                ```
                """);

        List<ExampleBlocks.Problem> problems = new ArrayList<>();

        assertThat(ExampleBlocks.blocks(md, problems)).isEmpty();
        assertThat(problems).isEmpty();
    }

    @Test
    void aMissingSourceOrRegionIsReported(@TempDir Path dir) throws IOException {
        write(dir, "src/Example.java", """
                // tag::open[]
                int x = 1;
                """);
        Path md = write(dir, "guide.md", """
                <!-- example: src/Missing.java#run -->
                ```java
                ```
                <!-- example: src/Example.java#run -->
                ```java
                ```
                <!-- example: src/Example.java#open -->
                ```java
                int x = 1;
                ```
                """);

        List<ExampleBlocks.Block> blocks = ExampleBlocks.blocks(md, new ArrayList<>());

        assertThat(ExampleBlocks.check(dir, blocks.get(0))).contains("src/Missing.java does not exist");
        assertThat(ExampleBlocks.check(dir, blocks.get(1))).contains("no region 'run'");
        assertThat(ExampleBlocks.check(dir, blocks.get(2))).contains("region 'open' is not closed");
    }

    private static Path write(Path dir, String name, String text) throws IOException {
        Path file = dir.resolve(name);
        Files.createDirectories(file.getParent());
        return Files.writeString(file, text);
    }

    /** The repository's root: the build's (the surefire property), else the parent of this module's directory. */
    private static Path root() {
        String root = System.getProperty("delayq.build.root");
        Path path = root != null && !root.isBlank() ? Path.of(root) : Path.of("").toAbsolutePath().getParent();
        if (!Files.isDirectory(path.resolve("delayq-docs"))) {
            path = Path.of("").toAbsolutePath().getParent();
        }
        return path.toAbsolutePath().normalize();
    }
}
