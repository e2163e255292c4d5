using PerfLab.Common;

namespace PerfLab.Load;

/// <summary>
/// When a warm-up may end: the last <see cref="Seconds"/> whole seconds of throughput vary by at most
/// <see cref="MaxCv"/> (coefficient of variation) and do not trend (last against first within <see cref="MaxTrend"/> of
/// their mean). Three seconds is the shortest run of samples whose spread means anything; 5 % is about the
/// second-to-second noise of a steady SUT on this machine (docs/benchmarks/noise.md "The noise taken apart"), so a tighter
/// rule would rarely be met and a looser one would take a climb for a plateau. Throughput alone can plateau while the
/// JIT is still recompiling, so callers add the target's own condition (<see cref="LoadPlan.TargetSettled"/>).
/// </summary>
internal static class SteadyState
{
    public const int Seconds = 3;
    public const double MaxCv = 0.05;
    public const double MaxTrend = 0.05;

    public static bool IsSteady(IReadOnlyList<double> perSecond)
    {
        if (perSecond.Count < Seconds)
        {
            return false;
        }
        var last = perSecond.Skip(perSecond.Count - Seconds).ToList();
        var mean = last.Average();
        if (mean <= 0)
        {
            return false;
        }
        return Descriptive.StdDev(last) / mean <= MaxCv && Math.Abs(last[^1] - last[0]) / mean <= MaxTrend;
    }
}
