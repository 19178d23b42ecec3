package dev.delayq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** Every command's help: whole sentences, whole examples, own options apart from global ones; suggestions. */
class HelpTest {
    private final Cli cli = new Cli("redis://127.0.0.1:1", "x");

    private static List<CommandLine> commands() {
        CommandLine root = new CommandLine(new Main());
        return new ArrayList<>(root.getSubcommands().values());
    }

    @Test
    void everyHelpFitsItsWidthAndKeepsEveryExampleOnOneLine() {
        List<String> names = new ArrayList<>(List.of(""));
        commands().forEach(c -> names.add(c.getCommandName()));
        for (String name : names) {
            Cli.Result r = name.isEmpty() ? cli.run("--help") : cli.run(name, "--help");
            assertThat(r.exit()).as(name).isZero();
            assertThat(r.lines()).as(name).allSatisfy(l -> assertThat(l.length()).isLessThanOrEqualTo(HelpLayout.WIDTH));
            CommandLine c = name.isEmpty() ? new CommandLine(new Main()) : new CommandLine(new Main()).getSubcommands().get(name);
            for (String footer : c.getCommandSpec().usageMessage().footer()) {
                if (footer.startsWith("  delayq")) {
                    assertThat(r.lines()).as(name + " example").contains(footer);
                }
            }
        }
    }

    @Test
    void everySummaryIsAWholeSentence() {
        for (CommandLine c : commands()) {
            String[] description = c.getCommandSpec().usageMessage().description();
            assertThat(description).as(c.getCommandName()).isNotEmpty();
            assertThat(description[0]).as(c.getCommandName()).endsWith(".");
        }
        // In the command list each summary, wrapped or not, ends its sentence.
        Cli.Result r = cli.run("--help");
        String list = r.out().substring(r.out().indexOf("Commands:"), r.out().indexOf("Examples:"));
        for (String entry : list.split("\n  (?=[a-z])")) {
            if (!entry.startsWith("Commands:")) {
                assertThat(entry.strip()).as(entry).endsWith(".");
            }
        }
    }

    @Test
    void globalOptionsAreListedApartFromTheCommandsOwn() {
        Cli.Result r = cli.run("work", "--help");
        String out = r.out();
        int own = out.indexOf("\nOptions:\n");
        int global = out.indexOf("\nGlobal options (before or after the command; see 'delayq --help'):\n");
        assertThat(own).isPositive();
        assertThat(global).isGreaterThan(own);
        assertThat(out.indexOf("--exec=COMMAND", own)).isBetween(own, global);
        assertThat(out.indexOf("--job-timeout=DUR", own)).isBetween(own, global);
        assertThat(out.indexOf("      --redis=URL", own)).isGreaterThan(global);
        assertThat(out.indexOf("      --prefix=PREFIX", own)).isGreaterThan(global);
        assertThat(out.lines().findFirst().orElseThrow()).startsWith("Usage: delayq work [-hV]");
        assertThat(out.substring(0, out.indexOf("\nRun a worker"))).contains("[GLOBAL-OPTIONS] QUEUE")
                .doesNotContain("--redis");

        Cli.Result top = cli.run("--help");
        assertThat(top.out()).contains("\nGlobal options (before or after the command):\n");
    }

    @Test
    void aMistypedCommandOrOptionGetsSuggestions() {
        Cli.Result command = cli.run("stat", "orders");
        assertThat(command.exit()).isEqualTo(Exit.USAGE);
        assertThat(command.err().lines().findFirst().orElseThrow()).startsWith("delayq: unknown command 'stat'; did you mean 'stats'");

        Cli.Result option = cli.run("stats", "orders", "--jsn");
        assertThat(option.exit()).isEqualTo(Exit.USAGE);
        assertThat(option.err()).startsWith("delayq: Unknown option: '--jsn'; did you mean '--json'?");
    }

    @Test
    void versionOnEveryCommand() {
        for (String[] args : List.of(new String[] {"--version"}, new String[] {"work", "--version"},
                new String[] {"stats", "-V"})) {
            Cli.Result r = cli.run(args);
            assertThat(r.exit()).isZero();
            assertThat(r.out()).startsWith("delayq "); // in-process: "development build"; the jar's: its version (WorkProcessIT)
        }
    }
}
