using System.Globalization;
using System.Text.RegularExpressions;
using Npgsql;
using PerfLab.Common;

namespace PerfLab.Hosts;

/// <summary>One host as checked: what it is and how its clock stands against this machine's.</summary>
public sealed record HostCheck(HostFacts Facts, ClockOffset Clock);

/// <summary>The TCP connect time from one host to another's service port (the shortest of a few); null when it did not connect.</summary>
public sealed record LinkRtt(string From, string To, string Target, double? RttMs);

/// <summary>Everything <c>perflab hosts check</c> found, all hosts reachable and fit to run their roles.</summary>
public sealed record HostsReport(string File, IReadOnlyList<HostCheck> Hosts, IReadOnlyList<LinkRtt> Links);

/// <summary>
/// Checks every host of a hosts file before anything starts there: reachable over ssh with the key, a .NET runtime that
/// runs perflab, its size and clock; then the round trips generator -> app -> db measured on the hosts themselves.
/// Every host that fails is named with its fix, all at once, exit code Unreachable.
/// </summary>
internal static partial class HostsCheck
{
    private const int LinkProbes = 6;

    public static async Task<HostsReport> RunAsync(HostsFile file, CancellationToken ct)
    {
        var ssh = new SshClient(file.SshConfig);
        var hosts = file.Hosts;
        // The app host is asked for what the built-in SUT needs; a run checks an app of one's own against its own build.
        var checks = await Task.WhenAll(hosts.Select(h => CheckOneAsync(ssh, h, ct,
            h.Destination == file.App.Destination ? FrameworkNeed.BuiltInSut : []))).ConfigureAwait(false);
        var failures = checks.Where(c => c.Failure is not null).Select(c => c.Failure!).ToList();
        if (failures.Count > 0)
        {
            throw new PerfLabException(string.Join(Environment.NewLine, failures), ExitCode.Unreachable);
        }
        var byDestination = hosts.Zip(checks, (h, c) => (h.Destination, c.Check!))
            .ToDictionary(p => p.Destination, p => p.Item2, StringComparer.Ordinal);
        var links = new List<LinkRtt>();
        var (_, appPort) = await ssh.ResolveAsync(file.App, ct).ConfigureAwait(false);
        foreach (var generator in file.Load)
        {
            links.Add(await LinkAsync(ssh, generator, file.App, byDestination[file.App.Destination].Facts.Address, appPort, ct)
                .ConfigureAwait(false));
        }
        if (DbTarget(file, byDestination) is { } db)
        {
            links.Add(await LinkAsync(ssh, file.App, db.Host, db.Address, db.Port, ct).ConfigureAwait(false));
        }
        return new HostsReport(file.Path, [.. checks.Select(c => c.Check!)], links);
    }

    /// <param name="needs">The frameworks the app to run there needs beside the runtime perflab runs on.</param>
    internal static async Task<(HostCheck? Check, string? Failure)> CheckOneAsync(SshClient ssh, HostRef host, CancellationToken ct,
        IReadOnlyList<FrameworkNeed>? needs = null)
    {
        try
        {
            var facts = await HostProbe.FactsAsync(ssh, host, ct).ConfigureAwait(false);
            if (!HostProbe.RuntimeFits(facts.Runtime))
            {
                return (null, $"{host}: no .NET {HostProbe.RuntimeMajor} runtime (found {facts.Runtime ?? "none"}): install "
                    + $"Microsoft.NETCore.App {HostProbe.RuntimeMajor}.0 there (the distribution's "
                    + $"dotnet-runtime-{HostProbe.RuntimeMajor}.0 package, or dotnet-install.sh --runtime dotnet "
                    + $"--channel {HostProbe.RuntimeMajor}.0) so `dotnet` is on the PATH of a non-interactive ssh session.");
            }
            if (FrameworkNeed.FirstMissing(needs ?? [], host, "the built-in SUT", facts.Frameworks ?? []) is { } missing)
            {
                return (null, missing);
            }
            var clock = await HostProbe.ClockAsync(ssh, host, ct).ConfigureAwait(false);
            return (new HostCheck(facts, clock), null);
        }
        catch (PerfLabException ex) when (ex.ExitCode is ExitCode.Unreachable)
        {
            return (null, ex.Message);
        }
    }

    /// <summary>
    /// Where the app reaches PostgreSQL: the db host's ssh address and PostgreSQL's port, or the external server's; null
    /// when on the app host itself.
    /// </summary>
    private static (HostRef Host, string Address, int Port)? DbTarget(HostsFile file, Dictionary<string, HostCheck> hosts)
    {
        switch (file.Db)
        {
            case DbOnHost { Host: var h } when h.Destination != file.App.Destination:
                return (h, hosts[h.Destination].Facts.Address, DatabaseRole.DefaultPort);
            case DbExternal { ConnectionString: var cs }:
                var builder = new NpgsqlConnectionStringBuilder(cs);
                return builder.Host is { Length: > 0 } host ? (new HostRef("db", host), host.Split(',')[0], builder.Port) : null;
            default:
                return null;
        }
    }

    private static async Task<LinkRtt> LinkAsync(SshClient ssh, HostRef from, HostRef to, string address, int port, CancellationToken ct)
    {
        var target = string.Create(CultureInfo.InvariantCulture, $"{address}:{port}");
        if (!SafeAddress().IsMatch(address))
        {
            return new LinkRtt(from.Destination, to.Destination, target, null);
        }
        // A TCP connect is one round trip (SYN, SYN-ACK); bash's /dev/tcp needs nothing installed on the host.
        var script = string.Create(CultureInfo.InvariantCulture,
            $"LC_ALL=C timeout 15 bash -c 'for i in $(seq {LinkProbes}); do s=$EPOCHREALTIME; if exec 3<>/dev/tcp/{address}/{port}; then "
                + $"e=$EPOCHREALTIME; exec 3>&-; echo \"$s $e\"; fi; done' 2>/dev/null; true");
        var output = await ssh.RunAsync(from, script, TimeSpan.FromSeconds(30), ct).ConfigureAwait(false);
        double? best = null;
        foreach (var line in output.Stdout.Split('\n', StringSplitOptions.RemoveEmptyEntries))
        {
            var parts = line.Split(' ');
            if (parts.Length == 2 && double.TryParse(parts[0], NumberStyles.Float, CultureInfo.InvariantCulture, out var s)
                && double.TryParse(parts[1], NumberStyles.Float, CultureInfo.InvariantCulture, out var e))
            {
                best = Math.Min(best ?? double.MaxValue, (e - s) * 1000);
            }
        }
        return new LinkRtt(from.Destination, to.Destination, target, best);
    }

    [GeneratedRegex(@"^[A-Za-z0-9.:_\-\[\]]+$")]
    private static partial Regex SafeAddress();
}
