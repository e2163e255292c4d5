using PerfLab.Common;

namespace PerfLab.Hosts;

/// <summary>
/// <c>perflab load --hosts</c>: the same load, sent from the hosts file's generators. Every generator is checked
/// (reachable, key accepted, runtime present) before any is started; perflab is copied where missing; all start on one
/// barrier; a generator that fails fails the run with its host named, and the others are stopped.
/// </summary>
internal static class RemoteLoad
{
    private static readonly TimeSpan BarrierLead = TimeSpan.FromMilliseconds(500);

    public static async Task<RemoteLoadResult> RunAsync(HostsFile file, IReadOnlyList<string> loadArguments, IProgress<string> say,
        CancellationToken ct)
    {
        var ssh = new SshClient(file.SshConfig);
        var clocks = await CheckAsync(ssh, file.Load, say, ct).ConfigureAwait(false);
        var commands = await Task.WhenAll(file.Load.Select(async h =>
        {
            var (command, copied) = await Deployment.EnsureAsync(ssh, h, ct).ConfigureAwait(false);
            say.Report(copied ? $"{h.Destination}: perflab copied" : $"{h.Destination}: perflab already there");
            return command;
        })).ConfigureAwait(false);
        var sessions = new List<GeneratorSession>();
        try
        {
            for (var i = 0; i < file.Load.Count; i++)
            {
                sessions.Add(GeneratorSession.Start(ssh, file.Load[i], commands[i], new LoadShare(i, file.Load.Count), loadArguments));
            }
            foreach (var session in sessions)
            {
                await session.WaitReadyAsync(TimeSpan.FromSeconds(60), ct).ConfigureAwait(false);
            }
            var start = DateTimeOffset.UtcNow + BarrierLead;
            for (var i = 0; i < sessions.Count; i++)
            {
                sessions[i].Go(start, clocks[i].OffsetMs);
            }
            say.Report($"{sessions.Count} generator(s) started together");
            return LoadMerge.Merge(await CollectAsync(sessions, ct).ConfigureAwait(false));
        }
        finally
        {
            foreach (var session in sessions)
            {
                session.Dispose();
            }
        }
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

    /// <summary>Waits for every generator; the first to fail stops the others and fails the run, naming its host.</summary>
    private static async Task<List<GeneratorRun>> CollectAsync(List<GeneratorSession> sessions, CancellationToken ct)
    {
        using var stopAll = ct.Register(() => sessions.ForEach(s => s.Stop()));
        var pending = sessions.Select(s => s.ResultAsync()).ToList();
        var runs = new GeneratorRun?[sessions.Count];
        var remaining = pending.ToList();
        while (remaining.Count > 0)
        {
            var done = await Task.WhenAny(remaining).ConfigureAwait(false);
            remaining.Remove(done);
            if (done.IsFaulted)
            {
                sessions.ForEach(s => s.Stop());
                await Task.WhenAll(remaining.Select(t => t.ContinueWith(_ => { }, TaskScheduler.Default))).ConfigureAwait(false);
                throw done.Exception!.InnerException!;
            }
            runs[pending.IndexOf(done)] = done.Result;
        }
        return [.. runs.Select(r => r!)];
    }
}
