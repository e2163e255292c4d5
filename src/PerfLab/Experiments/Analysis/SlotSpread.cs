using PerfLab.Results;

namespace PerfLab.Experiments.Analysis;

/// <summary>
/// How far a paired comparison's blocks must scatter, read from the slots inside them: the lower bound on its standard
/// error. A block's figure is the mean of its S slot pairs (window k of the baseline against window k of the variant),
/// so its log ratio varies at least as much as those pairs vary about their block's own mean, over √S. With the three to
/// five blocks a budget usually stops at, the blocks' own spread is read on two to four degrees of freedom and can come
/// out far too small by chance, and then the interval is too narrow: the runner stops early on it and a verdict is called
/// on it. The pairs inside the blocks are read on B·(S − 1) degrees of freedom, so their bound is the steadier one.
/// On the A/A campaign beside the CPU hog (2026-11-29, docs/benchmarks/floor.md) the blocks' spread was, in the median,
/// 0.97 times what the slots predicted (30 invocations), and the campaign's two intervals that missed the truth, an A/A
/// called better and a 7.4 % slowdown read as +3.6 %, were among the three it undercut most (0.53 and 0.21 times).
/// </summary>
/// <param name="LogSd">The pairs' log ratios about their block's mean: their standard deviation.</param>
/// <param name="DegreesOfFreedom">Σ (pairs in the block − 1) over the blocks.</param>
/// <param name="StandardError">The standard error the pairs give the mean of the blocks' log ratios: LogSd · √(Σ 1/Sᵦ) / B.</param>
public sealed record SlotSpread(double LogSd, int DegreesOfFreedom, double StandardError)
{
    /// <summary>The 95 % half-width the slots alone give, on the log scale (t at their degrees of freedom).</summary>
    public double HalfWidth => Statistics.TwoSidedT(DegreesOfFreedom) * StandardError;

    /// <summary>The same in percent of the baseline (the upper side: e^h − 1).</summary>
    public double HalfWidthPercent => (Math.Exp(HalfWidth) - 1) * 100;

    /// <summary>
    /// The spread of <paramref name="variant"/>'s slot pairs against <paramref name="against"/>'s on a metric the windows
    /// carry (<see cref="Metric.OfWindow"/>); null for another metric, or with fewer than two degrees of freedom. Short
    /// windows are paired as the comparison pairs them (<see cref="CostPairs"/>: only those at a matching core speed).
    /// </summary>
    public static SlotSpread? Of(IReadOnlyList<RunRecord> runs, string against, string variant, Metric metric)
    {
        if (metric.OfWindow is not { } ofWindow)
        {
            return null;
        }
        var blocks = new List<IReadOnlyList<double>>();
        foreach (var block in runs.Where(r => r.Status == RunStatus.Ok).GroupBy(r => r.Repetition))
        {
            if (block.FirstOrDefault(r => r.Variant == against)?.Cost is not { } a
                || block.FirstOrDefault(r => r.Variant == variant)?.Cost is not { } b)
            {
                continue;
            }
            var shortWindows = CostPairs.AllShort(a) && CostPairs.AllShort(b);
            var logs = a.Windows.Zip(b.Windows)
                .Where(p => !shortWindows || CostPairs.Matched(p.First, p.Second))
                .Select(p => (Baseline: ofWindow(a, p.First), Candidate: ofWindow(b, p.Second)))
                .Where(p => p.Baseline is > 0 && p.Candidate is > 0)
                .Select(p => Math.Log(p.Candidate!.Value / p.Baseline!.Value))
                .Where(double.IsFinite)
                .ToList();
            if (logs.Count > 0)
            {
                blocks.Add(logs);
            }
        }
        return FromBlocks(blocks);
    }

    /// <summary>The spread of each block's pair log ratios about their block's mean, pooled; null below two degrees of freedom.</summary>
    public static SlotSpread? FromBlocks(IReadOnlyList<IReadOnlyList<double>> blocks)
    {
        var degrees = blocks.Sum(b => b.Count - 1);
        if (blocks.Count < 2 || degrees < 2)
        {
            return null;
        }
        var squares = blocks.Sum(b => b.Average() is var mean ? b.Sum(x => (x - mean) * (x - mean)) : 0);
        var sd = Math.Sqrt(squares / degrees);
        var standardError = sd * Math.Sqrt(blocks.Sum(b => 1.0 / b.Count)) / blocks.Count;
        return new SlotSpread(sd, degrees, standardError);
    }
}
