using System.CommandLine;
using System.Globalization;
using System.Text;
using System.Text.Json;
using PerfLab.Hosts;

namespace PerfLab.Cli;

/// <summary><c>perflab hosts check FILE</c>: is every host of a hosts file reachable and fit for its role, before a run uses it.</summary>
public static class HostsCommand
{
    private static readonly JsonSerializerOptions JsonOptions = new(JsonSerializerDefaults.Web) { WriteIndented = true };

    public static Command Create()
    {
        var command = new Command("hosts", "Hosts of their own for the app, PostgreSQL and the load generators, reached "
            + "over OpenSSH (see docs/hosts.md).");
        command.Subcommands.Add(Check());
        return command;
    }

    private static Command Check()
    {
        var file = new Argument<FileInfo>("file") { Description = "The hosts file (hosts.yaml: ssh-config, app, db, load)." };
        var json = new Option<bool>("--json") { Description = "Print the result as JSON on stdout." };
        var command = new Command("check", "Check every host of a hosts file over ssh: reachable with the key, cores, memory, OS, .NET "
            + "runtime, clock offset to this machine with its uncertainty, and the round trips generator -> app -> db. Exit 4 naming the "
            + "host and the fix when one is unfit.");
        command.Arguments.Add(file);
        command.Options.Add(json);
        command.SetAction(async (pr, ct) =>
        {
            var hosts = HostsFile.Read(pr.GetValue(file)!.FullName);
            Console.Error.WriteLine($"checking {hosts.Hosts.Count} host(s) of {hosts.Path} ...");
            var report = await HostsCheck.RunAsync(hosts, ct);
            Console.Out.Write(pr.GetValue(json) ? JsonSerializer.Serialize(report, JsonOptions) + Environment.NewLine : ToText(report));
            return 0;
        });
        return command;
    }

    internal static string ToText(HostsReport report)
    {
        var rows = new List<string[]> { new[] { "role", "host", "address", "cores", "memory", "os", ".net", "rtt", "clock offset" } };
        rows.AddRange(report.Hosts.Select(h => new[]
        {
            h.Facts.Role,
            h.Facts.Destination,
            h.Facts.Address,
            h.Facts.Cores.ToString(CultureInfo.InvariantCulture),
            string.Create(CultureInfo.InvariantCulture, $"{h.Facts.MemoryMb / 1024.0:0.0} GiB"),
            h.Facts.Os,
            h.Facts.Runtime ?? "-",
            Ms(h.Clock.RoundTripMs),
            string.Create(CultureInfo.InvariantCulture, $"{h.Clock.OffsetMs:+0.000;-0.000} ms ± {h.Clock.UncertaintyMs:0.000}"),
        }));
        var text = new StringBuilder();
        Table(text, rows);
        text.AppendLine();
        var links = new List<string[]> { new[] { "from", "to", "target", "tcp connect rtt" } };
        links.AddRange(report.Links.Select(l => new[] { l.From, l.To, l.Target, l.RttMs is { } r ? Ms(r) : "no connection" }));
        Table(text, links);
        if (report.Hosts.Any(h => h.Clock.UncertaintyMs > 1))
        {
            text.AppendLine().AppendLine("note: a clock offset is known to more than ±1 ms; timelines across "
                + "hosts are aligned only to that.");
        }
        return text.ToString();
    }

    private static string Ms(double ms) => string.Create(CultureInfo.InvariantCulture, $"{ms:0.000} ms");

    private static void Table(StringBuilder text, List<string[]> rows)
    {
        var widths = Enumerable.Range(0, rows[0].Length).Select(c => rows.Max(r => r[c].Length)).ToArray();
        foreach (var row in rows)
        {
            text.AppendLine(string.Join("  ", row.Select((cell, c) => cell.PadRight(widths[c]))).TrimEnd());
        }
    }
}
