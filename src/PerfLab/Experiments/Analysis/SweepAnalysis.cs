using PerfLab.Experiments.Definitions;
using PerfLab.Results;

namespace PerfLab.Experiments.Analysis;

/// <summary>
/// Gathers a sweep's points (each analysed as any experiment) into each variant's change against the baseline along
/// the condition, and finds the crossover: the first value where the change is decided better by the same verdict
/// rule as every comparison (the 95 % interval excludes zero on the better side and the change clears the noise floor).
/// </summary>
public static class SweepAnalysis
{
    public static IReadOnlyList<SweepResult> Gather(IReadOnlyList<ExperimentDefinition> experiments,
        IReadOnlyList<ExperimentResult> results) =>
        experiments.Where(e => e.Sweep is not null).Select(e => Gather(e, results)).ToList();

    public static SweepResult Gather(ExperimentDefinition experiment, IReadOnlyList<ExperimentResult> results)
    {
        var sweep = experiment.Sweep ?? throw new ArgumentException($"{experiment.Name} is not a sweep", nameof(experiment));
        var points = sweep.Values
            .Select(v => results.FirstOrDefault(r => r.SweepPoint is { } p && p.Sweep == experiment.Name && p.Value == v))
            .ToList();
        var metric = experiment.PrimaryMetric;
        // The variants as they ran (an A/A run has the baseline against itself), else as defined.
        var variants = points.FirstOrDefault(p => p is not null)?.Variants ?? experiment.Variants.Select(v => v.Name).ToList();
        return new SweepResult
        {
            Experiment = experiment.Name,
            Title = experiment.Title,
            Baseline = experiment.Baseline,
            Condition = sweep.Condition,
            Values = sweep.Values,
            Metric = metric,
            Points = points.Select(p => p?.Name).ToList(),
            Variants = variants.Where(v => v != experiment.Baseline).Select(v => Series(v, sweep.Values, points, metric)).ToList(),
            Scalability = sweep.Condition == ConditionKind.Users && metric == Metrics.Rps
                ? UslFit.ForSweep(variants, sweep.Values, points) : null,
            ScalabilityComparisons = sweep.Condition == ConditionKind.Users && metric == Metrics.Rps
                ? UslFit.ComparisonsForSweep(variants, experiment.Baseline, sweep.Values, points) : null,
        };
    }

    /// <summary>A variant's change at each value (null figures where a point has no comparison) and its crossover.</summary>
    public static SweepSeries Series(string variant, IReadOnlyList<double> values, IReadOnlyList<ExperimentResult?> points, Metric metric)
    {
        var changes = values.Select((value, i) =>
        {
            var c = points[i]?.Comparisons.FirstOrDefault(x =>
                x.Variant == variant && x.Scenario == Metric.AllScenarios && x.Metric == metric);
            return c is null
                ? new SweepPointChange(value, null, null, null, Verdict.Inconclusive)
                : new SweepPointChange(value, Finite(c.ChangePercent), Finite(c.LowPercent), Finite(c.HighPercent), c.Verdict);
        }).ToList();
        return new SweepSeries { Variant = variant, Points = changes, Crossover = Crossover(changes) };
    }

    /// <summary>The first value, in ascending order, where the change is decided better; null when none is.</summary>
    public static double? Crossover(IReadOnlyList<SweepPointChange> points) =>
        points.OrderBy(p => p.Value).FirstOrDefault(p => p.Verdict == Verdict.Better)?.Value;

    private static double? Finite(double value) => double.IsFinite(value) ? value : null;
}
