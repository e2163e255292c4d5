using PerfLab.Results;

namespace PerfLab.Reports;

// The figures report.html's script draws, serialized into the page as JSON. Built from the result graph only.

internal sealed record ChartPage(
    IReadOnlyList<ExperimentCharts> Experiments,
    [property: System.Text.Json.Serialization.JsonIgnore(Condition = System.Text.Json.Serialization.JsonIgnoreCondition.WhenWritingNull)]
    IReadOnlyList<SweepChart>? Sweeps = null);

/// <summary>Each variant's change (percent, with its 95 % interval) against a sweep's condition, with the verdicts.</summary>
internal sealed record SweepChart(string Id, string Axis, string Metric, IReadOnlyList<double> Values, IReadOnlyList<string> Labels,
    IReadOnlyList<SweepChartSeries> Series);

internal sealed record SweepChartSeries(string Variant, IReadOnlyList<double?> Change, IReadOnlyList<double?> Low,
    IReadOnlyList<double?> High,
    IReadOnlyList<string> Verdict);

internal sealed record ExperimentCharts(
    string Id, string Name, IReadOnlyList<BarChart> Bars, TimelineCharts? Timelines,
    RunOrderChart? RunOrder, StackedBars? Breakdown, IReadOnlyList<FlameGraphs> Flames, ChangeChart? Change = null);

/// <summary>
/// A forest plot: each variant's change against the baseline with its 95 % interval, on the deciding figure and the
/// headline figures beside it (the summary's lines drawn), one row each.
/// </summary>
internal sealed record ChangeChart(string Title, string Baseline, string DecidedBy, IReadOnlyList<ChangeRow> Rows);

/// <param name="Decides">True for the row whose verdict is the variant's; a row beside it is drawn in grey.</param>
internal sealed record ChangeRow(string Variant, string Metric, bool Decides, double Change, double? Low, double? High, string Verdict);

/// <summary>Grouped bars with whiskers: one group per scenario (and "all"), one bar per variant.</summary>
internal sealed record BarChart(string Title, string Unit, IReadOnlyList<string> Groups, IReadOnlyList<BarSeries> Series);

internal sealed record BarSeries(string Variant, IReadOnlyList<double?> Median, IReadOnlyList<double?> Low, IReadOnlyList<double?> High);

internal sealed record TimelineCharts(string Note, bool UsersVary, IReadOnlyList<TimelineSeries> Series);

internal sealed record TimelineSeries(
    string Variant,
    int Repetition,
    IReadOnlyList<int> Second,
    IReadOnlyList<int> Users,
    IReadOnlyList<double?> Rps,
    IReadOnlyList<double?> P99Ms,
    IReadOnlyList<double?> Threads,
    IReadOnlyList<double?> QueueLength);

internal static class ChartModel
{
    public static ChartPage Build(RunResults results) =>
        new(results.Experiments.Select(e => new ExperimentCharts(
            ReportContent.Anchor(e), e.Name, Bars(e).ToList(), Timelines(e),
            EvidenceCharts.RunOrder(e), EvidenceCharts.Breakdown(e), FlameGraphModel.Build(e), Change(e))).ToList(),
            results.Sweeps is { Count: > 0 } sweeps ? sweeps.Select(Sweep).ToList() : null);

    public static SweepChart Sweep(SweepResult sweep) => new(
        SweepContent.Anchor(sweep), ConditionNames.Axis(sweep.Condition), Fmt.Metric(sweep.Metric), sweep.Values,
        sweep.Values.Select(v => ConditionNames.Value(sweep.Condition, v)).ToList(),
        sweep.Variants.Select(v => new SweepChartSeries(v.Variant,
            v.Points.Select(p => p.ChangePercent).ToList(),
            v.Points.Select(p => p.LowPercent).ToList(),
            v.Points.Select(p => p.HighPercent).ToList(),
            v.Points.Select(p => Fmt.Verdict(p.Verdict)).ToList())).ToList());

