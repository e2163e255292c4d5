using System.Globalization;
using PerfLab.Common;
using PerfLab.Results;

namespace PerfLab.Experiments.Analysis;

/// <summary>
/// Invocations as a level of the analysis. The blocks of one invocation share what lasts it (the perflab process's JIT,
/// thread pool and GC, the machine's state that hour), so their interval cannot include how that varies; the
/// invocations' own estimates can. Each invocation's change (its paired comparison, as <see cref="VariantStatistics"/>
/// computes it) is one sample: the pooled change is their mean on the log scale, with a Student-t interval over the
/// invocations (n - 1 degrees of freedom), which is the two-stage analysis of a nested design. With few invocations that
/// spread can be small by chance, so the interval is never narrower than the one the invocations' own intervals give
/// their mean (the root of their summed squared half-widths, over n): a random-effects interval cannot be narrower
/// than a fixed-effect one.
/// </summary>
public static class InvocationPooling
{
    public const string Method = "invocations";

    /// <summary>One comparison (a variant, scenario and metric) of each invocation, in invocation order, pooled.</summary>
    public static Comparison Pool(IReadOnlyList<(int Invocation, Comparison Comparison)> each)
    {
        var first = each[0].Comparison;
        var floor = each.Max(e => e.Comparison.NoiseFloorPercent);
        var estimates = each.Select(e => new InvocationEstimate(e.Invocation, e.Comparison.ChangePercent, e.Comparison.LowPercent,
            e.Comparison.HighPercent, e.Comparison.Verdict, e.Comparison.Pairs)).ToList();
        var usable = estimates.Where(Usable).ToList();
        var pooled = first with
        {
            Method = Method,
            NoiseFloorPercent = floor,
            Pairs = each.Sum(e => e.Comparison.Pairs),
        };
        if (usable.Count < 2)
        {
            var change = usable.Count == 1 ? usable[0].ChangePercent : double.NaN;
            return pooled with
            {
                ChangePercent = change, LowPercent = double.NaN, HighPercent = double.NaN, Verdict = Verdict.Inconclusive,
                MinimumDetectableEffectPercent = null,
                ToDecide = "at least 2 invocations with an interval each (--invocations 2 or more, each with 2 or more blocks)",
                Invocations = new PooledInvocations(estimates, double.NaN, double.NaN, "none"),
            };
        }
        var (mean, between, within) = Spread(usable);
        var half = Math.Max(between, within);
        var (pooledChange, low, high, verdict) = Statistics.Verdicted(mean, mean - half, mean + half, first.HigherIsBetter, floor,
            first.EquivalenceMarginPercent);
        return pooled with
        {
            ChangePercent = pooledChange, LowPercent = low, HighPercent = high, Verdict = verdict,
            MinimumDetectableEffectPercent = Math.Max((high - low) / 2, floor),
            ToDecide = verdict == Verdict.Inconclusive
                ? ToDecide(pooledChange, low, high, usable.Count, floor, first.EquivalenceMarginPercent)
                : null,
            Invocations = new PooledInvocations(estimates, Percent(between), Percent(within), between >= within ? "between" : "within"),
        };
    }

    /// <summary>
    /// On the log scale: the mean of the invocations' changes, the t half-width of their spread, and the half-width of
    /// the mean of their own intervals.
    /// </summary>
    public static (double Mean, double Between, double Within) Spread(IReadOnlyList<InvocationEstimate> estimates)
    {
        var logs = estimates.Select(e => Math.Log(1 + e.ChangePercent / 100)).ToList();
        var halves = estimates.Select(e => (Math.Log(1 + e.HighPercent / 100) - Math.Log(1 + e.LowPercent / 100)) / 2).ToList();
        var n = logs.Count;
        var t = Statistics.TwoSidedT(n - 1);
        var between = t * Descriptive.StdDev(logs) / Math.Sqrt(n);
        var within = Math.Sqrt(halves.Sum(h => h * h)) / n;
        return (logs.Average(), between, within);
    }

    /// <summary>Every comparison of every experiment, pooled by (variant, scenario, metric) over the invocations that have it.</summary>
    public static IReadOnlyList<Comparison> PoolAll(IReadOnlyList<(int Invocation, ExperimentResult Experiment)> each) =>
        each.SelectMany(e => e.Experiment.Comparisons.Select(c => (e.Invocation, Comparison: c)))
            .GroupBy(e => (e.Comparison.Variant, e.Comparison.Scenario, e.Comparison.Metric))
            .Select(g => Pool([.. g]))
            .ToList();

    private static bool Usable(InvocationEstimate e) =>
        double.IsFinite(e.ChangePercent) && double.IsFinite(e.LowPercent) && double.IsFinite(e.HighPercent)
        && e.LowPercent > -100 && e.LowPercent <= e.HighPercent;

    private static double Percent(double logHalfWidth) => (Math.Exp(logHalfWidth) - 1) * 100;

    private static string ToDecide(double change, double low, double high, int invocations, double floor, double? margin) =>
        Statistics.ToDecide(change, low, high, invocations, floor, margin) is { } need
            ? string.Create(CultureInfo.InvariantCulture,
                $"about {need.Samples} invocations in all ({need.Samples - invocations} more): --invocations {need.Samples}")
            : string.Create(CultureInfo.InvariantCulture,
                $"the change sits on the margin (±{floor:0.#} %) or is too small against the spread: more invocations "
                    + $"narrow the interval but may not decide");
}
