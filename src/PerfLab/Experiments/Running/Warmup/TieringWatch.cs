using PerfLab.Counters;
using PerfLab.Results;

namespace PerfLab.Experiments.Running.Warmup;

/// <summary>
/// A run's watch on its SUT's JIT: attached before the load starts, asked once a second during a steady warm-up
/// whether tiering has settled (<see cref="TieringRule"/>), and summarized into the run's record at the end.
/// </summary>
public sealed class TieringWatch : IAsyncDisposable
{
    private readonly JitActivity _activity;
    private readonly IAsyncDisposable? _session;

    private TieringWatch(JitActivity activity, IAsyncDisposable? session)
    {
        _activity = activity;
        _session = session;
    }

    /// <summary>The watch on the app's JIT events: read here by pid, or by its role on its host and streamed back.</summary>
    public static async Task<TieringWatch> StartAsync(Apps.IRunningApp sut, CancellationToken ct)
    {
        var activity = new JitActivity(DateTimeOffset.UtcNow.ToUnixTimeMilliseconds());
        return new TieringWatch(activity, await sut.WatchJitAsync(activity.OnCompiled, activity.OnBackground, ct));
    }

    /// <summary>The watch on a process of this machine.</summary>
    public static async Task<TieringWatch> StartAsync(int pid, CancellationToken ct)
    {
        var activity = new JitActivity(DateTimeOffset.UtcNow.ToUnixTimeMilliseconds());
        return new TieringWatch(activity, await JitEventSession.StartAsync(pid, activity.OnCompiled, activity.OnBackground, ct));
    }

    /// <summary>This SUT's warm-up starts now (in a block, the SUTs warm up in turn while the watches run throughout).</summary>
    public void WarmingUp() => _activity.WarmingUp(DateTimeOffset.UtcNow.ToUnixTimeMilliseconds());

    /// <summary>
    /// Whether tiering has settled. Without JIT events (the process refused the session) it stays false, so such a
    /// warm-up runs to its cap and the run says it never settled, rather than measuring code that may still be tiering.
    /// </summary>
    public bool Settled => _session is not null && _activity.Settled();

    /// <summary>Whether the app's JIT events are read at all (the process may refuse the session).</summary>
    public bool Watching => _session is not null;

    /// <summary>Methods compiled so far, and whether the background tier-1 worker stands idle (its queue emptied).</summary>
    public (long Compiled, bool Drained) Progress() => _activity.Progress();

    /// <summary>Whether a warm-up pulse that began at <paramref name="compiledBefore"/> compiled methods left tiering settled.</summary>
    public bool PulseSettled(long compiledBefore, double pulseSeconds) => _session is not null &&
        _activity.PulseSettled(compiledBefore, pulseSeconds, DateTimeOffset.UtcNow.ToUnixTimeMilliseconds());

    /// <summary>The run's tiering record; null when no JIT events were read.</summary>
    public TieringRecord? Summarize(DateTimeOffset measuredFrom, IReadOnlyList<(DateTimeOffset From, DateTimeOffset To)> windows) =>
        _session is null ? null : _activity.Summarize(measuredFrom, windows);

    public async ValueTask DisposeAsync()
    {
        if (_session is not null)
        {
            await _session.DisposeAsync();
        }
    }
}