    /// <summary>The summary's lines of an experiment as a forest plot; null when no variant has a change to draw.</summary>
    public static ChangeChart? Change(ExperimentResult experiment)
    {
        var rows = SummaryContent.Lines(experiment).Where(l => l.Deciding is not null)
            .SelectMany(l => l.Beside.Select(c => Row(c, false)).Prepend(Row(l.Deciding!, true)))
            .Where(r => double.IsFinite(r.Change))
            .ToList();
        var decidedBy = Deciding.Key(experiment).Name;
        var title = $"{experiment.Name}: change against {experiment.Baseline}, decided by {decidedBy} (95 % intervals)";
        return rows.Count == 0 ? null : new ChangeChart(title, experiment.Baseline, decidedBy, rows);
    }

    private static ChangeRow Row(Comparison c, bool decides) =>
        new(c.Variant, c.Metric.Name, decides, c.ChangePercent, Finite(c.LowPercent), Finite(c.HighPercent),
            Fmt.Verdict(c.Verdict));

    private static IEnumerable<BarChart> Bars(ExperimentResult experiment)
    {
        var groups = experiment.Scenarios.Append("all").ToList();
        yield return new BarChart("Throughput", "RPS", groups, experiment.Variants.Select(v =>
        {
            var summary = Summaries.Of(experiment, v);
            var estimates = experiment.Scenarios.Select(s => Summaries.Estimate(summary, s, Metrics.Rps))
                .Append(summary?.AllRps).ToList();
            return Series(v, estimates);
        }).ToList());

        yield return new BarChart("Mean latency", "ms", experiment.Scenarios.ToList(), experiment.Variants.Select(v =>
        {
            var summary = Summaries.Of(experiment, v);
            return Series(v, experiment.Scenarios.Select(s => Summaries.Estimate(summary, s, Metrics.MeanMs)).ToList());
        }).ToList());

        if (experiment.Summaries.Any(s => s.BatchMeanMs is not null))
        {
            yield return new BarChart("Time per batch", "ms", ["batch"], experiment.Variants
                .Select(v => Series(v, [Summaries.Of(experiment, v)?.BatchMeanMs])).ToList());
        }
    }

    private static BarSeries Series(string variant, IReadOnlyList<Estimate?> estimates) => new(
        variant,
        estimates.Select(e => Finite(e is { Samples: > 0 } ? e.Median : null)).ToList(),
        estimates.Select(e => Finite(e is { Samples: > 1 } ? e.Low : null)).ToList(),
        estimates.Select(e => Finite(e is { Samples: > 1 } ? e.High : null)).ToList());

    // One run per variant: the successful run with the median total RPS, so the line shows a typical run.
    public static TimelineCharts? Timelines(ExperimentResult experiment)
    {
        var series = new List<TimelineSeries>();
        foreach (var variant in experiment.Variants)
        {
            var runs = ReportContent.OkRuns(experiment)
                .Where(r => r.Variant == variant && r.Timeline.Count > 0)
                .OrderBy(r => r.Scenarios.Sum(s => s.Rps))
                .ThenBy(r => r.Order)
                .ToList();
            if (runs.Count == 0)
            {
                continue;
            }
            var run = runs[(runs.Count - 1) / 2];
            var points = run.Timeline.OrderBy(p => p.Second).ToList();
            series.Add(new TimelineSeries(
                variant,
                run.Repetition,
                points.Select(p => p.Second).ToList(),
                points.Select(p => p.Users).ToList(),
                points.Select(p => Finite(p.Rps)).ToList(),
                points.Select(p => Finite(p.P99Ms)).ToList(),
                points.Select(p => Finite(p.Counters.TryGetValue(Metrics.ThreadCount.Key, out var v) ? v : null)).ToList(),
                points.Select(p => Finite(p.Counters.TryGetValue(Metrics.QueueLength.Key, out var v) ? v : null)).ToList()));
        }
        if (series.Count == 0)
        {
            return null;
        }
        var usersVary = series.Any(s => s.Users.Count > 0 && s.Users.Min() != s.Users.Max());
        var note = "One run per variant: the successful repetition with the median total RPS (" +
                   string.Join(", ", series.Select(s => $"{s.Variant}: repetition {Fmt.Int(s.Repetition)}")) + ").";
        return new TimelineCharts(note, usersVary, series);
    }

    private static double? Finite(double? value) => value is { } v && double.IsFinite(v) ? v : null;
}
