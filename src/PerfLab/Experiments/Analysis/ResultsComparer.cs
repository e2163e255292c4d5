using PerfLab.Common;
using PerfLab.Results;

namespace PerfLab.Experiments.Analysis;

/// <summary>
/// <c>perflab compare-results A B</c>'s analysis: B's figures against A's, each change with its interval and verdict
/// (<see cref="Statistics.CompareEstimates"/>), and the gates read on them. The writers only render what it returns.
/// </summary>
public static class ResultsComparer
{
    /// <summary>B's figures against A's: every experiment, variant and scenario both have, each with its verdict.</summary>
    public static ResultsComparison Compare(RunResults a, RunResults b, string labelA = "A", string labelB = "B")
    {
        var figures = new List<ComparedFigure>();
        var onlyA = new List<string>();
        var onlyB = new List<string>();
        var withoutData = new List<string>();

        foreach (var ea in a.Experiments)
        {
            var eb = b.Experiments.FirstOrDefault(e => e.Name == ea.Name);
            if (eb is null)
            {
                onlyA.Add($"experiment {ea.Name}");
                continue;
            }
            onlyA.AddRange(ea.Variants.Except(eb.Variants).Select(v => $"{ea.Name} / variant {v}"));
            onlyB.AddRange(eb.Variants.Except(ea.Variants).Select(v => $"{ea.Name} / variant {v}"));
            onlyA.AddRange(ea.Scenarios.Except(eb.Scenarios).Select(s => $"{ea.Name} / scenario {s}"));
            onlyB.AddRange(eb.Scenarios.Except(ea.Scenarios).Select(s => $"{ea.Name} / scenario {s}"));

            var scenarios = ea.Scenarios.Intersect(eb.Scenarios).ToList();
            foreach (var variant in ea.Variants.Intersect(eb.Variants))
            {
                var sa = Summaries.Of(ea, variant);
                var sb = Summaries.Of(eb, variant);
                if (sa is not { SuccessfulRuns: > 0 })
                {
                    withoutData.Add($"{ea.Name} / {variant}: no successful run in {labelA}");
                }
                if (sb is not { SuccessfulRuns: > 0 })
                {
                    withoutData.Add($"{ea.Name} / {variant}: no successful run in {labelB}");
                }
                figures.AddRange(scenarios.SelectMany(scenario => Metrics.Compared.Select(m => Figure(ea, eb, variant, scenario, m,
                    Summaries.Estimate(sa, scenario, m), Summaries.Estimate(sb, scenario, m)))));
                // With a single scenario its RPS is the experiment's: an "all" row would only repeat it.
                var single = ea.Scenarios.Count == 1 && eb.Scenarios.Count == 1 && scenarios.Count == 1;
                if (!single && (sa?.AllRps is not null || sb?.AllRps is not null))
                {
                    figures.Add(Figure(ea, eb, variant, Metric.AllScenarios, Metrics.Rps, sa?.AllRps, sb?.AllRps));
                }
                if (sa?.BatchMeanMs is not null || sb?.BatchMeanMs is not null)
                {
                    figures.Add(Figure(ea, eb, variant, Metric.AllScenarios, Metrics.BatchMeanMs, sa?.BatchMeanMs, sb?.BatchMeanMs));
                }
                if (CostOf(ea, variant) is var costA && CostOf(eb, variant) is var costB && (costA is not null || costB is not null))
                {
                    figures.Add(Figure(ea, eb, variant, Metric.AllScenarios, Metrics.CpuPerRequest, costA, costB));
                }
            }
        }
        onlyB.AddRange(b.Experiments.Where(e => a.Experiments.All(x => x.Name != e.Name)).Select(e => $"experiment {e.Name}"));
        return new ResultsComparison(labelA, labelB, a, b, figures, onlyA, onlyB, withoutData) { Errors = ErrorsOf(a, b) };
    }

    /// <summary>Errors of every experiment, variant and scenario both folders have.</summary>
    private static List<ComparedErrors> ErrorsOf(RunResults a, RunResults b) =>
    [
        .. from ea in a.Experiments
           join eb in b.Experiments on ea.Name equals eb.Name
           from variant in ea.Variants.Intersect(eb.Variants)
           from scenario in ea.Scenarios.Intersect(eb.Scenarios)
           select ErrorsOf(ea, eb, variant, scenario),
    ];

