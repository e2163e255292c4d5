using PerfLab.Results;

namespace PerfLab.Experiments.Analysis;

/// <summary>
/// How the windows of short alternation (<c>window:</c>, each under a second) become a block's cost pair, by a rule
/// fixed before any short window was measured (docs/cost.md, "Short windows"): window k of the baseline and window k of
/// the variant, adjacent in time, form a pair; a pair is dropped when the cores' slowdowns the probe read in its two
/// windows differ by more than <see cref="SpeedMatch"/> (one window ran at the other speed, or straddled a change),
/// since dividing by the slowdown corrects a speed change only in part; the block's two figures are then CPU over
/// requests over the kept pairs' windows, and a block with no pair kept gives none. Windows of a second or more (2 s
/// slots) are compared as before, over all of them.
/// </summary>
public static class CostPairs
{
    /// <summary>The largest ratio of two paired windows' slowdowns that keeps the pair (1.10: 10 %).</summary>
    public const double SpeedMatch = 1.10;

    /// <summary>Windows shorter than this are short alternation's.</summary>
    public const double ShortSeconds = 1.0;

    /// <summary>
    /// The block's (baseline, candidate) figures of a cost metric over the kept pairs; null when the rule does not
    /// apply (another metric, or windows that are not all short), NaN figures when no pair was kept.
    /// </summary>
    public static (double Baseline, double Candidate)? Kept(RunRecord baseline, RunRecord candidate, Metric metric)
    {
        var fullSpeed = metric == Metrics.CpuPerRequestAtFullSpeed;
        if ((!fullSpeed && metric != Metrics.CpuPerRequest) || baseline.Cost is not { } a || candidate.Cost is not { } b
            || !AllShort(a) || !AllShort(b))
        {
            return null;
        }
        var kept = a.Windows.Zip(b.Windows).Where(p => Matched(p.First, p.Second)).ToList();
        if (kept.Count == 0)
        {
            return (double.NaN, double.NaN);
        }
        return (PerRequest(kept.Select(p => p.First), fullSpeed), PerRequest(kept.Select(p => p.Second), fullSpeed));
    }

    /// <summary>
    /// Whether two paired windows ran at a matching speed of the cores: both counted requests, both had their database
    /// part read or neither (a window whose db host did not answer an edge holds the app's CPU alone), and, when the
    /// speed was sampled, their slowdowns within <see cref="SpeedMatch"/> of each other (unsampled windows cannot be
    /// told apart).
    /// </summary>
    public static bool Matched(CpuWindow x, CpuWindow y)
    {
        if (x.Requests <= 0 || y.Requests <= 0 || (x.DatabaseCpuSeconds is null) != (y.DatabaseCpuSeconds is null))
        {
            return false;
        }
        if (x.Slowdown is not > 0 || y.Slowdown is not > 0)
        {
            return x.Slowdown is null && y.Slowdown is null;
        }
        var ratio = x.Slowdown.Value / y.Slowdown.Value;
        return Math.Max(ratio, 1 / ratio) <= SpeedMatch;
    }

    /// <summary>Whether every window of the run is short alternation's.</summary>
    public static bool AllShort(CpuCost cost) => cost.Windows.Count > 0 && cost.Windows.All(w => w.Seconds < ShortSeconds);

    private static double PerRequest(IEnumerable<CpuWindow> windows, bool fullSpeed)
    {
        var list = windows.ToList();
        if (fullSpeed && list.Any(w => w.Slowdown is not > 0))
        {
            return double.NaN;
        }
        var cpu = list.Sum(w => fullSpeed ? w.CpuSeconds / w.Slowdown!.Value : w.CpuSeconds);
        var requests = list.Sum(w => w.Requests);
        return requests > 0 ? cpu * 1000 / requests : double.NaN;
    }
}
