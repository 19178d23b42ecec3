package dev.delayq.build;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import java.util.zip.ZipFile;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * Checks what {@code mvn -P release deploy} staged (a Maven repository directory) against what Maven Central requires,
 * prints one line per artifact, and exits 1 naming everything missing.
 *
 * <p>The artifacts expected are delayq-parent, delayq-bom and every module delayq-bom lists; anything else staged under
 * {@code dev/delayq} is an error too (a module deployed but missing from the BOM). For each: a pom with name, description,
 * url, licenses (name and url), developers (name) and scm (connection, developerConnection, url), its own or inherited
 * from a staged parent; the main jar, {@code -sources.jar} and {@code -javadoc.jar} for jar packaging; and for every file
 * a {@code .md5} and a {@code .sha1} that match it, and an {@code .asc} signature unless signing was skipped. A snapshot
 * version is checked as the latest build in its directory (Central takes release versions only; the shape is the same).
 *
 * <p>Usage: {@code java -cp delayq-test-summary/target/classes dev.delayq.build.StagingCheck [--gpg-skip=true|false]
 * target/staging}, or run as a source file with {@code java .../StagingCheck.java ...}. The release profile runs it
 * after every module deployed.
 */
public final class StagingCheck {
    private static final String GROUP = "dev.delayq";
    private static final String PARENT = "delayq-parent";
    private static final String BOM = "delayq-bom";
    private static final Set<String> SIDE_FILES = Set.of(".md5", ".sha1", ".sha256", ".sha512", ".asc");

    private final Path staging;
    private final boolean signed;
    private final List<String> problems = new ArrayList<>();
    private final List<String> report = new ArrayList<>();
    private int files;

    private StagingCheck(Path staging, boolean signed) {
        this.staging = staging;
        this.signed = signed;
    }

    /**
     * Runs the check.
     *
     * @param args {@code [--gpg-skip=true|false] <staging directory>}
     * @throws Exception when a file cannot be read at all
     */
    public static void main(String[] args) throws Exception {
        boolean signed = true;
        Path dir = null;
        for (String a : args) {
            if (a.startsWith("--gpg-skip=")) {
                signed = !Boolean.parseBoolean(a.substring("--gpg-skip=".length()));
            } else if (dir == null && !a.startsWith("-")) {
                dir = Path.of(a);
            } else {
                dir = null;
                break;
            }
        }
        if (dir == null) {
            System.err.println("usage: StagingCheck [--gpg-skip=true|false] <staging directory>");
            System.exit(2);
        }
        StagingCheck check = new StagingCheck(dir, signed);
        check.run();
        System.out.println("[delayq] staging check of " + dir + (signed ? ", signatures required"
                : ", signing skipped: no key named (-Dgpg.keyname=KEY signs; Maven Central refuses unsigned files)"));
        check.report.forEach(line -> System.out.println("  " + line));
        if (check.problems.isEmpty()) {
            System.out.println("[delayq] staging check: " + check.report.size() + " artifacts, " + check.files
                    + " files, each with a matching .md5 and .sha1" + (signed ? " and an .asc" : "") + ": OK");
            return;
        }
        System.out.println("[delayq] staging check FAILED, " + check.problems.size() + " problem(s):");
        check.problems.forEach(p -> System.out.println("  - " + p));
        System.exit(1);
    }

