using PerfLab.Common;
using PerfLab.Load;

namespace PerfLab.Hosts;

/// <summary>
/// <c>perflab load --hosts</c>: the same load, sent from the hosts file's generators. Every generator is checked
/// (reachable, key accepted, runtime present) before any is started; perflab is copied where missing; all start on one
/// barrier (<see cref="Generators"/>); a generator that fails fails the run with its host named, and the others are
/// stopped, what they measured kept.
/// </summary>
internal static class RemoteLoad
{
    public static async Task<RemoteLoadResult> RunAsync(HostsFile file, LoadPlan plan, IProgress<string> say, CancellationToken ct)
    {
        var generators = await ConnectAsync(file, say, ct).ConfigureAwait(false);
        return await generators.RunAsync(plan, say, ct).ConfigureAwait(false);
    }

    /// <summary>The file's generators checked and holding perflab, ready to send one load after another.</summary>
    public static async Task<Generators> ConnectAsync(HostsFile file, IProgress<string> say, CancellationToken ct)
    {
        var ssh = new SshClient(file.SshConfig);
        var clocks = await CheckAsync(ssh, file.Load, say, ct).ConfigureAwait(false);
        var commands = await Task.WhenAll(file.Load.Select(async h =>
        {
            var (command, copied) = await Deployment.EnsureAsync(ssh, h, ct).ConfigureAwait(false);
            say.Report(copied ? $"{h.Destination}: perflab copied" : $"{h.Destination}: perflab already there");
            return command;
        })).ConfigureAwait(false);
        return new Generators(ssh, [.. file.Load.Select((h, i) => new Generator(h, commands[i], clocks[i]))]);
    }

    /// <summary>
    /// Reachable with the key, a runtime that runs perflab, and the
    /// clock offset the barrier needs; every failing host named at once.
    /// </summary>
    private static async Task<ClockOffset[]> CheckAsync(SshClient ssh, IReadOnlyList<HostRef> generators, IProgress<string> say,
        CancellationToken ct)
    {
        var checks = await Task.WhenAll(generators.Select(async Task<(ClockOffset? Clock, string? Failure)> (h) =>
        {
            try
            {
                var facts = await HostProbe.FactsAsync(ssh, h, ct).ConfigureAwait(false);
                if (!HostProbe.RuntimeFits(facts.Runtime))
                {
                    return (null, $"{h}: no .NET {HostProbe.RuntimeMajor} runtime (found {facts.Runtime ?? "none"}): install it "
                        + $"there, see perflab hosts check.");
                }
                return (await HostProbe.ClockAsync(ssh, h, ct).ConfigureAwait(false), null);
            }
            catch (PerfLabException ex) when (ex.ExitCode is ExitCode.Unreachable)
            {
                return (null, ex.Message);
            }
        })).ConfigureAwait(false);
        if (checks.Any(c => c.Failure is not null))
        {
            throw new PerfLabException(string.Join(Environment.NewLine, checks.Where(c => c.Failure is not null).Select(c => c.Failure))
                + Environment.NewLine + "nothing was started.", ExitCode.Unreachable);
        }
        foreach (var (h, c) in generators.Zip(checks))
        {
            say.Report(string.Create(System.Globalization.CultureInfo.InvariantCulture,
                $"{h.Destination}: clock offset {c.Clock!.OffsetMs:+0.000;-0.000} ms ± {c.Clock.UncertaintyMs:0.000}"));
        }
        return [.. checks.Select(c => c.Clock!)];
    }
}
