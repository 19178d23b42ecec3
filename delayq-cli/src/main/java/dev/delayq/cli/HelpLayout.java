package dev.delayq.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Help;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * How every command's help reads: 100 columns (so that no example is wrapped inside a command), the command's
 * own options under "Options:", the global options (inherited from {@code delayq}) in a list of their own, and
 * {@code --version} working on every command.
 */
final class HelpLayout {
    /** Columns of the help text; every example line must fit. */
    static final int WIDTH = 100;
    private static final String GLOBAL_HEADING = "globalOptionListHeading";
    private static final String GLOBAL_LIST = "globalOptionList";

    private HelpLayout() {
    }

    /** Applies the layout to {@code root} and every command under it. */
    static void apply(CommandLine root) {
        root.setUsageHelpWidth(WIDTH);
        root.setHelpFactory(OwnOptionsFirst::new);
        root.getCommandSpec().usageMessage().optionListHeading("Global options (before or after the command):%n");
        for (CommandLine sub : root.getSubcommands().values()) {
            applyToCommand(sub, root.getCommandSpec().versionProvider());
        }
    }

    private static void applyToCommand(CommandLine c, CommandLine.IVersionProvider version) {
        CommandSpec spec = c.getCommandSpec();
        spec.versionProvider(version);
        spec.usageMessage().optionListHeading("Options:%n");
        Map<String, CommandLine.IHelpSectionRenderer> sections = c.getHelpSectionMap();
        sections.put(CommandLine.Model.UsageMessageSpec.SECTION_KEY_OPTION_LIST,
                help -> help.optionListExcludingGroups(options(spec, false)) + help.optionListGroupSections());
        sections.put(GLOBAL_HEADING, help -> options(spec, true).isEmpty() ? ""
                : help.createHeading("Global options (before or after the command; see 'delayq --help'):%n"));
        sections.put(GLOBAL_LIST, help -> help.optionListExcludingGroups(options(spec, true)));
        List<String> keys = new ArrayList<>(c.getHelpSectionKeys());
        int at = keys.indexOf(CommandLine.Model.UsageMessageSpec.SECTION_KEY_OPTION_LIST);
        keys.addAll(at + 1, List.of(GLOBAL_HEADING, GLOBAL_LIST));
        c.setHelpSectionKeys(keys);
        for (CommandLine sub : c.getSubcommands().values()) {
            applyToCommand(sub, version);
        }
    }

    /** The command's own options ({@code global} false) or the ones it inherits from {@code delayq}. */
    private static List<OptionSpec> options(CommandSpec spec, boolean global) {
        return spec.options().stream().filter(o -> o.inherited() == global && (global || o.group() == null
                || o.group().heading() == null)).toList();
    }

    /** The synopsis of a command lists its own options and ends with {@code [GLOBAL-OPTIONS]}. */
    static final class OwnOptionsFirst extends Help {
        OwnOptionsFirst(CommandSpec spec, ColorScheme colors) {
            super(spec, colors);
        }

        @Override
        protected Ansi.Text createDetailedSynopsisOptionsText(java.util.Collection<ArgSpec> done, List<OptionSpec> options,
                                                            java.util.Comparator<OptionSpec> sort, boolean cluster) {
            List<OptionSpec> own = options.stream().filter(o -> !o.inherited()).toList();
            Ansi.Text text = super.createDetailedSynopsisOptionsText(done, own, sort, cluster);
            return own.size() == options.size() ? text : text.concat(" [GLOBAL-OPTIONS]");
        }
    }
}