    private void run() throws Exception {
        Path group = staging.resolve(GROUP.replace('.', '/'));
        // version -> artifactId -> its directory
        Map<String, Map<String, Path>> staged = new TreeMap<>();
        if (Files.isDirectory(group)) {
            for (Path artifact : list(group)) {
                for (Path version : list(artifact)) {
                    if (Files.isDirectory(version)) {
                        staged.computeIfAbsent(version.getFileName().toString(), v -> new TreeMap<>())
                                .put(artifact.getFileName().toString(), version);
                    }
                }
            }
        }
        if (staged.isEmpty()) {
            problems.add("nothing staged under " + group);
        }
        for (Map.Entry<String, Map<String, Path>> e : staged.entrySet()) {
            String version = e.getKey();
            Map<String, Path> artifacts = e.getValue();
            Set<String> expected = new TreeSet<>(List.of(PARENT, BOM));
            Element bom = artifacts.containsKey(BOM) ? pom(artifacts.get(BOM), BOM, version) : null;
            if (bom == null) {
                problems.add(id(BOM, version) + " is not staged: the published modules are the ones it lists");
                expected.addAll(artifacts.keySet());
            } else {
                for (Element d : all(child(child(bom, "dependencyManagement"), "dependencies"), "dependency")) {
                    if (GROUP.equals(text(d, "groupId"))) {
                        expected.add(text(d, "artifactId"));
                    }
                }
            }
            for (String a : expected) {
                if (!artifacts.containsKey(a) && !a.equals(BOM)) {
                    problems.add(id(a, version) + " is not staged" + (a.equals(PARENT) ? "" : " (delayq-bom lists it)"));
                }
            }
            for (Map.Entry<String, Path> a : artifacts.entrySet()) {
                if (!expected.contains(a.getKey())) {
                    problems.add(id(a.getKey(), version) + " is staged but delayq-bom does not list it"
                            + " (list it there, or set maven.deploy.skip in its pom)");
                }
                checkArtifact(a.getKey(), version, a.getValue());
            }
        }
    }

    private void checkArtifact(String artifactId, String version, Path dir) throws Exception {
        String id = id(artifactId, version);
        String prefix = artifactId + "-" + fileVersion(dir, id, version);
        Element pom = pom(dir, artifactId, version);
        if (pom == null) {
            problems.add(id + ": " + prefix + ".pom is missing");
            return;
        }
        String packaging = text(pom, "packaging").isEmpty() ? "jar" : text(pom, "packaging");
        List<String> required = new ArrayList<>(List.of(prefix + ".pom"));
        if (packaging.equals("jar")) {
            required.addAll(List.of(prefix + ".jar", prefix + "-sources.jar", prefix + "-javadoc.jar"));
        } else if (!packaging.equals("pom")) {
            problems.add(id + ": packaging " + packaging + " is neither jar nor pom");
        }
        for (String f : required) {
            if (!Files.isRegularFile(dir.resolve(f))) {
                problems.add(id + ": " + f + " is missing");
            }
        }
        checkContents(id, dir.resolve(prefix + ".jar"), "META-INF/MANIFEST.MF");
        checkContents(id, dir.resolve(prefix + "-sources.jar"), ".java");
        checkContents(id, dir.resolve(prefix + "-javadoc.jar"), "index.html");
        checkMetadata(id, pom, dir);

        List<String> kinds = new ArrayList<>();
        for (Path f : list(dir)) {
            String name = f.getFileName().toString();
            if (!name.startsWith(prefix) || SIDE_FILES.stream().anyMatch(name::endsWith)) {
                continue;
            }
            files++;
            kinds.add(name.substring(prefix.length()));
            checkSum(id, f, ".md5", "MD5");
            checkSum(id, f, ".sha1", "SHA-1");
            Path asc = f.resolveSibling(name + ".asc");
            if (signed && !(Files.isRegularFile(asc) && Files.readString(asc, StandardCharsets.US_ASCII)
                    .startsWith("-----BEGIN PGP SIGNATURE-----"))) {
                problems.add(id + ": " + name + ".asc (its signature) is missing or not a signature");
            }
        }
        report.add(id + " (" + packaging + "): " + String.join(" ", kinds));
    }

    /** The metadata Central wants, from the pom or, but for the name, the staged parents it inherits from. */
    private void checkMetadata(String id, Element pom, Path dir) throws Exception {
        List<Element> chain = new ArrayList<>(List.of(pom));
        for (Element p = child(pom, "parent"); p != null; p = child(chain.get(chain.size() - 1), "parent")) {
            String a = text(p, "artifactId");
            if (!GROUP.equals(text(p, "groupId"))) {
                break; // a parent published by others, already on Central
            }
            Element parent = pom(staging.resolve(GROUP.replace('.', '/')).resolve(a).resolve(text(p, "version")), a,
                    text(p, "version"));
            if (parent == null) {
                problems.add(id + ": its parent " + text(p, "groupId") + ":" + a + ":" + text(p, "version") + " is not staged");
                break;
            }
            chain.add(parent);
        }
        if (text(pom, "name").isBlank()) {
            problems.add(id + ": the pom has no name");
        }
        for (String path : List.of("description", "url", "scm/connection", "scm/developerConnection", "scm/url")) {
            if (chain.stream().map(e -> text(e, path)).allMatch(String::isBlank)) {
                problems.add(id + ": the pom has no " + path.replace('/', ' ') + ", of its own or inherited");
            }
        }
        checkList(id, chain, "licenses", "license", List.of("name", "url"));
        checkList(id, chain, "developers", "developer", List.of("name"));
    }