    /// <summary>
    /// This comparison with <paramref name="thresholds"/> checked: latency, RPS and errors on B's own runs, "change" and
    /// "no-worse" on each figure of B against A of the experiment's deciding metric (or the one named), on its interval.
    /// </summary>
    public static ResultsComparison WithGates(this ResultsComparison comparison, IReadOnlyList<Threshold> thresholds)
    {
        var checks = new List<ThresholdCheck>();
        foreach (var t in thresholds)
        {
            if (t.Scenario is { } scenario && comparison.B.Experiments.All(e => !e.Scenarios.Contains(scenario)))
            {
                throw new PerfLabException($"threshold '{t.Text}': no experiment in {comparison.LabelB} has a scenario '{scenario}'.",
                    ExitCode.Usage);
            }
            switch (t.Metric)
            {
                case Threshold.NoWorse or Threshold.Change:
                    checks.AddRange(Changes(comparison, t));
                    break;
                default:
                    checks.AddRange(comparison.B.Experiments.SelectMany(e => ThresholdGate.Absolute(t, e)));
                    break;
            }
        }
        return comparison with { Thresholds = checks };
    }

    /// <summary>
    /// "change" and "no-worse" on every experiment both folders have: the figures of its deciding metric (B's
    /// <c>decide:</c>, when both sides measured it; else batch time or RPS), or of the metric the threshold names, better
    /// positive, read on their intervals (<see cref="ChangeGate.Check"/>).
    /// </summary>
    private static IEnumerable<ThresholdCheck> Changes(ResultsComparison comparison, Threshold t)
    {
        var (labelA, labelB) = (comparison.LabelA, comparison.LabelB);
        foreach (var experiment in comparison.Figures.Select(f => f.Experiment).Distinct())
        {
            var figures = comparison.Figures.Where(f => f.Experiment == experiment).ToList();
            var eb = comparison.B.Experiments.First(e => e.Name == experiment);
            var compared = figures.Where(f => double.IsFinite(f.ChangePercent)).Select(f => f.Metric).ToHashSet();
            var metric = ChangeGate.MetricKey(t, Deciding.Key(compared, eb.DecidedBy), oneOfSeveral: t.Scenario is not null);
            var read = figures.Where(f => f.Metric == metric && t.Covers(f.Scenario)).ToList();
            if (read.Count == 0 && (t.Scenario is null || eb.Scenarios.Contains(t.Scenario)))
            {
                yield return ChangeGate.Missing(t, $"{experiment}: {labelB} vs {labelA}", metric);
            }
            foreach (var f in read)
            {
                yield return ChangeGate.Check(t, $"{f.Experiment} / {f.Variant} / {f.Scenario}: {labelB} vs {labelA}", Gated(f));
            }
        }
    }

    /// <summary>A figure as a gate reads it: its interval from the runs of the side with fewer.</summary>
    private static GatedChange Gated(ComparedFigure f) => new(f.Metric, f.ChangePercent, f.LowPercent, f.HighPercent,
        f.NoiseFloorPercent, Math.Min(f.A?.Samples ?? 0, f.B?.Samples ?? 0),
        GatedChange.ReadsOf(f.Experiment, f.Variant, f.Scenario, f.Metric));

    /// <summary>A variant's CPU per request over its successful runs; null when none measured it.</summary>
    private static Estimate? CostOf(ExperimentResult experiment, string variant)
    {
        var costs = experiment.Runs.Where(r => r.Variant == variant && r.Status == RunStatus.Ok)
            .Select(r => Metrics.CpuPerRequest.Read(r, Metric.AllScenarios)).Where(double.IsFinite).ToList();
        return costs.Count == 0 ? null : Statistics.Estimate(costs);
    }

    private static ComparedErrors ErrorsOf(ExperimentResult ea, ExperimentResult eb, string variant, string scenario)
    {
        (long Errors, long Requests) Sum(ExperimentResult e)
        {
            var stats = e.Runs.Where(r => r.Variant == variant && r.Status == RunStatus.Ok)
                .SelectMany(r => r.Scenarios.Where(s => s.Scenario == scenario)).ToList();
            return (stats.Sum(s => s.Errors), stats.Sum(s => s.Requests));
        }
        var (errorsA, requestsA) = Sum(ea);
        var (errorsB, requestsB) = Sum(eb);
        return new ComparedErrors(ea.Name, variant, scenario, errorsA, requestsA, errorsB, requestsB);
    }

    private static ComparedFigure Figure(
        ExperimentResult ea, ExperimentResult eb, string variant, string scenario, Metric metric, Estimate? a, Estimate? b)
    {
        var floors = ea.Comparisons.Concat(eb.Comparisons)
            .Where(c => c.Scenario == scenario && c.Metric == metric && double.IsFinite(c.NoiseFloorPercent))
            .Select(c => c.NoiseFloorPercent)
            .ToList();
        double? floor = floors.Count > 0 ? floors.Max() : null;

        var (change, low, high, verdict) = Statistics.CompareEstimates(a, b, metric.HigherIsBetter, floor ?? 0);
        return new(ea.Name, variant, scenario, metric, a, b, change, low, high, floor, verdict);
    }
}
