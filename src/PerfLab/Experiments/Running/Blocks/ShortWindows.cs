using PerfLab.Apps;
using PerfLab.Common;
using PerfLab.Hosts;
using PerfLab.Load;
using PerfLab.Results;
using PerfLab.Experiments.Running.Measuring;

namespace PerfLab.Experiments.Running.Blocks;

/// <summary>
/// Short alternation of a block's warm SUTs (<c>window:</c> in a profile): each participant's load runs through the
/// whole stretch on its own held users and connections, and the SUTs take turns in windows a fraction of a second long
/// (A B C, C B A, ...), every other SUT stopped (SIGSTOP), so only the one in its window is served. A window then costs
/// two signals and the cost meter's reads at its edges, where a slot of its own costs a load run (connections opened,
/// users started, a 0.5 s re-warm, a closed window held for a cycle, all torn down: docs/benchmarks/methods.md). Short
/// windows sit inside one speed of the cores more often than 2 s slots do, and the analysis pairs them by the speed
/// the probe saw at their edges (<see cref="Analysis.CostPairs"/>). A stopped SUT still ages: a request waiting on a
/// timer or the database keeps waiting across the others' windows, so this is for CPU-bound comparisons, and its
/// latency and counters cover the whole stretch, the other SUTs' windows included.
/// </summary>
internal sealed class ShortWindows(TimeSpan window, int rounds, IProgress<string> progress)
{
    /// <summary>Each participant's load over the stretch, its throughput over its own windows, and those windows.</summary>
    public async Task<(LoadResult Stretch, IReadOnlyList<CpuWindow?> Windows)[]> MeasureAsync(
        IReadOnlyList<BlockParticipant> participants, IReadOnlyList<LoadPlan> plans, IReadOnlyList<CostMeter> meters,
        CancellationToken ct)
    {
        if (participants.Any(p => p.Sut.Pid == IRunningApp.Elsewhere || p.Measurement.Load != LoadSource.Here))
        {
            throw new PerfLabException("short windows (window: in the profile) need the app and its load on this machine: "
                + "use slots: instead with --hosts.", ExitCode.Usage);
        }
        var taps = plans.Select(p => new Tap(p.Scenarios.Count)).ToArray();
        var windows = participants.Select(_ => new List<CpuWindow?>()).ToArray();
        // The engine's own stop is only a bound (a window's edges take their time on a loaded machine): the taps end the
        // runs once the last window is measured.
        var bound = (window * rounds * participants.Count * 20) + TimeSpan.FromSeconds(60);
        var runs = participants.Select((p, i) => p.Measurement.Load.SendAsync(plans[i] with
        {
            Warmup = AlternatingBlock.SlotWarmup,
            WarmupUntilSteady = false,
            Duration = bound,
            WindowHoldsACycle = false,
            Probe = taps[i],
        }, ct)).ToArray();
        try
        {
            // Every SUT runs while the loads open their connections and reach full concurrency (unmeasured).
            var attached = Task.WhenAll(taps.Select(t => t.Attached));
            if (await Task.WhenAny(attached, Task.WhenAny(runs)) != attached)
            {
                throw new PerfLabException("a load ended before its short windows began: " + Ended(runs));
            }
            var stretch = System.Diagnostics.Stopwatch.StartNew();
            await TakeTurnsAsync(participants, meters, taps, windows, runs, ct);
            progress.Report(string.Create(System.Globalization.CultureInfo.InvariantCulture,
                $"windows taken in {stretch.Elapsed.TotalSeconds:0.0} s: ")
                + string.Join("; ", participants.Select((p, i) => string.Create(System.Globalization.CultureInfo.InvariantCulture,
                    $"{p.Variant.Name} {windows[i].Count(w => w is not null)} windows, {Measured(windows[i]):0.0} s measured"))));
        }
        finally
        {
            foreach (var tap in taps)
            {
                tap.Stop();
            }
        }
        var results = await Task.WhenAll(runs);
        return [.. results.Select((r, i) => (OwnTime(r.Merged, windows[i]), (IReadOnlyList<CpuWindow?>)windows[i]))];
    }

