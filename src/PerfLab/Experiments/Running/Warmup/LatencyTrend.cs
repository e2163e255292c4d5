using PerfLab.Load;

namespace PerfLab.Experiments.Running.Warmup;

/// <summary>
/// Whether latency climbed within a step: above its capacity a server's queue grows for as long as the rate lasts, so
/// the median latency rises second after second even while the window's percentiles still look acceptable. The rise
/// is the least-squares slope of the per-second medians times the window's span; a step trends upward when it rose by
/// more than a quarter of the SLO bound and by more than half its own lowest second (noise of a few ms on a fast
/// endpoint is not a queue).
/// </summary>
public static class LatencyTrend
{
    /// <summary>Seconds with fewer completions say little about their median.</summary>
    public const int MinRequestsPerSecond = 5;

    public const double ShareOfLimit = 0.25;
    public const double ShareOfBase = 0.5;

    /// <summary>The rise of the per-second median across the measured seconds, in ms (0 with fewer than two usable seconds).</summary>
    public static double RiseMs(IReadOnlyList<LoadSecond> timeline)
    {
        var points = Usable(timeline);
        if (points.Count < 2)
        {
            return 0;
        }
        var meanX = (points.Count - 1) / 2.0;
        var meanY = points.Average(p => p.P50Ms);
        double sxy = 0, sxx = 0;
        for (var i = 0; i < points.Count; i++)
        {
            sxy += (i - meanX) * (points[i].P50Ms - meanY);
            sxx += (i - meanX) * (i - meanX);
        }
        return sxy / sxx * (points.Count - 1);
    }

    public static bool IsUpward(IReadOnlyList<LoadSecond> timeline, double limitMs)
    {
        var points = Usable(timeline);
        if (points.Count < 2)
        {
            return false;
        }
        var rise = RiseMs(timeline);
        return rise > ShareOfLimit * limitMs && rise > ShareOfBase * points.Min(p => p.P50Ms);
    }

    private static List<LoadSecond> Usable(IReadOnlyList<LoadSecond> timeline) =>
        [.. timeline.Where(s => !s.Warmup && s.Requests >= MinRequestsPerSecond && double.IsFinite(s.P50Ms))];
}