    private void checkList(String id, List<Element> chain, String list, String item, List<String> fields) {
        List<Element> items = chain.stream().map(e -> all(child(e, list), item)).filter(l -> !l.isEmpty()).findFirst()
                .orElse(List.of());
        if (items.isEmpty()) {
            problems.add(id + ": the pom has no " + list + ", of its own or inherited");
        }
        for (Element e : items) {
            for (String f : fields) {
                if (text(e, f).isBlank()) {
                    problems.add(id + ": a " + item + " in its pom has no " + f);
                }
            }
        }
    }

    private void checkSum(String id, Path file, String suffix, String algorithm) throws IOException, NoSuchAlgorithmException {
        Path sum = file.resolveSibling(file.getFileName() + suffix);
        if (!Files.isRegularFile(sum)) {
            problems.add(id + ": " + sum.getFileName() + " is missing");
            return;
        }
        String expected = HexFormat.of().formatHex(MessageDigest.getInstance(algorithm).digest(Files.readAllBytes(file)));
        String[] stated = Files.readString(sum, StandardCharsets.US_ASCII).trim().split("\\s+");
        if (!stated[0].equalsIgnoreCase(expected)) {
            problems.add(id + ": " + sum.getFileName() + " does not match the file");
        }
    }

    private void checkContents(String id, Path jar, String entrySuffix) throws IOException {
        if (!Files.isRegularFile(jar)) {
            return;
        }
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            if (zip.stream().noneMatch(e -> e.getName().endsWith(entrySuffix))) {
                problems.add(id + ": " + jar.getFileName() + " holds no " + entrySuffix);
            }
        }
    }

    /** The version in file names: a snapshot's latest build (maven-metadata.xml), else the version itself. */
    private String fileVersion(Path dir, String id, String version) throws Exception {
        if (!version.endsWith("-SNAPSHOT")) {
            return version;
        }
        Path metadata = dir.resolve("maven-metadata.xml");
        if (!Files.isRegularFile(metadata)) {
            problems.add(id + ": maven-metadata.xml is missing (a snapshot's file names come from it)");
            return version;
        }
        Element snapshot = child(child(parse(metadata), "versioning"), "snapshot");
        return version.substring(0, version.length() - "SNAPSHOT".length()) + text(snapshot, "timestamp") + "-"
                + text(snapshot, "buildNumber");
    }

    private Element pom(Path dir, String artifactId, String version) throws Exception {
        if (!Files.isDirectory(dir)) {
            return null;
        }
        String v = version.endsWith("-SNAPSHOT") && !Files.isRegularFile(dir.resolve("maven-metadata.xml")) ? version
                : fileVersion(dir, id(artifactId, version), version);
        Path pom = dir.resolve(artifactId + "-" + v + ".pom");
        return Files.isRegularFile(pom) ? parse(pom) : null;
    }

    private static Element parse(Path xml) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        return f.newDocumentBuilder().parse(xml.toFile()).getDocumentElement();
    }

    /** The text at a slash-separated path of child elements, "" when absent. */
    private static String text(Element e, String path) {
        for (String name : path.split("/")) {
            e = child(e, name);
        }
        return e == null ? "" : e.getTextContent().trim();
    }

    private static Element child(Element e, String name) {
        List<Element> l = all(e, name);
        return l.isEmpty() ? null : l.get(0);
    }

    private static List<Element> all(Element e, String name) {
        List<Element> found = new ArrayList<>();
        for (Node n = e == null ? null : e.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element c && c.getTagName().equals(name)) {
                found.add(c);
            }
        }
        return found;
    }

    private static List<Path> list(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.sorted().toList();
        }
    }

    private static String id(String artifactId, String version) {
        return GROUP + ":" + artifactId + ":" + version;
    }
}