    private async Task TakeTurnsAsync(IReadOnlyList<BlockParticipant> participants, IReadOnlyList<CostMeter> meters, Tap[] taps,
        List<CpuWindow?>[] windows, Task<RemoteLoadResult>[] runs, CancellationToken ct)
    {
        // Disposed before the runs are stopped: a stopped SUT's users would wait on it for their timeout.
        using var idle = new IdleSuts(participants.Select(p => p.Sut).ToList(), enabled: true);
        for (var round = 0; round < rounds && !ct.IsCancellationRequested; round++)
        {
            foreach (var i in AlternatingBlock.Turns(participants.Count, round))
            {
                if (ct.IsCancellationRequested || runs[i].IsCompleted || participants[i].Sut.HasExited)
                {
                    continue;
                }
                idle.Serve(i);
                meters[i].WindowStarted();
                var opened = taps[i].Responses();
                await Task.Delay(window, CancellationToken.None);
                meters[i].WindowEnded();
                var closed = taps[i].Responses();
                // Requests chained like the CPU (CostMeter.TakeChained): from the previous window's end, so none is lost.
                windows[i].Add(meters[i].TakeChained(closed - (taps[i].Counted ?? opened)));
                taps[i].Counted = closed;
            }
        }
    }

    private static double Measured(IEnumerable<CpuWindow?> windows) => windows.OfType<CpuWindow>().Sum(w => w.Seconds);

    private static string Ended(Task<RemoteLoadResult>[] runs) =>
        string.Join("; ", runs.Where(r => r.IsCompleted).Select(r => r.IsCompletedSuccessfully
            ? r.Result.Merged.IncompleteReason ?? "its window closed"
            : r.Exception?.GetBaseException().Message ?? "cancelled"));

    /// <summary>
    /// The stretch's load with each scenario's throughput over the participant's own windows (its share of the requests
    /// the windows counted, over their seconds), not over the stretch, most of which the other SUTs' windows took.
    /// </summary>
    public static LoadResult OwnTime(LoadResult stretch, IReadOnlyList<CpuWindow?> windows)
    {
        var measured = windows.OfType<CpuWindow>().ToList();
        var seconds = measured.Sum(w => w.Seconds);
        var all = stretch.Scenarios.Sum(s => s.Requests);
        if (seconds <= 0 || all == 0)
        {
            return stretch;
        }
        double counted = measured.Sum(w => w.Requests);
        return stretch with
        {
            Scenarios = [.. stretch.Scenarios.Select(s => s with { RequestsPerSecond = counted * s.Requests / all / seconds })],
        };
    }

    /// <summary>The window probe of one participant's load: its scenarios' response counts, and their stops.</summary>
    private sealed class Tap(int scenarios) : IResponseTap
    {
        private readonly List<(Func<long> Responses, Action Stop)> _scenarios = [];
        private readonly TaskCompletionSource _attached = new(TaskCreationOptions.RunContinuationsAsynchronously);
        private bool _stopped;

        public Task Attached => _attached.Task;

        /// <summary>The responses counted up to the end of the participant's last window; null before its first.</summary>
        public long? Counted { get; set; }

        public void Attach(Func<long> responses, Action stop)
        {
            lock (_scenarios)
            {
                _scenarios.Add((responses, stop));
                if (_stopped)
                {
                    Stop(stop);
                }
                if (_scenarios.Count == scenarios)
                {
                    _attached.TrySetResult();
                }
            }
        }

        public long Responses()
        {
            lock (_scenarios)
            {
                return _scenarios.Sum(s => s.Responses());
            }
        }

        public void Stop()
        {
            lock (_scenarios)
            {
                _stopped = true;
                foreach (var s in _scenarios)
                {
                    Stop(s.Stop);
                }
            }
        }

        private static void Stop(Action stop)
        {
            try
            {
                stop();
            }
            catch (ObjectDisposedException)
            {
                // That scenario's run had already ended (its bound, or its target gone): nothing left to stop.
            }
        }

        // The engine's own window edges: the windows are cut by the block, not by the engine.
        public void WindowStarted()
        {
        }

        public void WindowEnded()
        {
        }
    }
}
