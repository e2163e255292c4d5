using PerfLab.Experiments.Definitions;
using PerfLab.Load;

namespace PerfLab.Experiments.Running.Warmup;

/// <summary>
/// The warm-up of a runtime that tiers its code, in pulses: <see cref="Pulse"/> of load, then none until the runtime's
/// background tier-1 worker has emptied its queue (at most <see cref="PauseCap"/>), again and again until a pulse and its
/// pause compile no more than the tiering rule allows (<see cref="TieringRule.IsPulseSettled"/>) or the warm-up's cap.
/// Why pulses: the worker is one thread among the app's pool threads, and a load that keeps the cores busy starves it.
/// Measured on framework (EF Core, about 11,000 methods compiled, 2 cores): under load it promoted 100-200 methods a
/// second and never caught up in 25 s; the same SUT with its load stopped promoted 2,800 a second. A continuous warm-up
/// thus ended at its cap with hundreds queued, and the measured slots ran partly on tier-0 code, their cost per
/// request 2 to 3 times that of the slots after them. Tiered PGO needs calls between its steps (tier 0, instrumented,
/// tier 1), so the load comes back after each pause until nothing much is left to promote.
/// </summary>
public static class TieredWarmup
{
    public static readonly TimeSpan Pulse = TimeSpan.FromSeconds(2);

    public static readonly TimeSpan PauseCap = TimeSpan.FromSeconds(5);

    /// <summary>EventPipe delivers the worker's start a flush (about 100 ms) after it happens; no pause ends before this.</summary>
    private static readonly TimeSpan ShortestPause = TimeSpan.FromMilliseconds(500);

    /// <summary>
    /// Whether <paramref name="variant"/> (its profile applied) warms up in pulses: its warm-up waits until steady and its
    /// runtime tiers (tiered compilation is not turned off by <c>DOTNET_TieredCompilation=0</c>).
    /// </summary>
    public static bool Applies(ProfileDefinition profile, VariantDefinition variant) =>
        profile.WarmupUntilSteady
        && !(profile.Apply(variant).Env.TryGetValue("DOTNET_TieredCompilation", out var tiered) && tiered.Trim() == "0");

    /// <summary>
    /// Warms up with <paramref name="send"/> in pulses of <paramref name="plan"/> until tiering settles or
    /// <paramref name="cap"/> has passed (a pulse and a pause end by then, beyond the pause's shortest half second); the last
    /// pulse's result, with the whole warm-up's length and whether it settled.
    /// </summary>
    public static async Task<LoadResult> RunAsync(Func<LoadPlan, Task<LoadResult>> send, LoadPlan plan, TieringWatch watch,
        TimeSpan cap, CancellationToken ct)
    {
        var started = DateTimeOffset.UtcNow;
        var deadline = started + cap;
        var pulse = plan with { Warmup = TimeSpan.Zero, Duration = Pulse, WarmupUntilSteady = false, TargetSettled = null, Probe = null };
        LoadResult last;
        bool settled;
        do
        {
            var before = watch.Progress().Compiled;
            last = await send(pulse);
            await PauseAsync(watch, deadline, ct);
            settled = watch.PulseSettled(before, Pulse.TotalSeconds);
        }
        while (!settled && DateTimeOffset.UtcNow + Pulse < deadline && !ct.IsCancellationRequested);
        return last with { WarmupSeconds = (DateTimeOffset.UtcNow - started).TotalSeconds, Settled = settled };
    }

    /// <summary>No load until the tier-1 worker stands idle, at most <see cref="PauseCap"/>, never past the warm-up's cap.</summary>
    private static async Task PauseAsync(TieringWatch watch, DateTimeOffset deadline, CancellationToken ct)
    {
        var until = DateTimeOffset.UtcNow + PauseCap < deadline ? DateTimeOffset.UtcNow + PauseCap : deadline;
        await Task.Delay(ShortestPause, ct);
        while (!watch.Progress().Drained && DateTimeOffset.UtcNow < until)
        {
            await Task.Delay(100, ct);
        }
    }
}
