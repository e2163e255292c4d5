using System.Globalization;

namespace PerfLab.Experiments.Running.Warmup;

/// <summary>
/// One second of the runtime's compilations, by what they were. A first compile is a method's first code (tier 0, or
/// fully optimized where tiering is off); a promotion recompiles a method the runtime saw run hot (tier 1, the
/// instrumented tiers of dynamic PGO); an OSR compile replaces a running loop's tier-0 code (on-stack replacement).
/// </summary>
public readonly record struct JitSecond(long UnixSecond, int FirstCompiles, int Promotions, int Osr)
{
    public int Total => FirstCompiles + Promotions + Osr;
}

/// <summary>
/// When a runtime that tiers its code is done warming up. Tiered compilation never goes quiet under load: code called
/// once a second (timers, the runtime's own counters) reaches tier 1's call count tens of seconds later, and keeps the
/// JIT at a few methods a second for as long as the process runs (2 to 37 methods/s measured here, for minutes), so a
/// rule asking for "JIT quiet" waits out its cap every time. What matters to a measurement is that the code it measures
/// is final: the hot path is promoted first, in a wave of hundreds of methods a second that dies down within seconds.
/// The rule: for <see cref="QuietSeconds"/> whole seconds in a row, the runtime compiled (first compiles, promotions
/// and OSR together) at most <see cref="MaxSharePerSecond"/> of all it had compiled before (never less than
/// <see cref="FloorPerSecond"/> methods), and its background tier-1 worker has no more queued than one such second's
/// allowance (on a busy machine the worker lags: hundreds of methods queued for 15 s and more, measured). Where tiering
/// is off the same rule reads first compiles alone: new code paths, which a warm-up must also see settle.
/// </summary>
public static class TieringRule
{
    public const int QuietSeconds = 2;

    /// <summary>
    /// 1 % of the compiled code per second: the tail after the promotion wave is code called seldom, whose tiering
    /// costs the measured throughput nothing visible, while the wave itself runs at 5 % to 30 % (docs/warm-up.md).
    /// </summary>
    public const double MaxSharePerSecond = 0.01;

    /// <summary>Methods a second that are quiet whatever was compiled before (the old "JIT quiet" rule's figure).</summary>
    public const int FloorPerSecond = 5;

    /// <summary>The most methods a second that still count as quiet after <paramref name="compiledBefore"/> methods.</summary>
    public static double Allowance(long compiledBefore) => Math.Max(FloorPerSecond, MaxSharePerSecond * compiledBefore);

    /// <summary>The rule as a run's record states it.</summary>
    public static readonly string Description = string.Create(CultureInfo.InvariantCulture,
        $"compiles/s <= max({FloorPerSecond}, {MaxSharePerSecond:P0} of compiled so far) for {QuietSeconds} s, tier-1 queue empty");

    /// <summary>The pulsed warm-up's rule (<see cref="TieredWarmup"/>) as a run's record states it.</summary>
    public static readonly string PulseDescription = string.Create(CultureInfo.InvariantCulture,
        $"load in pulses of {TieredWarmup.Pulse.TotalSeconds:0} s, each followed by a pause until the tier-1 queue is empty; " +
        $"settled once a pulse and its pause compile at most max({FloorPerSecond}, {MaxSharePerSecond:P0} of compiled so far) " +
        $"a second of the pulse");

    /// <summary>
    /// Whether a pulse of load and the pause after it left tiering settled: <paramref name="compiledInPulse"/> methods
    /// compiled over both is within the rule's allowance for each second of the pulse, and the background tier-1 worker
    /// stands idle with no more queued than one second's allowance (as <see cref="IsSettled"/> asks).
    /// </summary>
    public static bool IsPulseSettled(long compiledInPulse, double pulseSeconds, long compiledBefore, int queued) =>
        queued >= 0 && queued <= Allowance(compiledBefore) && compiledInPulse <= Allowance(compiledBefore) * pulseSeconds;

    /// <param name="seconds">The whole seconds of the warm-up so far, oldest first,
    /// with no gap (a second without a compile is there with zeros).</param>
    /// <param name="compiledBefore">Methods compiled before the first of <paramref name="seconds"/>.</param>
    /// <param name="queued">Methods the background tier-1 worker still had queued when it last stopped, or -1 while it runs.</param>
    public static bool IsSettled(IReadOnlyList<JitSecond> seconds, long compiledBefore, int queued)
    {
        if (seconds.Count < QuietSeconds || queued < 0)
        {
            return false;
        }
        var before = compiledBefore;
        for (var i = 0; i < seconds.Count - QuietSeconds; i++)
        {
            before += seconds[i].Total;
        }
        for (var i = seconds.Count - QuietSeconds; i < seconds.Count; i++)
        {
            if (seconds[i].Total > Allowance(before))
            {
                return false;
            }
            before += seconds[i].Total;
        }
        return queued <= Allowance(before);
    }
}
