using System.CommandLine;
using PerfLab.Hosts;

namespace PerfLab.Cli;

/// <summary>`--hosts FILE`, the same on `perflab run` and `perflab compare`: where the app, PostgreSQL and the load run.</summary>
internal static class HostsOption
{
    public static Option<FileInfo?> Create() => new("--hosts")
    {
        Description = "Run the app (the built-in SUT or your own project or .dll, published here and copied there), PostgreSQL and "
            + "the load generators on the hosts this file names (app:, db:, load:), over ssh (see docs/hosts.md).",
        HelpName = "hosts.yaml",
    };

    /// <summary>The hosts file given, read and checked (file:line and exit 2 when malformed); null without the option.</summary>
    public static HostsFile? Read(ParseResult parse, Option<FileInfo?> option) =>
        parse.GetValue(option) is { } file ? HostsFile.Read(file.FullName) : null;
}
