using System.CommandLine;
using System.Globalization;
using System.Text;
using System.Text.Json;
using PerfLab.Common;
using PerfLab.Hosts;
using PerfLab.Load;

namespace PerfLab.Cli;

/// <summary>
/// <c>perflab load URL ... --hosts FILE</c>: the load sent from the
/// file's generators, merged exactly, each generator's figures beside.
/// </summary>
internal static class RemoteLoadCommand
{
    public static async Task<int> RunAsync(ParseResult pr, FileInfo hostsFile, LoadPlan plan, CancellationToken ct)
    {
        var hosts = HostsFile.Read(hostsFile.FullName);
        await EnsureTargetIsAppHostAsync(hosts, plan.Scenarios.Select(s => s.Feed.UrlTemplate), ct);
        var asJson = pr.Tokens.Any(t => t.Value == "--json");
        var say = new InlineProgress<string>(line => Console.Error.WriteLine(line));
        var result = await (await Placements.GeneratorsAsync(hosts, say, ct)).SendAsync(plan, ct);
        var text = asJson
            ? JsonSerializer.Serialize(new { merged = result.Merged, generators = result.Generators }, LoadSummary.JsonOptions)
                + Environment.NewLine
            : LoadSummary.ToText(result.Merged) + GeneratorTable(result);
        Console.Out.Write(text);
        if (result.Failure is { } failure)
        {
            // The others' figures are printed above, marked incomplete; the run itself failed.
            throw failure;
        }
        return (int)(ct.IsCancellationRequested ? ExitCode.Interrupted : result.Merged.Incomplete ? ExitCode.Failed : ExitCode.Success);
    }

    /// <summary>
    /// Load leaves this machine only for the app host the hosts file names
    /// (its ssh address or name), or loopback when the app is local.
    /// </summary>
    internal static async Task EnsureTargetIsAppHostAsync(HostsFile hosts, IEnumerable<string> templates, CancellationToken ct)
    {
        var (address, _) = await new SshClient(hosts.SshConfig).ResolveAsync(hosts.App, ct);
        var urls = templates.Select(t => t.Replace("{", "", StringComparison.Ordinal).Replace("}", "", StringComparison.Ordinal));
        foreach (var url in urls.Select(u => TargetGuard.ParseTarget(u, "url")))
        {
            var allowed = hosts.App.IsLocal ? TargetGuard.IsLoopback(url)
                : string.Equals(url.IdnHost, address, StringComparison.OrdinalIgnoreCase)
                    || string.Equals(url.IdnHost, hosts.App.Destination, StringComparison.OrdinalIgnoreCase);
            if (!allowed)
            {
                throw new PerfLabException($"refusing to send load to {url.Host}: with --hosts the target must be the app host "
                    + $"of {hosts.Path} ({hosts.App.Destination}, {address}).", ExitCode.Usage);
            }
        }
    }

    private static string GeneratorTable(RemoteLoadResult result)
    {
        var text = new StringBuilder().AppendLine().AppendLine("Generators (each one's own figures; the "
            + "totals above add their histograms):");
        foreach (var g in result.Generators)
        {
            text.AppendLine(string.Create(CultureInfo.InvariantCulture,
                $"  {g.Host,-16} {g.Requests,9} req  {g.RequestsPerSecond,9:0.0} req/s  p50 {g.P50Ms,8:0.00} ms  p99 {g.P99Ms,8:0.00} ms  "
                    + $"cpu {g.CoresUsed:0.00} of {g.Cores} cores{(g.Saturated ? "  SATURATED: its own limit" : "")}"));
        }
        if (result.SaturatedHosts.Any())
        {
            text.AppendLine($"warning: {string.Join(", ", result.SaturatedHosts)} ran out of CPU: the figures above describe the "
                + "generator(s), not the target.");
        }
        return text.ToString();
    }
}
