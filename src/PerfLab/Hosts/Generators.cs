using PerfLab.Load;

namespace PerfLab.Hosts;

/// <summary>One load generator, checked and holding perflab: its host, the command that starts perflab there, its clock.</summary>
internal sealed record Generator(HostRef Host, string Perflab, ClockOffset Clock);

/// <summary>
/// The hosts file's generators, checked and deployed once, sending one load after another (<c>perflab load --hosts</c>
/// sends one; <c>perflab run</c> one per run). Each load: every generator started with the whole plan and its share,
/// all on one barrier, what each sent put on this machine's clock (<see cref="ControllerClock"/>) and their interval
/// logs merged (<see cref="LoadMerge"/>). A generator that fails fails that load
/// with its host named; the others are stopped and what they measured until then is kept, marked incomplete.
/// </summary>
internal sealed class Generators(SshClient ssh, IReadOnlyList<Generator> generators)
{
    private static readonly TimeSpan BarrierLead = TimeSpan.FromMilliseconds(500);
    private static readonly TimeSpan ReadyTimeout = TimeSpan.FromSeconds(60);

    public IReadOnlyList<Generator> All => generators;

    /// <summary>
    /// Sends <paramref name="plan"/> from every generator. The plan's probe is read at the measured window's edges as
    /// the generators report them: the last one to open it and the last one to close it (the latest call counts).
    /// </summary>
    public async Task<RemoteLoadResult> RunAsync(LoadPlan plan, IProgress<string>? say, CancellationToken ct)
    {
        var line = PlanWire.Write(plan);
        var probe = plan.Probe is { } p ? new SerialProbe(p) : null;
        var sessions = new List<GeneratorSession>();
        try
        {
            for (var i = 0; i < generators.Count; i++)
            {
                var (host, perflab, _) = generators[i];
                sessions.Add(GeneratorSession.Start(ssh, host, perflab, new LoadShare(i, generators.Count), line, probe));
            }
            foreach (var session in sessions)
            {
                await session.WaitReadyAsync(ReadyTimeout, ct).ConfigureAwait(false);
            }
            var start = DateTimeOffset.UtcNow + BarrierLead;
            for (var i = 0; i < sessions.Count; i++)
            {
                sessions[i].Go(start, generators[i].Clock.OffsetMs);
            }
            say?.Report($"{sessions.Count} generator(s) started together");
            return await CollectAsync(sessions, [.. generators.Select(g => g.Clock)], ct).ConfigureAwait(false);
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
    /// Waits for every generator. The first to fail stops the others; what they measured is merged and marked incomplete
    /// with the failed host's message (thrown when no generator is left to keep).
    /// </summary>
    private static async Task<RemoteLoadResult> CollectAsync(List<GeneratorSession> sessions, ClockOffset[] clocks, CancellationToken ct)
    {
        using var stopAll = ct.Register(() => sessions.ForEach(s => s.Stop()));
        var pending = sessions.Select(s => s.ResultAsync()).ToList();
        void StopAllOnFailure(Task t)
        {
            if (t.IsFaulted)
            {
                sessions.ForEach(s => s.Stop());
            }
        }
        await Task.WhenAll(pending.Select(t => t.ContinueWith(StopAllOnFailure, TaskScheduler.Default))).ConfigureAwait(false);
        var failure = pending.Where(t => t.IsFaulted).Select(t => t.Exception!.InnerException!).FirstOrDefault();
        var kept = pending.Select((t, i) => (t, i)).Where(p => p.t.IsCompletedSuccessfully)
            .Select(p => ControllerClock.Align(p.t.Result, clocks[p.i])).ToList();
        if (failure is null)
        {
            return LoadMerge.Merge(kept);
        }
        if (kept.Count == 0)
        {
            throw failure;
        }
        var merged = LoadMerge.Merge(kept);
        return merged with
        {
            Merged = merged.Merged with
            {
                Incomplete = true,
                IncompleteReason = $"{failure.Message} (kept: what {string.Join(", ", kept.Select(r => r.Host.Destination))} "
                    + "measured until then)",
            },
            Failure = failure,
        };
    }

    /// <summary>One probe read by several sessions' reading threads: one edge at a time.</summary>
    private sealed class SerialProbe(IWindowProbe inner) : IWindowProbe
    {
        private readonly Lock _gate = new();

        public void WindowStarted()
        {
            lock (_gate)
            {
                inner.WindowStarted();
            }
        }

        public void WindowEnded()
        {
            lock (_gate)
            {
                inner.WindowEnded();
            }
        }
    }
}
