using PerfLab.Common;
using PerfLab.Results;

namespace PerfLab.Reports;

/// <summary>One figure of one experiment, variant and scenario in two result folders: B against A.</summary>
public sealed record ComparedFigure(
    string Experiment,
    string Variant,
    string Scenario,
    string Metric,
    Estimate? A,
    Estimate? B,
    double ChangePercent,
    double LowPercent,
    double HighPercent,
    double? NoiseFloorPercent,
    Verdict Verdict);

/// <summary>Errors of one experiment, variant and scenario in two result folders, over their successful runs.</summary>
public sealed record ComparedErrors(string Experiment, string Variant, string Scenario, long ErrorsA, long RequestsA, long ErrorsB,
    long RequestsB)
{
    public double RateA => RequestsA > 0 ? 100.0 * ErrorsA / RequestsA : double.NaN;
    public double RateB => RequestsB > 0 ? 100.0 * ErrorsB / RequestsB : double.NaN;
}

/// <summary>What <c>perflab compare-results A B</c> found: the matched figures and what only one side has.</summary>
public sealed record ResultsComparison(
    string LabelA,
    string LabelB,
    RunResults A,
    RunResults B,
    IReadOnlyList<ComparedFigure> Figures,
    IReadOnlyList<string> OnlyInA,
    IReadOnlyList<string> OnlyInB,
    IReadOnlyList<string> WithoutData)
{
    /// <summary>Errors side by side, per experiment, variant and scenario in both folders.</summary>
    public IReadOnlyList<ComparedErrors> Errors { get; init; } = [];

    /// <summary>The gates of `--threshold`, checked on B (latency, RPS, errors) and on B against A (change, no-worse).</summary>
    public IReadOnlyList<ThresholdCheck> Thresholds { get; init; } = [];

    public const string Method =
        "Change = B median / A median - 1. Its 95 % interval is approximated from the two medians' intervals by the " +
        "MOVER method (Zou & Donner, 2008) on the log scale: each side of the interval of ln(B/A) combines the matching " +
        "half-widths of ln B and ln A in quadrature, which treats the two runs as independent. The margin is the larger " +
        "noise floor either run measured for the figure (none: zero). Better or worse: the interval excludes zero and the " +
        "change exceeds the margin; equivalent: the whole interval lies within ± the margin (an equivalence test, as TOST); " +
        "inconclusive: the interval is wider than that, or a figure from fewer than two successful runs has none.";

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
                var sa = ReportContent.Summary(ea, variant);
                var sb = ReportContent.Summary(eb, variant);
                if (sa is not { SuccessfulRuns: > 0 })
                {
                    withoutData.Add($"{ea.Name} / {variant}: no successful run in {labelA}");
                }
                if (sb is not { SuccessfulRuns: > 0 })
                {
                    withoutData.Add($"{ea.Name} / {variant}: no successful run in {labelB}");
                }
                figures.AddRange(scenarios.SelectMany(scenario => Metrics.Compared.Select(m => Figure(ea, eb, variant, scenario, m.Key,
                    ReportContent.ScenarioEstimate(sa, scenario, m.Key), ReportContent.ScenarioEstimate(sb, scenario, m.Key)))));
                // With a single scenario its RPS is the experiment's: an "all" row would only repeat it.
                var single = ea.Scenarios.Count == 1 && eb.Scenarios.Count == 1 && scenarios.Count == 1;
                if (!single && (sa?.AllRps is not null || sb?.AllRps is not null))
                {
                    figures.Add(Figure(ea, eb, variant, Metric.AllScenarios, Metrics.Rps.Key, sa?.AllRps, sb?.AllRps));
                }
                if (sa?.BatchMeanMs is not null || sb?.BatchMeanMs is not null)
                {
                    figures.Add(Figure(ea, eb, variant, Metric.AllScenarios, Metrics.BatchMeanMs.Key, sa?.BatchMeanMs, sb?.BatchMeanMs));
                }
                if (CostOf(ea, variant) is var costA && CostOf(eb, variant) is var costB && (costA is not null || costB is not null))
                {
                    figures.Add(Figure(ea, eb, variant, Metric.AllScenarios, Metrics.CpuPerRequest.Key, costA, costB));
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
    public ResultsComparison WithGates(IReadOnlyList<Threshold> thresholds)
    {
        var checks = new List<ThresholdCheck>();
        foreach (var t in thresholds)
        {
            if (t.Scenario is { } scenario && B.Experiments.All(e => !e.Scenarios.Contains(scenario)))
            {
                throw new PerfLabException($"threshold '{t.Text}': no experiment in {LabelB} has a scenario '{scenario}'.", ExitCode.Usage);
            }
            switch (t.Metric)
            {
                case Threshold.NoWorse or Threshold.Change:
                    checks.AddRange(Changes(t));
                    break;
                default:
                    checks.AddRange(B.Experiments.SelectMany(e => ThresholdGate.Absolute(t, e)));
                    break;
            }
        }
        return this with { Thresholds = checks };
    }

    /// <summary>
    /// "change" and "no-worse" on every experiment both folders have: the figures of its deciding metric (B's
    /// <c>decide:</c>, when both sides measured it; else batch time or RPS), or of the metric the threshold names, better
    /// positive, read on their intervals (<see cref="ChangeGate.Check"/>).
    /// </summary>
    private IEnumerable<ThresholdCheck> Changes(Threshold t)
    {
        foreach (var experiment in Figures.Select(f => f.Experiment).Distinct())
        {
            var figures = Figures.Where(f => f.Experiment == experiment).ToList();
            var eb = B.Experiments.First(e => e.Name == experiment);
            var compared = figures.Where(f => double.IsFinite(f.ChangePercent)).Select(f => f.Metric).ToHashSet();
            var key = ChangeGate.MetricKey(t, Deciding.Key(compared, eb.DecidedBy), oneOfSeveral: t.Scenario is not null);
            var read = figures.Where(f => f.Metric == key && t.Covers(f.Scenario)).ToList();
            if (read.Count == 0 && (t.Scenario is null || eb.Scenarios.Contains(t.Scenario)))
            {
                yield return ChangeGate.Missing(t, $"{experiment}: {LabelB} vs {LabelA}", key);
            }
            foreach (var f in read)
            {
                yield return ChangeGate.Check(t, $"{f.Experiment} / {f.Variant} / {f.Scenario}: {LabelB} vs {LabelA}", Gated(f));
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
        ExperimentResult ea, ExperimentResult eb, string variant, string scenario, string metric, Estimate? a, Estimate? b)
    {
        var floors = ea.Comparisons.Concat(eb.Comparisons)
            .Where(c => c.Scenario == scenario && c.Metric == metric && double.IsFinite(c.NoiseFloorPercent))
            .Select(c => c.NoiseFloorPercent)
            .ToList();
        double? floor = floors.Count > 0 ? floors.Max() : null;

        var (change, low, high, verdict) = Statistics.CompareEstimates(a, b, Metrics.Get(metric).HigherIsBetter, floor ?? 0);
        return new(ea.Name, variant, scenario, metric, a, b, change, low, high, floor, verdict);
    }
}
